#!/usr/bin/env python3
"""Side-by-side benchmark: rooflinectl's kernels against the vendor references.

In one run it (1) runs `rooflinectl sweep --no-counters --format json` at each benchmark shape
(plan() below) and reads timing.median_s of every point, (2) times the references at the same shapes in
bf16 with the same method (scripts/bench_reference.py), (3) prints one table and writes the rows
as JSON. Called by scripts/bench-gpu.sh, which builds rooflinectl first; a benchmark, never a test.

Every ratio is ours / reference in throughput (TFLOP/s or TB/s), both sides counting the row's
work_formula (a copy counts its own bytes read + written), so > 1 means ours is faster. Kinds of reference:
  * a vendor kernel (cuBLAS through torch.matmul, SDPA flash / cuDNN, F.gelu, F.layer_norm,
    F.rms_norm) or eager PyTorch (F.silu / F.gelu of the gate times up for swiglu, geglu);
  * a device-to-device copy moving the operator's bytes (gelu, layernorm, rmsnorm, swiglu, geglu:
    the bandwidth ceiling);
  * naive_attention's own bound: the bytes of S and P, each written once and read once
    (4·B·H·L²·2), at the copy bandwidth measured on a 2 GiB copy in the same run.
A value that was not measured is null with the reason, never 0.

`--head-dim D` runs the flash_attention and naive_attention rows at head_dim D instead of 128 (e.g.
96 and 256, the phi-3-mini-4k and gemma-2-9b presets'; same H, B·L and references); the other
operators keep their shapes. `--dry-run` prints the planned sweeps and rows without torch or a GPU.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Optional

from atomic_write import write_json_atomically

kDtype = "bf16"
kElementBytes = 2
kHeadDim = 128  # every operator's head_dim; --head-dim changes it for flash and naive attention
kFlashHeads = 16
kFlashTokens = 16384  # B·L of the FlashAttention papers' benchmark
kFlashSeqs = (4096, 8192, 16384)
kGemmDModel = 2048
kGemmSeqs = (4096, 8192, 16384, 32768)  # M = B·L with B = 1
kDecodeBatch = 8
kDecodeHeads = 32
kDecodeKvHeads = (32, 8)
kDecodeSeqs = (4096, 32768, 131072)
kLayerNormRows = 16384
kLayerNormDModels = (1024, 2048, 4096, 8192)
kCeilingCopyElements = 1 << 30  # 2 GiB of bf16 each way: far beyond L2 (60 MiB on H200)
# Llama-3.1-8B's projections (d_model 4096, H 32, H_kv 8, d 128, ffn 14336): name, N, K; each at
# decode M = batch (1, 16, 64) and prefill M = B·L (512, 4096), run as `--gemm-n N --gemm-k K`.
kLayerGemmModel = "llama-3.1-8b"
kLayerGemms = (("qkv", (32 + 2 * 8) * 128, 4096), ("o", 4096, 32 * 128),
               ("gate_up", 14336, 4096), ("down", 4096, 14336))
kLayerGemmRows = (1, 16, 64, 512, 4096)  # M = B·L with B = 1
# FP8 GEMM (issue 18 item 3, gemm_fp8_v1_wgmma, compute capability 9.0): E4M3 X[M, K] and
# W[N, K], one fp32 scale each, bf16 C; M, N, K of the FFN shapes (Llama-3.1-8B's up and down
# projections at 4096 tokens, and a wide-M one), each run as `--seq M --gemm-n N --gemm-k K`.
kFp8Gemms = ((4096, 14336, 4096), (4096, 4096, 14336), (16384, 8192, 2048))
kOperators = ("flash_attention", "naive_attention", "gemm", "gemm_layer", "gelu", "layernorm",
              "decode_attention", "rmsnorm", "swiglu", "geglu", "gemm_fp8")


@dataclass(frozen=True)
class Target:
    """The speed target of a row: ratio ≥ min_ratio."""

    min_ratio: float
    text: str


@dataclass(frozen=True)
class Sweep:
    """One rooflinectl invocation: operators × sequence lengths at one base shape."""

    key: str
    ops: tuple
    seqs: tuple
    flags: tuple  # shape flags after --ops/--seq

    def command(self, binary: str, repetitions: int, warmup_runs: int = 3) -> list:
        return [binary, "sweep", "--ops", ",".join(self.ops),
                "--seq", ",".join(str(s) for s in self.seqs), *self.flags, "--dtype", kDtype,
                "--no-counters", "--format", "json", "--repetitions", str(repetitions),
                "--warmup-runs", str(warmup_runs)]


@dataclass(frozen=True)
class Reference:
    """What to time on the PyTorch side; `key` identifies it so shared references run once."""

    kind: str  # sdpa | matmul | scaled_mm | gelu | layer_norm | rms_norm | gated | copy | naive_bound
    params: tuple  # sorted (name, value) pairs, the keyword arguments of the bench_reference call
    label: str  # short name for the table

    @property
    def key(self) -> tuple:
        return (self.kind, self.params)


@dataclass
class Row:
    operator: str
    shape: dict
    label: str
    sweep_key: str
    seq_len: int
    reference: Reference
    work: float  # FLOP or bytes, the same for both sides
    work_unit: str  # "FLOP" | "byte"
    work_formula: str
    target: Optional[Target]
    ref_work: Optional[float] = None  # the reference's own work when it differs (a copy)
    ours: dict = field(default_factory=dict)
    ref: dict = field(default_factory=dict)


def make_ref(kind: str, label: str, **params) -> Reference:
    return Reference(kind=kind, params=tuple(sorted(params.items())), label=label)


def attention_flop(batch: int, heads: int, seq: int, head_dim: int, causal: bool,
                   halve_causal: bool) -> float:
    """4·B·H·L²·d (two GEMMs of 2·L²·d per head), halved for a causal mask when the kernel skips
    the masked half (FlashAttention papers §4.1; naive attention computes all of S)."""
    flop = 4.0 * batch * heads * seq * seq * head_dim
    return flop / 2 if causal and halve_causal else flop


def plan(operators: tuple, attention_head_dim: int = kHeadDim) -> tuple:
    """The sweeps and rows of the benchmark for the chosen operators, in run order; the flash, naive
    and decode attention rows at head_dim `attention_head_dim` (their sweep keys name it when it is
    not kHeadDim, so the reports of runs at different head dims do not overwrite each other)."""
    sweeps, rows = [], []
    want = set(operators)

    if want & {"flash_attention", "naive_attention"}:
        ops = tuple(op for op in ("flash_attention", "naive_attention") if op in want)
        d = attention_head_dim
        for causal in (False, True):
            for seq in kFlashSeqs:
                batch = kFlashTokens // seq
                mask = "causal" if causal else "non-causal"
                key = f"attention-{'' if d == kHeadDim else f'd{d}-'}L{seq}-{mask}"
                flags = ("--batch", str(batch), "--heads", str(kFlashHeads), "--kv-heads",
                         str(kFlashHeads), "--head-dim", str(d))
                sweeps.append(Sweep(key, ops, (seq,), flags + (("--causal",) if causal else ())))
                shape = {"batch": batch, "heads": kFlashHeads, "kv_heads": kFlashHeads,
                         "head_dim": d, "seq_len": seq, "causal": causal}
                label = f"B={batch} H={kFlashHeads} L={seq} d={d} {mask}"
                sdpa = dict(batch=batch, heads=kFlashHeads, kv_heads=kFlashHeads, q_len=seq,
                            kv_len=seq, head_dim=d, causal=causal)
                if "flash_attention" in want:
                    flop = attention_flop(batch, kFlashHeads, seq, d, causal, halve_causal=True)
                    formula = "4·B·H·L²·d" + (" / 2 (causal)" if causal else "")
                    rows.append(Row("flash_attention", shape, label, key, seq,
                                    make_ref("sdpa", "sdpa-flash", backend="flash", **sdpa), flop,
                                    "FLOP", formula, Target(1.0, "≥ 1.0× SDPA flash")))
                    rows.append(Row("flash_attention", shape, label, key, seq,
                                    make_ref("sdpa", "sdpa-cudnn", backend="cudnn", **sdpa), flop,
                                    "FLOP", formula, Target(0.9, "≥ 0.9× SDPA cuDNN")))
                if "naive_attention" in want:
                    flop = attention_flop(batch, kFlashHeads, seq, d, causal, halve_causal=False)
                    sp_bytes = 4.0 * batch * kFlashHeads * seq * seq * kElementBytes
                    rows.append(Row("naive_attention", shape, label, key, seq,
                                    make_ref("naive_bound", "S,P bytes @ copy BW", sp_bytes=sp_bytes),
                                    flop, "FLOP", "4·B·H·L²·d (all of S computed)",
                                    Target(0.8, "≥ 0.8× own bound")))

    if "gemm" in want:
        n, k = 4 * kGemmDModel, kGemmDModel
        heads = kGemmDModel // kHeadDim
        sweeps.append(Sweep("gemm", ("gemm",), kGemmSeqs,
                            ("--batch", "1", "--heads", str(heads), "--kv-heads", str(heads),
                             "--head-dim", str(kHeadDim))))
        for m in kGemmSeqs:
            rows.append(Row("gemm", {"m": m, "n": n, "k": k}, f"M={m} N={n} K={k}", "gemm", m,
                            make_ref("matmul", "cuBLAS", m=m, n=n, k=k), 2.0 * m * n * k, "FLOP",
                            "2·M·N·K", Target(0.9, "≥ 0.9× cuBLAS")))

    if "gemm_layer" in want:
        # Rows of operator gemm (so that the report's gemm points are found); one sweep per
        # projection over the M values as --seq.
        for name, n, k in kLayerGemms:
            key = f"gemm-{kLayerGemmModel}-{name}"
            sweeps.append(Sweep(key, ("gemm",), kLayerGemmRows,
                                ("--batch", "1", "--gemm-n", str(n), "--gemm-k", str(k))))
            for m in kLayerGemmRows:
                phase = "decode" if m <= 64 else "prefill"
                rows.append(Row("gemm", {"m": m, "n": n, "k": k, "model": kLayerGemmModel,
                                         "projection": name, "phase": phase},
                                f"{kLayerGemmModel} {name} M={m} N={n} K={k}", key, m,
                                make_ref("matmul", "cuBLAS", m=m, n=n, k=k), 2.0 * m * n * k,
                                "FLOP", "2·M·N·K", Target(0.9, "≥ 0.9× cuBLAS")))

    if "gemm_fp8" in want:
        # Rows of operator gemm (the report's points are gemm's, at gemm_dtype fp8_e4m3); one sweep
        # per shape, since N and K differ, vs torch._scaled_mm (cuBLASLt FP8) at the same shape.
        for m, n, k in kFp8Gemms:
            key = f"gemm-fp8-M{m}-N{n}-K{k}"
            sweeps.append(Sweep(key, ("gemm",), (m,),
                                ("--batch", "1", "--gemm-n", str(n), "--gemm-k", str(k),
                                 "--gemm-dtype", "fp8_e4m3")))
            rows.append(Row("gemm", {"m": m, "n": n, "k": k, "gemm_dtype": "fp8_e4m3"},
                            f"fp8_e4m3 M={m} N={n} K={k}", key, m,
                            make_ref("scaled_mm", "torch._scaled_mm", m=m, n=n, k=k),
                            2.0 * m * n * k, "FLOP", "2·M·N·K",
                            Target(0.9, "≥ 0.9× cuBLASLt FP8")))

    if "gelu" in want:
        n = 4 * kGemmDModel
        heads = kGemmDModel // kHeadDim
        for form in ("erf", "tanh"):
            key = f"gelu-{form}"
            sweeps.append(Sweep(key, ("gelu",), kGemmSeqs,
                                ("--batch", "1", "--heads", str(heads), "--kv-heads", str(heads),
                                 "--head-dim", str(kHeadDim), "--gelu-form", form)))
            for m in kGemmSeqs:
                shape = {"rows": m, "cols": n, "gelu_form": form}
                label = f"{form} M={m} N={n}"
                moved = 2.0 * m * n * kElementBytes
                rows.append(Row("gelu", shape, label, key, m, make_ref("copy", "copy", elements=m * n),
                                moved, "byte", "x read + y written: 2·M·N·2",
                                Target(0.92, "≥ 0.92× copy")))
                rows.append(Row("gelu", shape, label, key, m,
                                make_ref("gelu", "F.gelu", rows=m, cols=n, form=form), moved, "byte",
                                "x read + y written: 2·M·N·2", None))

    if "layernorm" in want:
        for d_model in kLayerNormDModels:
            heads = d_model // kHeadDim
            key = f"layernorm-d{d_model}"
            sweeps.append(Sweep(key, ("layernorm",), (kLayerNormRows,),
                                ("--batch", "1", "--heads", str(heads), "--kv-heads", str(heads),
                                 "--head-dim", str(kHeadDim))))
            shape = {"rows": kLayerNormRows, "d_model": d_model}
            label = f"M={kLayerNormRows} d_model={d_model}"
            moved = 2.0 * kLayerNormRows * d_model * kElementBytes + 2.0 * d_model * kElementBytes
            formula = "x read + y written + γ, β read: 2·M·d·2 + 2·d·2"
            target = Target(0.9, "≥ 0.9× copy") if d_model >= 2048 else None
            copied = 2.0 * kLayerNormRows * d_model * kElementBytes
            rows.append(Row("layernorm", shape, label, key, kLayerNormRows,
                            make_ref("copy", "copy", elements=kLayerNormRows * d_model), moved,
                            "byte", formula, target, ref_work=copied))
            rows.append(Row("layernorm", shape, label, key, kLayerNormRows,
                            make_ref("layer_norm", "F.layer_norm", rows=kLayerNormRows,
                                d_model=d_model), moved, "byte", formula, None))

    if "rmsnorm" in want:
        for d_model in kLayerNormDModels:
            heads = d_model // kHeadDim
            key = f"rmsnorm-d{d_model}"
            sweeps.append(Sweep(key, ("rmsnorm",), (kLayerNormRows,),
                                ("--batch", "1", "--heads", str(heads), "--kv-heads", str(heads),
                                 "--head-dim", str(kHeadDim))))
            shape = {"rows": kLayerNormRows, "d_model": d_model}
            label = f"M={kLayerNormRows} d_model={d_model}"
            moved = 2.0 * kLayerNormRows * d_model * kElementBytes + d_model * kElementBytes
            formula = "x read + y written + γ read: 2·M·d·2 + d·2"
            target = Target(0.9, "≥ 0.9× copy") if d_model >= 2048 else None
            copied = 2.0 * kLayerNormRows * d_model * kElementBytes
            rows.append(Row("rmsnorm", shape, label, key, kLayerNormRows,
                            make_ref("copy", "copy", elements=kLayerNormRows * d_model), moved,
                            "byte", formula, target, ref_work=copied))
            rows.append(Row("rmsnorm", shape, label, key, kLayerNormRows,
                            make_ref("rms_norm", "F.rms_norm", rows=kLayerNormRows,
                                     d_model=d_model), moved, "byte", formula, None))

    for op, acts in (("swiglu", ("silu",)), ("geglu", ("erf", "tanh"))):
        if op not in want:
            continue
        d_ff = 4 * kGemmDModel
        heads = kGemmDModel // kHeadDim
        for act in acts:
            form_flags = () if op == "swiglu" else ("--gelu-form", act)
            key = op if op == "swiglu" else f"{op}-{act}"
            sweeps.append(Sweep(key, (op,), kGemmSeqs,
                                ("--batch", "1", "--heads", str(heads), "--kv-heads", str(heads),
                                 "--head-dim", str(kHeadDim)) + form_flags))
            for m in kGemmSeqs:
                shape = {"rows": m, "d_ff": d_ff}
                if op == "geglu":
                    shape["gelu_form"] = act
                label = f"{'' if op == 'swiglu' else act + ' '}M={m} d_ff={d_ff}"
                moved = 3.0 * m * d_ff * kElementBytes
                formula = "gate, up read + y written: 3·M·d_ff·2"
                # The copy moves the same bytes: 1.5·M·d_ff elements each way.
                rows.append(Row(op, shape, label, key, m,
                                make_ref("copy", "copy", elements=3 * m * d_ff // 2), moved,
                                "byte", formula, Target(0.9, "≥ 0.9× copy")))
                rows.append(Row(op, shape, label, key, m,
                                make_ref("gated", "torch act*mul", rows=m, d_ff=d_ff, act=act),
                                moved, "byte", formula, None))

    if "decode_attention" in want:
        d = attention_head_dim
        for kv_heads in kDecodeKvHeads:
            key = f"decode-{'' if d == kHeadDim else f'd{d}-'}hkv{kv_heads}"
            sweeps.append(Sweep(key, ("decode_attention",), kDecodeSeqs,
                                ("--batch", str(kDecodeBatch), "--heads", str(kDecodeHeads),
                                 "--kv-heads", str(kv_heads), "--head-dim", str(d))))
            for seq in kDecodeSeqs:
                shape = {"batch": kDecodeBatch, "heads": kDecodeHeads, "kv_heads": kv_heads,
                         "head_dim": d, "seq_len": seq}
                label = f"B={kDecodeBatch} H={kDecodeHeads} Hkv={kv_heads} L={seq} d={d}"
                kv_bytes = 2.0 * kDecodeBatch * kv_heads * seq * d * kElementBytes
                sdpa = dict(batch=kDecodeBatch, heads=kDecodeHeads, kv_heads=kv_heads, q_len=1,
                            kv_len=seq, head_dim=d, causal=False)
                formula = "real K and V bytes: 2·B·H_kv·L·d·2"
                rows.append(Row("decode_attention", shape, label, key, seq,
                                make_ref("sdpa", "sdpa-cudnn", backend="cudnn", **sdpa), kv_bytes,
                                "byte", formula, Target(0.95, "≥ 0.95× SDPA cuDNN")))
                rows.append(Row("decode_attention", shape, label, key, seq,
                                make_ref("sdpa", "sdpa-flash", backend="flash", **sdpa), kv_bytes,
                                "byte", formula, None))
    return sweeps, rows


# ---- rooflinectl side --------------------------------------------------------------------------


def run_sweep(sweep: Sweep, binary: str, repetitions: int, warmup_runs: int, work_dir: str,
              timeout_s: int) -> dict:
    """Runs one sweep; returns {"command", "exit_code", "wall_s", "report" or None, "error"}."""
    cmd = sweep.command(binary, repetitions, warmup_runs)
    started = time.monotonic()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"command": cmd, "exit_code": None, "wall_s": time.monotonic() - started,
                "report": None, "error": f"rooflinectl sweep timed out after {timeout_s} s"}
    wall_s = time.monotonic() - started
    with open(os.path.join(work_dir, f"sweep-{sweep.key}.stderr.log"), "w") as log:
        log.write(done.stderr)
    result = {"command": cmd, "exit_code": done.returncode, "wall_s": wall_s, "report": None,
              "error": None}
    # Exit 1 means some point was skipped or failed; the report still lists every point.
    if done.returncode in (0, 1):
        try:
            result["report"] = json.loads(done.stdout)
        except json.JSONDecodeError as error:
            result["error"] = f"rooflinectl printed no JSON report ({error})"
        else:
            with open(os.path.join(work_dir, f"sweep-{sweep.key}.json"), "w") as out:
                out.write(done.stdout)
    else:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        result["error"] = f"rooflinectl exited {done.returncode}: {tail[0]}"
    return result


def find_point(report: dict, op: str, seq_len: int) -> Optional[dict]:
    for point in report.get("points", []):
        if point.get("op") == op and point.get("shape", {}).get("seq_len") == seq_len:
            return point
    return None


def ours_measurement(run: Optional[dict], row: Row) -> dict:
    """Our side of a row from its sweep's report: median time, or null with the reason."""
    out = {"name": "rooflinectl", "version": None, "median_s": None, "null_reason": None}
    if run is None:
        out["null_reason"] = "sweep not run"
    elif run["report"] is None:
        out["null_reason"] = run["error"]
    else:
        point = find_point(run["report"], row.operator, row.seq_len)
        if point is None:
            out["null_reason"] = f"no {row.operator} point at seq_len {row.seq_len} in the report"
        else:
            out["version"] = point.get("version")
            timing = point.get("timing") or {}
            if point.get("status") != "ok":
                out["null_reason"] = f"point {point.get('status')}: {point.get('reason')}"
            elif timing.get("median_s") is None:
                out["null_reason"] = "report has no timing.median_s"
            else:
                out["median_s"] = float(timing["median_s"])
                out["samples"] = len(timing.get("samples_s", []))
    return out


# ---- combining -----------------------------------------------------------------------------------


def throughput(work: float, unit: str, median_s: Optional[float]) -> Optional[float]:
    """TFLOP/s for FLOP, TB/s for bytes (10^12 per second); None when there is no time."""
    if median_s is None or median_s <= 0:
        return None
    return work / median_s / 1e12


def throughput_unit(work_unit: str) -> str:
    return "TFLOP/s" if work_unit == "FLOP" else "TB/s"


def finish_row(row: Row) -> dict:
    """The JSON record of a row: both measurements with units, the ratio and whether it meets the
    target (null when either side is missing or the row has no target)."""
    unit = throughput_unit(row.work_unit)
    ours_tp = throughput(row.work, row.work_unit, row.ours.get("median_s"))
    ref_work = row.work if row.ref_work is None else row.ref_work
    ref_tp = throughput(ref_work, row.work_unit, row.ref.get("median_s"))
    ratio = ours_tp / ref_tp if ours_tp is not None and ref_tp is not None else None
    met = None
    if ratio is not None and row.target is not None:
        met = ratio >= row.target.min_ratio
    return {
        "operator": row.operator,
        "shape": dict(row.shape, dtype=kDtype),
        "label": row.label,
        "work": row.work,
        "work_unit": row.work_unit,
        "work_formula": row.work_formula,
        "ours": dict(row.ours, throughput=ours_tp, unit=unit),
        "reference": dict(row.ref, work=ref_work, throughput=ref_tp, unit=unit),
        "ratio": ratio,
        "ratio_definition": "ours throughput / reference throughput: > 1 is faster",
        "target": None if row.target is None else {"min_ratio": row.target.min_ratio,
                                                     "text": row.target.text},
        "met": met,
    }


def fmt_side(side: dict) -> str:
    if side.get("median_s") is None:
        return "null"
    return f"{side['median_s'] * 1e3:.4g} ms {side['throughput']:.4g} {side['unit']}"


def format_table(records: list) -> str:
    header = ("operator", "shape", "ours", "reference", "ratio", "target", "met?")
    lines = []
    for r in records:
        ref_text = f"{r['reference']['name']}: {fmt_side(r['reference'])}"
        lines.append((r["operator"], r["label"], fmt_side(r["ours"]), ref_text,
                      "null" if r["ratio"] is None else f"{r['ratio']:.3f}",
                      "-" if r["target"] is None else r["target"]["text"],
                      "-" if r["met"] is None else ("yes" if r["met"] else "NO")))
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h)
              for i, h in enumerate(header)]
    out = [" | ".join(h.ljust(w) for h, w in zip(header, widths)),
           "-+-".join("-" * w for w in widths)]
    out += [" | ".join(c.ljust(w) for c, w in zip(line, widths)) for line in lines]
    return "\n".join(out)


def format_null_reasons(records: list) -> str:
    """One line per distinct reason a measurement is null, with the rows it applies to."""
    reasons = {}
    for r in records:
        for side in ("ours", "reference"):
            reason = r[side].get("null_reason")
            if r[side].get("median_s") is None and reason:
                key = f"{side} {r['operator']} ({r[side].get('name')}): {reason}"
                reasons.setdefault(key, []).append(r["label"])
    return "\n".join(f"null: {key} [{'; '.join(dict.fromkeys(labels))}]"
                     for key, labels in reasons.items())


# ---- PyTorch side --------------------------------------------------------------------------------


def measure_references(rows: list, repetitions: int, warmup_runs: int) -> tuple:
    """Times every distinct reference once (shared ones, e.g. a copy, are reused) and fills
    row.ref. Returns (environment, ceiling copy record, flush policy)."""
    import bench_reference as br

    timer = br.Timer(repetitions, warmup_runs)
    env = br.environment()
    ceiling = br.time_copy(timer, kCeilingCopyElements)
    ceiling_bytes = 2.0 * kCeilingCopyElements * kElementBytes
    ceiling_rec = {"name": "copy", "note": ceiling.note, "bytes": ceiling_bytes,
                   "median_s": ceiling.median_s, "null_reason": ceiling.null_reason,
                   "bytes_per_s": None if ceiling.median_s is None
                   else ceiling_bytes / ceiling.median_s}
    br.release_memory()

    done = {}
    for row in rows:
        r = row.reference
        if r.key not in done:
            p = dict(r.params)
            if r.kind == "naive_bound":
                bw = ceiling_rec["bytes_per_s"]
                timing = br.RefTiming(
                    name="bound", note=f"{p['sp_bytes']:.4g} B of S and P at the measured copy "
                    "bandwidth", median_s=None if bw is None else p["sp_bytes"] / bw,
                    null_reason=None if bw is not None
                    else f"copy ceiling not measured: {ceiling.null_reason}")
            elif r.kind == "sdpa":
                timing = br.time_sdpa(timer, **p)
            elif r.kind == "matmul":
                timing = br.time_matmul(timer, **p)
            elif r.kind == "scaled_mm":
                timing = br.time_scaled_mm(timer, **p)
            elif r.kind == "gelu":
                timing = br.time_gelu(timer, **p)
            elif r.kind == "layer_norm":
                timing = br.time_layer_norm(timer, **p)
            elif r.kind == "rms_norm":
                timing = br.time_rms_norm(timer, **p)
            elif r.kind == "gated":
                timing = br.time_gated(timer, **p)
            elif r.kind == "copy":
                timing = br.time_copy(timer, **p)
            else:
                raise ValueError(f"unknown reference kind {r.kind}")
            br.release_memory()
            done[r.key] = timing
            status = "null" if timing.median_s is None else f"{timing.median_s * 1e3:.4g} ms"
            print(f"reference {r.label} {p}: {status}", file=sys.stderr, flush=True)
        timing = done[r.key]
        row.ref = {"name": r.label, "kind": r.kind, "call": timing.note,
                   "median_s": timing.median_s,
                   "samples": len(timing.samples_s), "null_reason": timing.null_reason}
    return env, ceiling_rec, timer.flush_policy()


# ---- main ------------------------------------------------------------------------------------------


def parse_args(argv: list) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooflinectl", default="build/release/rooflinectl",
                        help="path of the built binary")
    parser.add_argument("--output", help="write the JSON rows here (atomically)")
    parser.add_argument("--work-dir", default="bench-out",
                        help="folder for each sweep's report and stderr")
    parser.add_argument("--repetitions", type=int, default=10,
                        help="timed samples per point on both sides (default 10)")
    parser.add_argument("--warmup-runs", type=int, default=3,
                        help="untimed calls before the samples, on both sides (rooflinectl's "
                        "sweep --warmup-runs; default 3)")
    parser.add_argument("--ops", default=",".join(kOperators),
                        help="comma-separated subset of: " + ", ".join(kOperators))
    parser.add_argument("--head-dim", type=int, default=kHeadDim,
                        help=f"head_dim of the flash, naive and decode attention rows (default "
                        f"{kHeadDim}; flash and decode attention run 64, 96, 128 and 256)")
    parser.add_argument("--sweep-timeout-s", type=int, default=120,
                        help="limit for one rooflinectl invocation")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the planned sweeps and rows; needs neither torch nor a GPU")
    args = parser.parse_args(argv)
    ops = tuple(op for op in args.ops.split(",") if op)
    unknown = [op for op in ops if op not in kOperators]
    if unknown or not ops:
        parser.error(f"invalid --ops '{args.ops}': allowed {', '.join(kOperators)}")
    if args.repetitions < 1:
        parser.error(f"invalid --repetitions {args.repetitions}: must be >= 1")
    if args.head_dim < 8 or args.head_dim % 8 != 0:
        parser.error(f"invalid --head-dim {args.head_dim}: must be a positive multiple of 8 "
                     "(16-byte rows)")
    if args.warmup_runs < 0:
        parser.error(f"invalid --warmup-runs {args.warmup_runs}: must be >= 0")
    if not args.dry_run and not args.output:
        parser.error("--output is required unless --dry-run")
    args.ops = ops
    return args


def main(argv: list) -> int:
    args = parse_args(argv)
    sweeps, rows = plan(args.ops, args.head_dim)
    if args.dry_run:
        for sweep in sweeps:
            print(" ".join(sweep.command(args.rooflinectl, args.repetitions, args.warmup_runs)))
        for row in rows:
            target = "-" if row.target is None else row.target.text
            print(f"{row.operator} | {row.label} | vs {row.reference.label} "
                  f"{dict(row.reference.params)} | {throughput_unit(row.work_unit)} of "
                  f"{row.work_formula} = {row.work:.6g} | {target}")
        print(f"{len(sweeps)} sweeps, {len(rows)} rows")
        return 0

    os.makedirs(args.work_dir, exist_ok=True)
    started = time.monotonic()
    runs = {}
    for sweep in sweeps:
        run = run_sweep(sweep, args.rooflinectl, args.repetitions, args.warmup_runs,
                        args.work_dir, args.sweep_timeout_s)
        runs[sweep.key] = run
        state = run["error"] or f"exit {run['exit_code']}"
        print(f"sweep {sweep.key}: {state} ({run['wall_s']:.1f} s)", file=sys.stderr, flush=True)
    for row in rows:
        row.ours = ours_measurement(runs.get(row.sweep_key), row)

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    env, ceiling, flush_policy = measure_references(rows, args.repetitions, args.warmup_runs)
    records = [finish_row(row) for row in rows]

    first_report = next((r["report"] for r in runs.values() if r["report"] is not None), None)
    document = {
        "schema": "rooflinectl-bench/1",
        "timestamp_utc": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"),
        "tool": None if first_report is None else first_report.get("tool"),
        "device": None if first_report is None else first_report.get("device"),
        "pytorch": env,
        "method": {
            "dtype": kDtype,
            "attention_head_dim": args.head_dim,
            "repetitions": args.repetitions,
            "warmup_runs_pytorch": args.warmup_runs,
            "warmup_runs_rooflinectl": None if first_report is None
            else first_report.get("config", {}).get("warmup_runs"),
            "statistic": "median of CUDA-event samples, L2 flushed before each sample",
            "l2_flush_pytorch": flush_policy,
            "rooflinectl": "sweep --no-counters (timing only), timing.median_s",
        },
        "copy_ceiling": ceiling,
        "sweeps": [{"key": key, "command": " ".join(run["command"]),
                    "exit_code": run["exit_code"], "wall_s": run["wall_s"],
                    "error": run["error"]} for key, run in runs.items()],
        "wall_s": time.monotonic() - started,
        "rows": records,
    }
    write_json_atomically(args.output, document)

    if ceiling["bytes_per_s"] is not None:
        print(f"copy ceiling ({ceiling['bytes'] / 2**30:.0f} GiB read + written): "
              f"{ceiling['bytes_per_s'] / 1e12:.3f} TB/s")
    print(format_table(records))
    nulls = format_null_reasons(records)
    if nulls:
        print(nulls)
    misses = sum(1 for r in records if r["met"] is False)
    unmeasured = sum(1 for r in records if r["ratio"] is None)
    print(f"{len(records)} rows: {misses} below target, {unmeasured} without a ratio; "
          f"written to {args.output}")
    # Misses are results, not errors; a sweep that produced no report is an error.
    return 1 if any(run["error"] for run in runs.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
