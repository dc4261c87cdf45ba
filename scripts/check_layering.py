#!/usr/bin/env python3
"""Checks the include arrows of the source tree against the folder layering the build declares.

Each line of LAYERS (written by CMake's rfl_write_layers, cmake/Layers.cmake) is
"<folder>: <dep> <dep> ...". A file in src/<folder>/ (any depth), kernels/ (folder "kernels") or
app/ (folder "app") may include a header of its own folder or of a folder it depends on,
directly or through other folders. Prints one line per include against the layering, per folder
of src/ that no line declares, and per dependency cycle, and exits 1 if there is any; prints the
folder graph and exits 0 otherwise.

Usage: check_layering.py --layers LAYERS [--root DIR]
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".in")


def read_layers(path):
    layers = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if ":" not in line:
                sys.exit(f"{path}:{number}: expected '<folder>: <deps>', got '{line}'")
            folder, deps = line.split(":", 1)
            layers[folder.strip()] = deps.split()
    return layers


def closure(layers, folder, trail=()):
    """Every folder `folder` may use, and the cycles met on the way."""
    reachable, cycles = set(), []
    for dep in layers.get(folder, []):
        if dep in trail or dep == folder:
            cycles.append(" -> ".join(trail + (folder, dep)))
            continue
        reachable.add(dep)
        sub, sub_cycles = closure(layers, dep, trail + (folder,))
        reachable |= sub
        cycles += sub_cycles
    return reachable, cycles


def folder_of(path):
    """The layer a repository-relative source path belongs to, or None."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] in ("kernels", "app"):
        return parts[0]
    return None


def included_folder(include, own, src_folders):
    first = include.split("/")[0]
    if first == "kernels":
        return "kernels"
    if first in src_folders:
        return first
    return own  # a path relative to the file's own folder (app/cli/..., "x.hpp")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", required=True)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    layers = read_layers(args.layers)
    problems = []
    src_folders = sorted(d for d in os.listdir(os.path.join(root, "src"))
                         if os.path.isdir(os.path.join(root, "src", d)))
    for folder in src_folders:
        if folder not in layers:
            problems.append(f"src/{folder}/ is not declared by any rfl_layer in CMakeLists.txt")
    allowed = {}
    for folder in layers:
        reachable, cycles = closure(layers, folder)
        allowed[folder] = reachable | {folder}
        problems += [f"dependency cycle: {c}" for c in cycles]
    for top in ("src", "kernels", "app"):
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/")
                own = folder_of(path)
                if own is None or own not in layers:
                    continue
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        target = included_folder(match.group(1), own, src_folders)
                        if target not in allowed[own]:
                            problems.append(f"{path}:{number}: includes \"{match.group(1)}\": "
                                            f"{own}/ may not use {target}/ (it uses: "
                                            f"{' '.join(layers[own]) or 'nothing'})")
    for problem in sorted(set(problems)):
        print(problem)
    if problems:
        return 1
    for folder, deps in layers.items():
        print(f"{folder} -> {' '.join(deps) or '(nothing)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
