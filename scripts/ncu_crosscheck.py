#!/usr/bin/env python3
"""rooflinectl's counters against Nsight Compute's, point by point.

1. One `rooflinectl sweep` with counters gives our numbers (repetitions 1; N sweeps with
   `--repeats N`). With `--ours-per-point` our side runs as ncu's does, one process per point
   (the points from one sweep without counters), so that both start from the same process
   history and allocations.
2. For every point that ran, a separate process runs the same point under
   `ncu --cache-control all --clock-control none` with counters off, and the last launch of the
   operator's kernels (the timed launch) is taken: the last K kernels that are not the tool's own
   (flush sweep, clock probe, random fill, validation references), K being the kernel count in
   our report. An operator of several kernels (naive attention) is profiled in ncu's range
   replay over the NVTX range rooflinectl puts around each timed launch
   (`--replay-mode range --nvtx --nvtx-include "rooflinectl@<op> L=<L>/"`): ncu then flushes once
   before the operator's kernels, as rooflinectl's byte session does, instead of before each
   kernel, which would send the intermediate S and P through DRAM.
3. Every point outside the tolerances is measured once more under ncu, the same way but with
   `--cache-control none`: ncu then adds no flush of its own, and the kernels start from the L2
   state rooflinectl's own flush leaves before every timed launch (clean lines of its sweep
   buffer), the state our byte session starts from, where `all` starts them from an emptied L2.
   An operator compared as a range runs there under application-range replay
   (`--replay-mode app-range`): range replay's capture, unflushed, shows in the counters.
   The four METRICS fit one pass on GH100 (the byte session holds them and more in one pass,
   docs/counter-method.md), so ncu replays nothing that a missing flush could warm.
   A point within the tolerances there differs from ncu by where L2 starts, not by how the
   bytes are counted (docs/counter-method.md).
4. Prints one Markdown table, a row per point: DRAM read, in-window write, deferred write-back,
   total, ncu's read and write, the ratios, tensor FLOPs ours/ncu, the analytic minimum, and for
   a point outside the tolerances its verdict from our L2 state; then the count of points within
   the tolerances and a note for every point measured in fewer of our runs than the others.

With `--repeats N` (N > 1) both sides are measured N times: N sweeps of ours, and N timed
launches of the point in its one ncu process (each flushed by `--cache-control all`); an
operator compared as a range gets N ncu processes of one launch each, because ncu's range replay
of the second and third range in one process measured only 57-76% of the first range's tensor
FLOPs and reads at naive attention L >= 8192 (cuBLAS GEMMs; H100, 2026-12-07), while the first
range matched our count exactly. The table then compares the medians and shows each side's
run-to-run spread (max - min); a point outside the tolerances is also checked against ncu's own
spread: our median read (write) within
[ncu's lowest - tolerance, ncu's highest + tolerance] means ncu disagrees with itself by as much
as it disagrees with us.

A run saves in its --work DIR, and `--parse-only DIR` reads back:
  crosscheck.json             {"repeats": N, "ops": LIST, "seq": SPEC, "ours_per_point": B}
  ours-1.json ... ours-N.json our sweep reports, one per run (with --ours-per-point joined
                              from ours-N-OP-L.json, one per point, listed in points.json)
  ncu-OP-L.csv                ncu's `--csv --page raw` log of point (OP, L): N timed launches,
                              or for an operator compared as a range its first launch, the others
                              in ncu-OP-L-r2.csv ... ncu-OP-L-rN.csv
  ncu-none-OP-L.csv ...       the same under `--cache-control none`, for the points outside the
                              tolerances under `all`
  no-warmup.json, one-launch.json   the sweep configs the ncu processes ran with
An ncu log gets its name only once its ncu process has ended (OP-L.csv.part until then), so
`--resume` after a run cut short (a time limit, a lost machine) measures only what is missing:
it keeps the logs and the whole reports (none of whose points is "interrupted") and runs the
rest. Without --resume, or with nothing saved in --work, a run first deletes the reports and
logs of these names an earlier run left.

Usage: scripts/ncu-crosscheck.sh [--binary PATH] [--ops LIST] [--seq SPEC] [--repeats N]
       [--output FILE.md] [--work DIR] [--ours-per-point] [--resume]; or --parse-only DIR
       [--output FILE.md] (no GPU needed: what the CPU test exercises). Exit 0 when every point
       is within the tolerances, 1 when not, 2 for bad input (a missing or incomplete DIR, an
       --output folder that does not exist), 3 when the GPU run cannot be made (ncu missing,
       the sweep refused: no GPU or no counters); errors are one "error:" line on stderr.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

METRICS = [
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
]
# Kernels rooflinectl runs around the operator's own; never part of a measured launch.
TOOL_KERNELS = ("read_sweep_kernel", "clock_probe_kernel", "fill_uniform_kernel",
                "reference_attention_kernel", "gather_rows_kernel")
READ_TOLERANCE = 0.01
WRITE_TOLERANCE = 0.02
WRITE_ABS_TOLERANCE_BYTES = 0.5e6
MB = 1e6


def parse_number(text):
    """ncu's CSV prints numbers with thousands separators; 'n/a' and '' are None."""
    text = text.strip().replace(",", "")
    if text in ("", "n/a", "N/A"):
        return None
    return float(text)


def parse_ncu_csv(text):
    """The kernel rows of `ncu --csv --page raw` output: [{'name', metric: value, ...}]."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    header = next(reader)
    rows = []
    for fields in reader:
        if len(fields) != len(header) or not fields[0].strip().isdigit():
            continue  # the units row, or a stray log line
        row = dict(zip(header, fields))
        kernel = {"name": row.get("Kernel Name", "")}
        for metric in METRICS:
            kernel[metric] = parse_number(row[metric]) if metric in row else None
        rows.append(kernel)
    return rows


def uses_range_replay(point):
    """Operators of several kernels are compared as one range (see the module docstring)."""
    return len(point["counters"]["kernels"]) > 1


def nvtx_range(point):
    """The NVTX range rooflinectl's timed pass marks around each launch of `point`."""
    return f"{point['op']} L={point['shape']['seq_len']}"


def timed_launch(kernels, count):
    """The last `count` kernels that are not the tool's own: the timed launch."""
    launches = timed_launches(kernels, count, 1)
    return launches[0] if launches else None


def timed_launches(kernels, count, repeats):
    """The last `repeats` launches of `count` operator kernels each (the tool's own kernels
    skipped), oldest first; None when ncu saw fewer."""
    own = [k for k in kernels if not any(tool in k["name"] for tool in TOOL_KERNELS)]
    if not count or len(own) < count * repeats:
        return None
    tail = own[len(own) - count * repeats:]
    return [tail[i * count:(i + 1) * count] for i in range(repeats)]


def total(kernels, metric):
    values = [k[metric] for k in kernels]
    return None if any(v is None for v in values) else sum(values)


def ratio(a, b):
    if a is None or b is None:
        return None
    if b == 0:
        return 1.0 if a == 0 else None
    return a / b


def fmt_ratio(r):
    return "n/a" if r is None else f"{r:.4f}"


def fmt_mb(v):
    return "null" if v is None else f"{v / MB:.2f}"


def median(values):
    """The median of `values`, None when any is None (unmeasured stays unmeasured)."""
    return None if not values or any(v is None for v in values) else statistics.median(values)


def spread(values):
    """max - min of `values`, None when any is None."""
    return None if not values or any(v is None for v in values) else max(values) - min(values)


def our_figures(point):
    """Our counted figures of one run of `point`: read, in-window write, write-back, tensor."""
    c = point["counters"]
    t = c["total"]
    return {"read": t["dram_read_bytes"], "write": t["dram_write_bytes"],
            "writeback": c.get("dram_writeback_bytes"), "tensor": t["tensor_bf16_flop"]}


def within(value, reference, relative, absolute=0.0):
    """|value - reference| within max(relative * reference, absolute)."""
    return (value is not None and reference is not None
            and abs(value - reference) <= max(relative * reference, absolute))


def within_range(value, low, high, relative, absolute=0.0):
    """`value` inside [low, high] widened by the tolerance on each side."""
    return (value is not None and low is not None and high is not None
            and low - max(relative * low, absolute) <= value
            <= high + max(relative * high, absolute))


def row_for(runs, ncu_kernels, repeats=1):
    """One comparison: our counters of a point (`runs`: the point's entry in each of our
    reports, or one entry) against the ncu rows of its last `repeats` timed launches."""
    runs = runs if isinstance(runs, list) else [runs]
    point = runs[0]
    ours = [our_figures(p) for p in runs]
    count = len(point["counters"]["kernels"])
    if uses_range_replay(point):  # one result per launch: the whole range
        launches = ([[k] for k in ncu_kernels[-repeats:]]
                    if len(ncu_kernels) >= repeats else None)
    else:
        launches = timed_launches(ncu_kernels, count, repeats)
    r = {"op": point["op"], "seq_len": point["shape"]["seq_len"], "runs": len(runs),
         "repeats": repeats, "min": point["analytic"]["min_dram_bytes"], "kernels": count}
    for key in ("read", "write", "writeback"):
        r[key] = median([o[key] for o in ours])
        r[key + "_spread"] = spread([o[key] for o in ours])
    tensors = [o["tensor"] for o in ours]
    r["tensor"] = tensors[0] if len(set(tensors)) == 1 else None
    r["total"] = None if None in (r["read"], r["write"], r["writeback"]) else (
        r["read"] + r["write"] + r["writeback"])
    if launches is None:
        r["ncu_read"] = r["ncu_write"] = r["ncu_tensor"] = None
        r["ncu_read_spread"] = r["ncu_write_spread"] = None
        r["ok"] = r["ok_spread"] = False
        r["why"] = ("ncu returned fewer than {} range results".format(repeats)
                    if uses_range_replay(point)
                    else f"ncu saw fewer than {count * repeats} operator kernels")
        return r
    ncu_reads = [total(launch, "dram__bytes_read.sum") for launch in launches]
    ncu_writes = [total(launch, "dram__bytes_write.sum") for launch in launches]
    ncu_tensors = [total(launch, "sm__ops_path_tensor_src_bf16_dst_fp32.sum")
                   for launch in launches]
    r["ncu_read"], r["ncu_read_spread"] = median(ncu_reads), spread(ncu_reads)
    r["ncu_write"], r["ncu_write_spread"] = median(ncu_writes), spread(ncu_writes)
    r["ncu_tensor"] = ncu_tensors[0] if len(set(ncu_tensors)) == 1 else None
    read_ok = within(r["read"], r["ncu_read"], READ_TOLERANCE)
    write_ok = within(r["write"], r["ncu_write"], WRITE_TOLERANCE, WRITE_ABS_TOLERANCE_BYTES)
    tensor_ok = r["tensor"] is not None and r["tensor"] == r["ncu_tensor"]
    r["ok"] = read_ok and write_ok and tensor_ok
    r["why"] = ", ".join(name for name, ok in (("read", read_ok), ("write", write_ok),
                                                ("tensor", tensor_ok)) if not ok)
    known = None not in ncu_reads + ncu_writes
    r["ok_spread"] = r["ok"] or (
        known and tensor_ok
        and within_range(r["read"], min(ncu_reads), max(ncu_reads), READ_TOLERANCE)
        and within_range(r["write"], min(ncu_writes), max(ncu_writes), WRITE_TOLERANCE,
                         WRITE_ABS_TOLERANCE_BYTES))
    return r


def fmt_spread_pct(value, reference):
    return "n/a" if value is None or not reference else f"{100 * value / reference:.2f}%"


def table(rows):
    repeats = max((r["repeats"] for r in rows), default=1)
    runs = max((r["runs"] for r in rows), default=1)
    several = repeats > 1 or runs > 1
    head = ("| op | L | ours read | ours write (window) | write-back | ours total | ncu read | "
            "ncu write | read ours/ncu | write ours-ncu MB | tensor ours/ncu | total / analytic "
            "min |")
    rule = "|---|---|---|---|---|---|---|---|---|---|---|---|"
    if several:
        head += (" ours read spread | ncu read spread | ours write spread MB | ncu write "
                 "spread MB | within ncu's own spread |")
        rule += "---|---|---|---|---|"
    same_state = any("same_state" in r for r in rows)
    if same_state:
        head += " from our L2 state (ncu --cache-control none): read ours/ncu, write ours-ncu MB |"
        rule += "---|"
    out = [head + " within tolerance |", rule + "---|"]
    for r in rows:
        diff = (None if r["write"] is None or r["ncu_write"] is None
                else (r["write"] - r["ncu_write"]) / MB)
        cells = [r["op"], r["seq_len"], fmt_mb(r["read"]), fmt_mb(r["write"]),
                 fmt_mb(r["writeback"]), fmt_mb(r["total"]), fmt_mb(r["ncu_read"]),
                 fmt_mb(r["ncu_write"]), fmt_ratio(ratio(r["read"], r["ncu_read"])),
                 "n/a" if diff is None else f"{diff:+.2f}",
                 fmt_ratio(ratio(r["tensor"], r["ncu_tensor"])),
                 fmt_ratio(ratio(r["total"], r["min"]))]
        if several:
            cells += [fmt_spread_pct(r["read_spread"], r["read"]),
                      fmt_spread_pct(r["ncu_read_spread"], r["ncu_read"]),
                      fmt_mb(r["write_spread"]), fmt_mb(r["ncu_write_spread"]),
                      "yes" if r["ok_spread"] else "no"]
        if same_state:
            cells.append(fmt_same_state(r.get("same_state")))
        cells.append("yes" if r["ok"] else "NO: " + r["why"])
        out.append("| " + " | ".join(str(c) for c in cells) + " |")
    good = sum(r["ok"] for r in rows)
    out.append("")
    basis = (f"medians of {runs} runs of ours and {repeats} ncu launches per point; "
             if several else "")
    out.append(f"{good}/{len(rows)} points within tolerance ({basis}read {READ_TOLERANCE:.0%}, "
               f"in-window write {WRITE_TOLERANCE:.0%} or {WRITE_ABS_TOLERANCE_BYTES / MB} MB, "
               "tensor FLOPs exact). MB = 10^6 bytes.")
    if same_state:
        outside = [r for r in rows if not r["ok"]]
        agree = sum(r.get("same_state", {}).get("ok", False) for r in outside)
        checked = sum("same_state" in r for r in outside)
        out.append(f"{agree} of the {len(outside)} points outside the tolerances are within them "
                   f"against ncu started from the L2 state our flush leaves ({checked} measured "
                   "with --cache-control none: no flush of ncu's own).")
    if several:
        explained = sum(r["ok_spread"] for r in rows)
        out.append(f"{explained}/{len(rows)} points within tolerance of the range ncu itself "
                   "spans over its launches (spread = highest - lowest).")
    return "\n".join(out)


def fmt_same_state(row):
    """The table cell of a point's comparison against ncu under `--cache-control none`: empty
    when there is none (the point was within the tolerances), else the verdict and the read
    ratio and write difference."""
    if row is None:
        return ""
    diff = (None if row["write"] is None or row["ncu_write"] is None
            else f"{(row['write'] - row['ncu_write']) / MB:+.2f}")
    figures = f"{fmt_ratio(ratio(row['read'], row['ncu_read']))}, {diff or 'n/a'}"
    return f"yes ({figures})" if row["ok"] else f"NO: {row['why']} ({figures})"


def ncu_file(work, point, cache_control="all"):
    """ncu-OP-L.csv for `--cache-control all`, ncu-none-OP-L.csv for `none`."""
    prefix = "ncu" if cache_control == "all" else f"ncu-{cache_control}"
    return os.path.join(work, f"{prefix}-{point['op']}-{point['shape']['seq_len']}.csv")


def ncu_files(work, point, repeats, cache_control="all"):
    """The ncu logs of `point` under `cache_control`: one file, or for an operator compared as a
    range one file per launch (ncu-OP-L.csv, then ncu-OP-L-r2.csv, ...)."""
    first = ncu_file(work, point, cache_control)
    if not uses_range_replay(point):
        return [first]
    return [first] + [first[:-len(".csv")] + f"-r{i}.csv" for i in range(2, repeats + 1)]


def ok_points(report):
    return [p for p in report["points"] if p["status"] == "ok" and p["counters"]["kernels"]]


def point_key(point):
    return (point["op"], point["shape"]["seq_len"])


class CrosscheckError(Exception):
    """A run that cannot go on: the message for the one error line, and the exit code (2 bad
    input, 3 environment)."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


def our_report_files(work):
    """Our reports in `work`: ours-1.json, ours-2.json, ... in run order (other names ignored)."""
    numbered = []
    for name in os.listdir(work):
        match = re.fullmatch(r"ours-([1-9][0-9]*)\.json", name)
        if match:
            numbered.append((int(match.group(1)), os.path.join(work, name)))
    return [path for _, path in sorted(numbered)]


# The names of the files a run saves (the module docstring lists them), with their .tmp and
# .part forms while being written.
SAVED_FILE = re.compile(r"ours-[1-9][0-9]*(-[a-z0-9_]+-[1-9][0-9]*)?\.json(\.tmp)?|points\.json"
                        r"|ncu-(none-)?[a-z0-9_]+-[1-9][0-9]*(-r[1-9][0-9]*)?\.csv(\.part)?")
OPTION_OF_SETTING = {"repeats": "--repeats", "ops": "--ops", "seq": "--seq",
                     "ours_per_point": "--ours-per-point"}


def write_atomically(path, text):
    """Writes `text` to `path` through a temporary file and a rename: never half a file."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def run_sweep(command, output):
    """Runs one of our sweeps, whose report goes to `output`; a refusal (exit 2, 3 or 4) stops
    the cross-check with the sweep's own error line, and so does any other exit but 0 and 1 (an
    interrupted sweep: 130) or a missing report. Exit 1 (a point skipped or failed) is a report
    to compare still."""
    print("+", " ".join(command), file=sys.stderr, flush=True)
    try:
        done = subprocess.run(command, check=False, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise CrosscheckError(f"cannot run {command[0]}: {e.strerror} (build it first, or pass "
                              "--binary)", 2)
    if done.returncode in (2, 3, 4):
        lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        why = lines[-1][len("error:"):].strip() if lines else f"exit {done.returncode}"
        raise CrosscheckError(f"our sweep was refused (exit {done.returncode}): {why}",
                              2 if done.returncode == 2 else 3)
    if done.returncode not in (0, 1) or not os.path.isfile(output):
        raise CrosscheckError(f"our sweep exited {done.returncode} "
                              f"{'and' if os.path.isfile(output) else 'without'} writing "
                              f"'{output}': run the cross-check again (--resume keeps what is "
                              "done)", 3)
    sys.stderr.write(done.stderr)


def finished_report(path):
    """Whether `path` holds a whole report of ours: JSON with a list of points, none of them
    interrupted (a sweep stopped by a signal writes the rest as "interrupted")."""
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return False
    return (isinstance(report, dict) and isinstance(report.get("points"), list)
            and all(isinstance(p, dict) and p.get("status") != "interrupted"
                    for p in report["points"]))


def run(args):
    if shutil.which(args.ncu) is None:
        raise CrosscheckError(f"'{args.ncu}' not found: the cross-check needs Nsight Compute's ncu "
                              "on PATH (or --ncu PATH) and a GPU; --parse-only DIR needs neither",
                              3)
    if shutil.which(args.binary) is None:
        raise CrosscheckError(f"cannot run '{args.binary}': not an executable file (build it "
                              "first, or pass --binary)", 2)
    settings = {"repeats": args.repeats, "ops": args.ops, "seq": args.seq,
                "ours_per_point": args.ours_per_point}
    settings_path = os.path.join(args.work, "crosscheck.json")
    try:
        os.makedirs(args.work, exist_ok=True)
        keep = args.resume and os.path.exists(settings_path)
        if keep:
            check_resumable(settings_path, settings)
        else:
            if args.resume:
                print(f"note: nothing to resume in '{args.work}' (no crosscheck.json): a new run",
                      file=sys.stderr)
            for name in os.listdir(args.work):
                path = os.path.join(args.work, name)
                if SAVED_FILE.fullmatch(name) and os.path.isfile(path):
                    os.remove(path)
        write_atomically(settings_path, json.dumps(settings))
        config = os.path.join(args.work, "no-warmup.json")
        write_atomically(config, json.dumps({"warmup_runs": 0, "repetitions": args.repeats}))
        single = os.path.join(args.work, "one-launch.json")
        write_atomically(single, json.dumps({"warmup_runs": 0, "repetitions": 1}))
    except OSError as e:
        raise CrosscheckError(f"--work '{args.work}': {e.strerror or e}", 2)
    listing = None
    for run_index in range(1, args.repeats + 1):
        ours = os.path.join(args.work, f"ours-{run_index}.json")
        if keep and finished_report(ours):
            continue
        if args.ours_per_point:
            listing = listing or sweep_points(args, keep)
            run_per_point(args, listing, run_index, ours, keep)
        else:
            run_sweep(our_sweep(args, args.ops, args.seq, ours), ours)
    with open(our_report_files(args.work)[0]) as f:
        points = ok_points(json.load(f))
    for point in points:
        run_ncu(args, point, "all", single, config, keep)
    rows, _ = rows_from(args.work)
    outside = {(r["op"], r["seq_len"]) for r in rows if not r["ok"]}
    for point in points:
        if point_key(point) in outside:
            run_ncu(args, point, "none", single, config, keep)


def our_sweep(args, ops, seq, output, counters=True):
    """The command of one of our sweeps, one timed launch per point, with counters or not."""
    return [args.binary, "sweep", "--ops", ops, "--seq", seq, "--repetitions", "1",
            "--require-counters" if counters else "--no-counters", "--output", output]


def sweep_points(args, keep):
    """The report of one sweep of --ops and --seq without counters (rooflinectl parses --seq),
    saved as points.json and kept when `keep` and whole: its ok points are the ones run one
    process each."""
    listing = os.path.join(args.work, "points.json")
    if not (keep and finished_report(listing)):
        run_sweep(our_sweep(args, args.ops, args.seq, listing, counters=False), listing)
    with open(listing) as f:
        return json.load(f)


def run_per_point(args, listing, run_index, ours, keep):
    """Run `run_index` of ours as one process per ok point of `listing`, as ncu's side runs (a
    point's DRAM reads can depend on what else the process ran and allocated: gemm L = 2048 read
    49.4-49.5 MB alone and 51.0 MB in the default sweep; H100, 2026-12-07), joined into `ours`
    under the listing's header. Parts whole from a run cut short are kept when `keep`."""
    points = []
    for point in listing["points"]:
        if point.get("status") != "ok":
            continue
        op, seq_len = point_key(point)
        part = os.path.join(args.work, f"ours-{run_index}-{op}-{seq_len}.json")
        if not (keep and finished_report(part)):
            run_sweep(our_sweep(args, op, str(seq_len), part), part)
        if not finished_report(part):
            raise CrosscheckError(f"our report '{part}' is not a whole sweep report", 3)
        with open(part) as f:
            points += json.load(f)["points"]
    write_atomically(ours, json.dumps(dict(listing, points=points)))


def check_resumable(settings_path, settings):
    """CrosscheckError (exit 2) unless the saved run's crosscheck.json at `settings_path` was
    written for the same `settings` (--repeats, --ops, --seq, --ours-per-point)."""
    try:
        with open(settings_path) as f:
            saved = json.load(f)
    except (OSError, ValueError) as e:
        raise CrosscheckError(f"--resume: cannot read '{settings_path}': {e}", 2)
    if not isinstance(saved, dict):
        raise CrosscheckError(f"--resume: '{settings_path}' is not what a run saves", 2)
    differ = [key for key, value in settings.items() if saved.get(key) != value]
    if differ:
        was = ", ".join(setting_text(key, saved.get(key)) for key in differ)
        now = ", ".join(setting_text(key, settings[key]) for key in differ)
        raise CrosscheckError(f"--resume: '{settings_path}' is of a run with {was}, not {now}: "
                              "give the same --repeats, --ops, --seq and --ours-per-point, or "
                              "another --work", 2)


def setting_text(key, value):
    """A saved setting as the option that gives it: "--seq 512,1024", "no --ours-per-point"."""
    option = OPTION_OF_SETTING[key]
    if value is None:
        return f"no {option} recorded"
    if isinstance(value, bool):
        return option if value else f"no {option}"
    return f"{option} {value}"


def run_ncu(args, point, cache_control, single, config, keep):
    """ncu over `point` (one process, or one per launch for an operator compared as a range)
    with `--cache-control cache_control`, logs where ncu_files names them; a log already there
    is kept when `keep`. A log is named only once its ncu has ended, whatever its exit."""
    ranged = uses_range_replay(point)
    # Without ncu's flush, range replay's capture of the range shows in its counters (naive
    # attention L = 512 read a quarter of its inputs from DRAM and wrote 8.4 MB in its window;
    # H100, 2026-12-07): from our L2 state a range runs under application-range replay, which
    # captures nothing and, with one pass, runs the process once.
    mode = "range" if cache_control == "all" else "app-range"
    replay = (["--replay-mode", mode, "--nvtx", "--nvtx-include",
               f"rooflinectl@{nvtx_range(point)}/"] if ranged else [])
    for log in ncu_files(args.work, point, args.repeats, cache_control):
        if keep and os.path.exists(log):
            continue
        partial = log + ".part"
        if os.path.exists(partial):
            os.remove(partial)
        cmd = [args.ncu, "--cache-control", cache_control, "--clock-control", "none", *replay,
               "--csv", "--page", "raw", "--metrics", ",".join(METRICS), "--log-file", partial,
               args.binary, "sweep", "--config", single if ranged else config, "--ops",
               point["op"], "--seq", str(point["shape"]["seq_len"]), "--no-counters",
               "--format", "json"]
        print("+", " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)
        if os.path.exists(partial):
            os.replace(partial, log)


def read_saved_run(work):
    """The repeats and our reports of the run saved in `work`; CrosscheckError (exit 2) when the
    folder or its crosscheck.json or ours-N.json files are missing or unreadable."""
    if not os.path.isdir(work):
        raise CrosscheckError(f"'{work}' is not a folder of a saved cross-check run", 2)
    settings = os.path.join(work, "crosscheck.json")
    try:
        with open(settings) as f:
            repeats = json.load(f)["repeats"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CrosscheckError(f"'{settings}' does not give the run's repeats ({e}): the folder "
                              "must hold what a run saves (see --help)", 2)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 1:
        raise CrosscheckError(f"'{settings}': repeats {repeats!r} is not a count of at least 1",
                              2)
    paths = our_report_files(work)
    if not paths:
        raise CrosscheckError(f"'{work}' holds no ours-1.json: the folder must hold what a run "
                              "saves (see --help)", 2)
    reports = []
    for path in paths:
        try:
            with open(path) as f:
                reports.append(json.load(f))
        except (OSError, ValueError) as e:
            raise CrosscheckError(f"cannot read our report '{path}': {e}", 2)
    return repeats, reports


def rows_from(work):
    """The comparison rows from the files a run saved in `work`, and notes on what they lack: a
    row per point ok in any of our reports (first-seen order), with its entries in each report
    that has it ok; a note where that is fewer than the others, and where the reports are fewer
    than the repeats. A row outside the tolerances whose `--cache-control none` logs exist gets
    `same_state`: the same comparison against those."""
    repeats, documents = read_saved_run(work)
    reports = [{point_key(p): p for p in ok_points(d)} for d in documents]
    notes = []
    if len(reports) != repeats:
        notes.append(f"{len(reports)} of our reports for {repeats} repeats: our medians are of "
                     f"{len(reports)} runs")
    keys = []
    for report in reports:
        keys += [key for key in report if key not in keys]
    rows = []
    for key in keys:
        runs = [report[key] for report in reports if key in report]
        if len(runs) < len(reports):
            notes.append(f"{key[0]} L = {key[1]}: ok in {len(runs)} of our {len(reports)} runs, "
                         f"its medians are of {len(runs)}")
        row = row_for(runs, ncu_kernels(work, runs[0], repeats, "all"), repeats)
        if not row["ok"] and any(os.path.exists(p)
                                 for p in ncu_files(work, runs[0], repeats, "none")):
            row["same_state"] = row_for(runs, ncu_kernels(work, runs[0], repeats, "none"),
                                        repeats)
        rows.append(row)
    return rows, notes


def ncu_kernels(work, point, repeats, cache_control):
    """The kernel rows of every ncu log of `point` under `cache_control` that exists."""
    kernels = []
    for path in ncu_files(work, point, repeats, cache_control):
        if os.path.exists(path):
            with open(path) as f:
                kernels += parse_ncu_csv(f.read())
    return kernels


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a count of at least 1")
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="build/release/rooflinectl")
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--ops", default="naive_attention,flash_attention,gemm,gelu,layernorm,"
                        "decode_attention")
    parser.add_argument("--seq", default="512..32768")
    parser.add_argument("--repeats", type=positive_int,
                        help="runs of ours and ncu launches per point, medians compared "
                        "(default 1; a saved run's own count with --parse-only)")
    parser.add_argument("--work", default="ncu-crosscheck-out")
    parser.add_argument("--ours-per-point", action="store_true",
                        help="run our side as one process per point, as ncu's side runs, "
                        "instead of one sweep per repeat")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the run saved in --work (same --repeats, --ops, --seq "
                        "and --ours-per-point): keep its whole reports and its ncu logs, "
                        "measure only what is missing")
    parser.add_argument("--output", help="write the Markdown table here too")
    parser.add_argument("--parse-only", metavar="DIR",
                        help="rebuild the table from the files a run saved in DIR")
    args = parser.parse_args()
    try:
        if args.output and not os.path.isdir(os.path.dirname(os.path.abspath(args.output))):
            raise CrosscheckError(f"--output '{args.output}': its folder does not exist", 2)
        if args.parse_only is not None:
            if args.repeats is not None:
                raise CrosscheckError("--repeats with --parse-only: the saved run's "
                                      "crosscheck.json gives its repeats", 2)
            for given, option in ((args.resume, "--resume"),
                                  (args.ours_per_point, "--ours-per-point")):
                if given:
                    raise CrosscheckError(f"{option} with --parse-only: {option} directs a GPU "
                                          "run, --parse-only only reads one", 2)
            args.work = args.parse_only
        else:
            args.repeats = args.repeats or 1
            run(args)
        rows, notes = rows_from(args.work)
    except CrosscheckError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    text = table(rows) + "".join(f"\nNote: {note}." for note in notes)
    print(text)
    if args.output:
        write_atomically(args.output, text + "\n")
    return 0 if rows and all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
