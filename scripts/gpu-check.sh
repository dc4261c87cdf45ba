#!/usr/bin/env bash
# Builds rooflinectl on a GPU machine, runs the GPU tests and a sweep, and copies logs and the
# report to $OUT_DIR (default: ./gpu-check-out). Usage: scripts/gpu-check.sh [SWEEP ARGS...]
# Extra CMake arguments can be passed in RFL_CMAKE_ARGS (e.g. -DRFL_GTEST_SOURCE_DIR=...).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT_DIR:-gpu-check-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/nvidia-smi.txt"
cmake --preset release ${RFL_CMAKE_ARGS:-} >"$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
cmake --build --preset release >"$out/build.log" 2>&1 || { grep -B2 -A8 -m5 error "$out/build.log"; exit 1; }
echo "build ok"
ctest --preset gpu 2>&1 | tee "$out/ctest-gpu.log" | grep -E "tests passed|Failed|\*\*\*|Passed" 
build/release/rooflinectl devices | tee "$out/devices.txt"
if [[ $# -gt 0 ]]; then
  timeout "${SWEEP_TIMEOUT_S:-3600}" build/release/rooflinectl sweep "$@" --output "$out/report.json" 2>"$out/sweep-stderr.log" | tee "$out/sweep-table.txt"
  echo "sweep exit code ${PIPESTATUS[0]}"
  tail -5 "$out/sweep-stderr.log"
fi
