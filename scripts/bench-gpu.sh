#!/usr/bin/env bash
# The side-by-side benchmark on a GPU machine: builds rooflinectl (release preset, the
# binary only), then scripts/bench_gpu.py runs every operator at the benchmark shapes through
# `rooflinectl sweep --no-counters` and times the PyTorch/cuBLAS/cuDNN references and a
# device-to-device copy in the same run. Prints one table and writes the rows as JSON.
#
# Usage: scripts/bench-gpu.sh OUTPUT.json [bench_gpu.py options: --repetitions N, --ops a,b,
# --head-dim D, ...]
# Needs python3 (or $PYTHON) with a CUDA build of torch on the GPU machine; no network, no pip.
# Logs, each sweep's report and stderr go to $OUT_DIR (default ./bench-out).
# Extra CMake arguments can be passed in RFL_CMAKE_ARGS. A benchmark: never run it from CI.
set -uo pipefail
if [[ $# -lt 1 || $1 == -* ]]; then
  echo "usage: scripts/bench-gpu.sh OUTPUT.json [--repetitions N] [--ops op1,op2] [--head-dim D]" >&2
  echo "(the plan without a GPU: python3 scripts/bench_gpu.py --dry-run)" >&2
  exit 2
fi
output=$(realpath -m "$1")
shift
cd "$(dirname "$0")/.." || exit 1
work=$(realpath -m "${OUT_DIR:-bench-out}")
mkdir -p "$work" "$(dirname "$output")"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv \
  | tee "$work/nvidia-smi.txt"
started=$SECONDS
read -ra cmake_args <<<"${RFL_CMAKE_ARGS:-}"
cmake --preset release "${cmake_args[@]}" >"$work/configure.log" 2>&1 \
  || { tail -40 "$work/configure.log"; exit 1; }
cmake --build --preset release --target rooflinectl >"$work/build.log" 2>&1 \
  || { grep -B2 -A8 -m5 error "$work/build.log"; exit 1; }
echo "build ok ($((SECONDS - started)) s)"

"${PYTHON:-python3}" scripts/bench_gpu.py --rooflinectl build/release/rooflinectl --work-dir "$work" \
  --output "$output" "$@" 2> >(tee "$work/bench-stderr.log" >&2) | tee "$work/bench-table.txt"
status=${PIPESTATUS[0]}
echo "benchmark exit code $status ($((SECONDS - started)) s in all)"
exit "$status"
