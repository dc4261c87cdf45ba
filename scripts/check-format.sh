#!/usr/bin/env bash
# Checks that every C++ and CUDA file in git follows .clang-format (CI runs it; clang-format 14,
# Debian 12's). Prints the files that differ and exits 1 if any does; --fix rewrites them instead.
# Usage: scripts/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format="${CLANG_FORMAT:-clang-format}"
command -v "$clang_format" >/dev/null ||
  { echo "error: $clang_format not found (Debian: apt-get install clang-format)" >&2; exit 3; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
if [[ ${1:-} == --fix ]]; then
  "$clang_format" -i "${files[@]}"
  exit 0
fi
[[ $# -eq 0 ]] || { echo "error: unknown argument '$1' (allowed: --fix)" >&2; exit 2; }
differ=()
for f in "${files[@]}"; do
  "$clang_format" --dry-run --Werror "$f" >/dev/null 2>&1 || differ+=("$f")
done
if ((${#differ[@]})); then
  printf 'not formatted per .clang-format: %s\n' "${differ[@]}"
  echo "${#differ[@]} of ${#files[@]} files differ; scripts/check-format.sh --fix rewrites them"
  exit 1
fi
echo "clang-format: ${#files[@]} files clean ($("$clang_format" --version | head -1))"
