#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz, clang++ with ASan + UBSan) in build/fuzz and runs
# each for FUZZ_SECONDS (default 30: the CI smoke run; the issue's soak is 600) on a scratch copy
# of its seed corpus, so new inputs do not pile up in the repository. A crash, leak or sanitizer
# report stops that harness, leaves the input in $FUZZ_OUT (default build/fuzz/findings) and makes
# the script exit 1. Needs clang and libclang-rt-14-dev (Debian 12). Usage: scripts/fuzz.sh
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-30}"
findings="${FUZZ_OUT:-build/fuzz/findings}"
harnesses=(seq_spec sweep_config report_reader)

cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DRFL_BUILD_FUZZERS=ON -DRFL_BUILD_TESTS=OFF >build/fuzz-configure.log 2>&1 ||
  { tail -20 build/fuzz-configure.log; exit 1; }
cmake --build build/fuzz --target "${harnesses[@]/#/fuzz_}" || exit 1

mkdir -p "$findings"
status=0
for harness in "${harnesses[@]}"; do
  corpus="$(mktemp -d)"
  cp tests/fuzz/corpus/"$harness"/* "$corpus"/
  log="$findings/$harness.log"
  build/fuzz/tests/fuzz/fuzz_"$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/$harness-" "$corpus" >"$log" 2>&1
  code=$?
  runs=$(grep -Eo '^Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+')
  if [[ $code -eq 0 ]]; then
    echo "fuzz_$harness: ${runs:-?} runs in ${seconds}s, no crash"
  else
    echo "fuzz_$harness: FAILED (exit $code), see $log:"
    grep -E 'SUMMARY|ERROR|what\(\)' "$log" | head -5
    status=1
  fi
  rm -rf "$corpus"
done
exit $status
