#!/usr/bin/env python3
"""The "FlashAttention-2 or PagedAttention?" decision table (issue 18, item 5), from rooflinectl.

Rows are workloads x phase: a short chat (200-token prompts), 4K retrieval prompts and 32K
documents, each in prefill (B = 1, L = the prompt, causal) and in decode at B = 1 and B = 64 over
a KV cache of prompt + output positions (the cache at the last generated token). Columns are what
each technique buys at one model preset's attention shape (default llama-3.1-8b):

  FlashAttention vs naive, time          sweep c1 (prefill), measured
  FlashAttention vs naive, peak memory   model c3: Q, K, V, O (+ S and P for naive), modelled
  GQA group 4 and group 8 vs group 1     sweep c2 (decode attention, one layer), measured
  FP8 KV (e4m3) vs bf16, decode time     sweep c2 at the preset's own H_kv, measured
  paged KV: sequences that fit           model c4 (--max-model-len, --kv-lengths), modelled

Each cell names its command (c1..c4, listed under the table) and is marked [measured] or
[modelled]. A point the sweep skipped (naive attention at 32K does not fit an 80 GB GPU: S and P
of 32 heads are 137 GB) or that failed says so in its cell.

Usage:
  scripts/decision_table.py [--rooflinectl build/release/rooflinectl] [--preset llama-3.1-8b]
      [--gpu h100-sxm] [--max-model-len 131072] [--repetitions 10] [--work-dir DIR]
      [--output TABLE.md] [--doc docs/evidence.md] [--dry-run | --modelled-only | --from-dir DIR]
  --dry-run        prints the four commands and runs nothing
  --modelled-only  runs only the two `model` commands (no GPU); measured cells say how to fill them
  --from-dir DIR   runs nothing: renders from the reports a previous run left in DIR (prefill.json,
                   decode.json, prefill-model.json, capacity.json; a missing sweep report leaves
                   its cells unmeasured)
  --output FILE    writes the Markdown there (atomically); --doc FILE replaces the block between
                   "<!-- decision-table:begin -->" and "<!-- decision-table:end -->" in FILE
                   (atomically); with neither, the Markdown goes to stdout.
Exit code: 0 table written; 1 written, but a sweep point was skipped or failed; 2 bad input, the
script's or a command's (one line on stderr, nothing written); 3 a command failed for its
environment (no GPU, counters refused: one line, nothing written; --modelled-only needs no GPU).
The two sweeps (30 points, 10 repetitions, no counters) took 29 s on an H100 (2026-12-06).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile

from atomic_write import write_text_atomically

kRepoRoot = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
kPresetDir = os.path.join(kRepoRoot, "configs", "models")
# (name, prompt tokens, output tokens). Prompts as issue 18 item 5 names them; the outputs are
# this table's assumption (a chat reply, a retrieval answer, a document summary).
kWorkloads = (("short chat", 200, 300), ("4K retrieval", 4096, 256),
              ("32K document", 32768, 512))
kDecodeBatches = (1, 64)
kGroups = (1, 4, 8)  # GQA groups compared: MHA, then the two the issue names
kHeadDims = (64, 128)  # what flash and decode attention support (rooflinectl list)
kReports = {"c1": "prefill.json", "c2": "decode.json", "c3": "prefill-model.json",
            "c4": "capacity.json"}
kBegin = "<!-- decision-table:begin -->"
kEnd = "<!-- decision-table:end -->"
kNotMeasured = "not measured: run `scripts/decision_table.py` on a GPU"


class BadInput(Exception):
    """Input the script refuses: exit 2 with one line."""


def load_preset(preset_id: str) -> dict:
    """The preset's attention shape and depth from configs/models/<id>.json; BadInput when the
    kernels cannot run it or a GQA group of kGroups does not divide its heads."""
    path = os.path.join(kPresetDir, f"{preset_id}.json")
    if not os.path.isfile(path):
        known = sorted(f[:-5] for f in os.listdir(kPresetDir) if f.endswith(".json"))
        raise BadInput(f"unknown preset '{preset_id}' (--preset): known {', '.join(known)}")
    with open(path) as f:
        doc = json.load(f)
    p = {k: doc[k]["value"] for k in ("heads", "kv_heads", "head_dim", "layers")}
    p["id"] = preset_id
    if p["head_dim"] not in kHeadDims:
        raise BadInput(f"preset {preset_id}: head_dim {p['head_dim']} is not supported by the "
                       f"flash and decode kernels (allowed {', '.join(map(str, kHeadDims))})")
    for g in kGroups:
        if p["heads"] % g:
            raise BadInput(f"preset {preset_id}: {p['heads']} heads cannot form GQA groups of {g}")
    return p


def prompts() -> list:
    return [prompt for _, prompt, _ in kWorkloads]


def contexts() -> list:
    return [prompt + out for _, prompt, out in kWorkloads]


def joined(values) -> str:
    return ",".join(str(v) for v in values)


def kv_heads_list(preset: dict) -> list:
    """H_kv of each group in kGroups (H/g), then the preset's own if it is none of them."""
    out = [preset["heads"] // g for g in kGroups]
    return out + ([preset["kv_heads"]] if preset["kv_heads"] not in out else [])


def plan(args, preset: dict, work_dir: str) -> dict:
    """The four commands by id: c1, c2 sweeps (GPU), c3, c4 models (no GPU)."""
    b = args.rooflinectl
    common = ["--repetitions", str(args.repetitions), "--no-counters"]
    return {
        "c1": [b, "sweep", "--model", preset["id"], "--ops", "naive_attention,flash_attention",
               "--seq", joined(prompts()), "--batch", "1", "--causal", "on", *common,
               "--output", os.path.join(work_dir, kReports["c1"])],
        "c2": [b, "sweep", "--model", preset["id"], "--ops", "decode_attention",
               "--seq", joined(contexts()), "--batch", joined(kDecodeBatches),
               "--kv-heads", joined(kv_heads_list(preset)), "--kv-dtype", "auto,fp8_e4m3",
               "--filter", f"kv_dtype=auto|kv_heads={preset['kv_heads']}", *common,
               "--output", os.path.join(work_dir, kReports["c2"])],
        "c3": [b, "model", "--gpu", args.gpu, "--model", preset["id"],
               "--ops", "naive_attention,flash_attention", "--seq", joined(prompts()),
               "--causal", "on", "--format", "json",
               "--output", os.path.join(work_dir, kReports["c3"])],
        "c4": [b, "model", "--gpu", args.gpu, "--model", preset["id"], "--ops", "decode_attention",
               "--max-model-len", str(args.max_model_len), "--kv-lengths", joined(contexts()),
               "--format", "json", "--output", os.path.join(work_dir, kReports["c4"])],
    }


def shown(cmd: list) -> str:
    """The command as the table prints it: the binary as `rooflinectl`, the output path as a
    file name (the directory is the run's)."""
    out = ["rooflinectl"] + cmd[1:]
    if "--output" in out:
        i = out.index("--output") + 1
        out[i] = os.path.basename(out[i])
    return " ".join(shlex.quote(t) for t in out)


def run(cmd: list, name: str, work_dir: str) -> str:
    """Runs one command (stdout and stderr to logs in work_dir); returns "" when its report was
    written (sweep exit 0 or 1), else the failure in one line."""
    print(f"[{name}] {' '.join(cmd)}", file=sys.stderr, flush=True)
    with open(os.path.join(work_dir, f"{name}.log"), "w") as log:
        done = subprocess.run(cmd, stdout=log, stderr=subprocess.PIPE, text=True)
        log.write(done.stderr)
    if done.returncode in (0, 1):
        return ""
    tail = (done.stderr.strip().splitlines() or ["(no stderr)"])[-1]
    return f"{name} exited {done.returncode}: {tail}"


def read_report(work_dir: str, name: str):
    path = os.path.join(work_dir, kReports[name])
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def ms(seconds: float) -> str:
    """A time in µs below 1 ms, else in ms; three significant digits."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    return f"{seconds * 1e3:.3g} ms"


def gb(nbytes: float) -> str:
    """Bytes in decimal units (1 MB = 1e6 B), as `rooflinectl model` prints them."""
    if nbytes < 1e9:
        return f"{nbytes / 1e6:.3g} MB"
    return f"{nbytes / 1e9:.3g} GB"


def sweep_point(report, op: str, **shape):
    """The point of `op` whose shape has every key of `shape` (kv_dtype "auto" also matches a
    point that leaves kv_dtype out, as reports do), else None."""
    for point in (report or {}).get("points", []):
        s = dict(point.get("shape", {}))
        s.setdefault("kv_dtype", "auto")
        if point.get("op") == op and all(s.get(k) == v for k, v in shape.items()):
            return point
    return None


def timed(point):
    """(median seconds, None) of a validated ok point, else (None, why it has no time)."""
    if point is None:
        return None, "no such point in the report"
    status = point.get("status")
    if status != "ok":
        return None, f"{status}: {point.get('reason') or 'no reason given'}"
    if not (point.get("validation") or {}).get("passed", False):
        return None, "failed validation"
    median = (point.get("timing") or {}).get("median_s")
    return (float(median), None) if median is not None else (None, "no median time")


class Table:
    """Renders the cells from the four reports (None: not there)."""

    def __init__(self, preset: dict, reports: dict, commands: dict):
        self.p = preset
        self.r = reports
        self.commands = commands
        self.incomplete = False  # a sweep point skipped or failed

    def missing(self, name: str) -> str:
        return kNotMeasured if name in ("c1", "c2") else f"`model` report missing [{name}]"

    def speedup(self, name: str, slow, fast, slow_label: str, fast_label: str) -> str:
        """"X× (slow_label a → fast_label b) [measured, name]", or why not."""
        (slow_s, slow_why), (fast_s, fast_why) = timed(slow), timed(fast)
        if slow_s is None or fast_s is None:
            self.incomplete = True
            parts = [f"{label} {why}" if s is None else f"{label} {ms(s)}"
                     for label, s, why in ((slow_label, slow_s, slow_why),
                                           (fast_label, fast_s, fast_why))]
            return f"{'; '.join(parts)} [measured, {name}]"
        return (f"**{slow_s / fast_s:.2f}×** ({slow_label} {ms(slow_s)} → {fast_label} "
                f"{ms(fast_s)}) [measured, {name}]")

    def prefill_time(self, prompt: int) -> str:
        rep = self.r.get("c1")
        if rep is None:
            return self.missing("c1")
        naive = sweep_point(rep, "naive_attention", seq_len=prompt)
        flash = sweep_point(rep, "flash_attention", seq_len=prompt)
        return self.speedup("c1", naive, flash, "naive", "flash")

    def prefill_memory(self, prompt: int) -> str:
        rep = self.r.get("c3")
        if rep is None:
            return self.missing("c3")
        row = next((m for m in rep.get("memory", []) if m.get("seq_len") == prompt), None)
        if row is None:
            return f"no memory row at L = {prompt} [modelled, c3]"
        naive, flash = row["naive_attention_bytes"], row["qkvo_bytes"]
        fits = "fits" if row.get("naive_fits_memory") else "does not fit"
        return (f"naive {gb(naive)} → flash {gb(flash)} (**{naive / flash:.3g}×** less; naive "
                f"{fits} {rep['gpu']['id']}) [modelled, c3]")

    def decode_gqa(self, context: int, batch: int, group: int) -> str:
        rep = self.r.get("c2")
        if rep is None:
            return self.missing("c2")
        h = self.p["heads"]
        base = sweep_point(rep, "decode_attention", seq_len=context, batch=batch, kv_heads=h,
                           kv_dtype="auto")
        grouped = sweep_point(rep, "decode_attention", seq_len=context, batch=batch,
                              kv_heads=h // group, kv_dtype="auto")
        return self.speedup("c2", base, grouped, "g=1", f"g={group}")

    def decode_fp8(self, context: int, batch: int) -> str:
        rep = self.r.get("c2")
        if rep is None:
            return self.missing("c2")
        hkv = self.p["kv_heads"]
        bf16 = sweep_point(rep, "decode_attention", seq_len=context, batch=batch, kv_heads=hkv,
                           kv_dtype="auto")
        fp8 = sweep_point(rep, "decode_attention", seq_len=context, batch=batch, kv_heads=hkv,
                          kv_dtype="fp8_e4m3")
        return self.speedup("c2", bf16, fp8, "bf16", "fp8")

    def capacity(self, context: int, batch: int) -> str:
        rep = self.r.get("c4")
        if rep is None:
            return self.missing("c4")
        kv = rep.get("kv_capacity") or {}
        row = next((r for r in kv.get("rows", []) if r.get("seq_len") == context), None)
        if row is None:
            return f"no capacity row at L = {context} [modelled, c4]"
        contiguous, paged = row["contiguous_sequences"], row["paged_sequences"]
        gain = f" (**{paged / contiguous:.3g}×**)" if contiguous else ""
        text = f"contiguous {contiguous} → paged {paged} sequences{gain}"
        if batch > 1:
            fits = ["yes" if n >= batch else "no" for n in (contiguous, paged)]
            text += f"; B = {batch} fits: contiguous {fits[0]}, paged {fits[1]}"
        return f"{text} [modelled, c4]"

    def rows(self) -> list:
        dash = "—"
        out = []
        for (name, prompt, output), context in zip(kWorkloads, contexts()):
            label = f"{name} ({prompt} + {output} tokens)"
            out.append([label, f"prefill, B = 1, L = {prompt}", self.prefill_time(prompt),
                        self.prefill_memory(prompt), dash, dash, dash, dash])
            for batch in kDecodeBatches:
                out.append(["", f"decode, B = {batch}, context {context}", dash, dash,
                            self.decode_gqa(context, batch, 4), self.decode_gqa(context, batch, 8),
                            self.decode_fp8(context, batch), self.capacity(context, batch)])
        return out

    def header(self) -> str:
        p = self.p
        lines = [f"Preset `{p['id']}`: H = {p['heads']}, H_kv = {p['kv_heads']} (group "
                 f"{p['heads'] // p['kv_heads']}), d = {p['head_dim']}, {p['layers']} layers, "
                 "bf16; attention of one layer."]
        sweep = self.r.get("c1") or self.r.get("c2")
        if sweep:
            dev, tool = sweep.get("device", {}), sweep.get("tool", {})
            lines.append(f"Measured on {dev.get('name', '?')} ({sweep.get('timestamp_utc', '?')}, "
                         f"rooflinectl {tool.get('version', '?')} at "
                         f"{tool.get('git_revision') or '?'}), median of the timed repetitions.")
        else:
            lines.append("Measured cells: not measured yet (`scripts/decision_table.py` on a GPU "
                         "fills them).")
        model = self.r.get("c3") or self.r.get("c4")
        if model:
            lines.append(f"Modelled on `{model['gpu']['id']}` ({model['gpu']['name']}) from its "
                         "datasheet entry.")
        return " ".join(lines)

    def markdown(self) -> str:
        heads = ["workload (prompt + output)", "phase", "FlashAttention vs naive: time",
                 "FlashAttention vs naive: peak memory", "GQA group 4 (vs 1): decode time",
                 "GQA group 8 (vs 1): decode time",
                 f"FP8 KV (vs bf16, H_kv = {self.p['kv_heads']}): decode time",
                 "paged KV: sequences that fit"]
        lines = [self.header(), "", "| " + " | ".join(heads) + " |",
                 "|" + "---|" * len(heads)]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows()]
        lines += ["", "Commands (each cell names one; [measured] cells are medians of a sweep on "
                  "the GPU, [modelled] cells come from `rooflinectl model`, no GPU):", ""]
        kinds = {"c1": "measured", "c2": "measured", "c3": "modelled", "c4": "modelled"}
        for name, cmd in self.commands.items():
            lines.append(f"- {name} [{kinds[name]}]: `{cmd}`")
        lines += ["", "Times are one layer's attention kernel (B sequences), the ratio the "
                  "speed-up; — where the technique does not apply (no naive decode path; GQA, "
                  "FP8 and paging act on the KV cache decode reads). Flash's memory is Q, K, V and "
                  "O, naive's adds S and P (2·B·H·L²·2 bytes)."]
        return "\n".join(lines) + "\n"


def replace_block(doc_text: str, block: str, doc_path: str) -> str:
    """doc_text with the lines between kBegin and kEnd replaced by block; BadInput when the
    markers are missing, repeated or out of order."""
    if doc_text.count(kBegin) != 1 or doc_text.count(kEnd) != 1:
        raise BadInput(f"{doc_path} needs exactly one '{kBegin}' and one '{kEnd}' line (--doc)")
    start, end = doc_text.index(kBegin), doc_text.index(kEnd)
    if end < start:
        raise BadInput(f"{doc_path}: '{kEnd}' comes before '{kBegin}' (--doc)")
    return doc_text[:start] + kBegin + "\n" + block + doc_text[end:]


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooflinectl", default="build/release/rooflinectl")
    parser.add_argument("--preset", default="llama-3.1-8b", help="configs/models/<id>.json")
    parser.add_argument("--gpu", default="h100-sxm",
                        help="spec id for the modelled cells (rooflinectl model --gpu)")
    parser.add_argument("--max-model-len", type=int, default=131072,
                        help="positions a contiguous allocator reserves per sequence (default "
                             "131072, Llama 3.1's context length and so vLLM's default)")
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--work-dir", help="reports and logs (default: a new temp directory)")
    parser.add_argument("--output", help="write the Markdown table here (atomically)")
    parser.add_argument("--doc", help="replace the marked block of this file (atomically)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    mode.add_argument("--modelled-only", action="store_true",
                      help="run only the `model` commands (no GPU)")
    mode.add_argument("--from-dir", help="render from the reports in this directory")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        if args.repetitions < 1:
            raise BadInput(f"invalid --repetitions {args.repetitions}: at least 1")
        if args.max_model_len < max(contexts()):
            raise BadInput(f"invalid --max-model-len {args.max_model_len}: below the longest "
                           f"workload's {max(contexts())} positions")
        if args.from_dir and not os.path.isdir(args.from_dir):
            raise BadInput(f"--from-dir {args.from_dir}: no such directory")
        if args.doc and not os.path.isfile(args.doc):
            raise BadInput(f"--doc {args.doc}: no such file")
        if args.output:
            if os.path.isdir(args.output):
                raise BadInput(f"--output {args.output}: is a directory, a file path is needed")
            parent = os.path.dirname(os.path.abspath(args.output))
            if not os.path.isdir(parent):
                raise BadInput(f"--output {args.output}: no such directory {parent}")
        preset = load_preset(args.preset)
        work_dir = args.from_dir or args.work_dir or (
            "WORK" if args.dry_run else tempfile.mkdtemp(prefix="decision-table-"))
        commands = plan(args, preset, work_dir)
        if args.dry_run:
            for cmd in commands.values():
                print(" ".join(shlex.quote(t) for t in cmd))
            return 0
        failures = {}
        if not args.from_dir:
            os.makedirs(work_dir, exist_ok=True)
            for name, cmd in commands.items():
                if args.modelled_only and cmd[1] == "sweep":
                    continue
                why = run(cmd, name, work_dir)
                if why:
                    failures[name] = why
        if failures:
            # Nothing is written from a partial set of commands: each failure on stderr, exit 2
            # when a command refused its input, else 3 (the environment: no GPU, counters).
            print(f"error: {'; '.join(failures.values())} (logs in {work_dir})", file=sys.stderr)
            return 2 if any(f" exited 2:" in why for why in failures.values()) else 3
        reports = {name: read_report(work_dir, name) for name in commands}
        table = Table(preset, reports, {name: shown(cmd) for name, cmd in commands.items()})
        text = table.markdown()
        if args.doc:
            with open(args.doc) as f:
                doc_text = f.read()
            write_text_atomically(args.doc, replace_block(doc_text, text, args.doc))
        if args.output:
            write_text_atomically(args.output, text)
        if not args.doc and not args.output:
            sys.stdout.write(text)
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not args.from_dir:
        print(f"reports and logs: {work_dir}", file=sys.stderr)
    measured = any(reports.get(name) for name in ("c1", "c2"))
    return 1 if measured and table.incomplete else 0


if __name__ == "__main__":
    sys.exit(main())
