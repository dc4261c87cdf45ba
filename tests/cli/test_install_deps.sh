#!/usr/bin/env bash
# Checks of scripts/install-deps.sh that install nothing: a missing, too old or CUPTI-less
# toolkit fails with one line and exit 3; --check lists missing packages without calling apt-get;
# an unknown option exits 2. Fake nvcc, dpkg-query and apt-get stand in on PATH.
# Usage: test_install_deps.sh SCRIPT
set -u
script="$1"
source "$(dirname "$0")/harness.sh"

# check_command WANT_CODE STDERR_PATTERN STDOUT_PATTERN -- COMMAND...: run COMMAND, check its
# exit code, that stderr has at most one line matching STDERR_PATTERN and stdout matches
# STDOUT_PATTERN ("" = anything).
check_command() {
  local want="$1" err_pattern="$2" out_pattern="$3"
  shift 4
  "$@" >"$work/stdout" 2>"$work/stderr"
  local got=$?
  local err_lines
  err_lines=$(wc -l <"$work/stderr")
  if [[ $got -ne $want ]] || ((err_lines > 1)) ||
     { [[ -n $err_pattern ]] && ! grep -q -- "$err_pattern" "$work/stderr"; } ||
     { [[ -n $out_pattern ]] && ! grep -q -- "$out_pattern" "$work/stdout"; }; then
    fail "$* -> exit $got (want $want), $err_lines stderr lines
  stdout: $(head -c 400 "$work/stdout")
  stderr: $(head -c 400 "$work/stderr")"
  else
    pass
  fi
}

# A fake toolkit: bin/nvcc printing RELEASE, include/cupti.h unless NO_CUPTI.
make_toolkit() {
  local dir="$1" release="$2" cupti="$3"
  mkdir -p "$dir/bin" "$dir/include"
  printf '#!/bin/sh\necho "Cuda compilation tools, release %s, V%s.0"\n' "$release" "$release" \
    >"$dir/bin/nvcc"
  chmod +x "$dir/bin/nvcc"
  [[ $cupti == cupti ]] && touch "$dir/include/cupti.h"
  return 0
}
make_toolkit "$work/cuda13" 13.0 cupti
make_toolkit "$work/cuda12" 12.4 cupti
make_toolkit "$work/nocupti" 13.0 none

# Fake package tools: dpkg-query knows no package; apt-get records that it was called.
mkdir -p "$work/fakebin"
printf '#!/bin/sh\nexit 1\n' >"$work/fakebin/dpkg-query"
printf '#!/bin/sh\ntouch "%s/apt-get-called"\n' "$work" >"$work/fakebin/apt-get"
chmod +x "$work/fakebin/dpkg-query" "$work/fakebin/apt-get"

check_command 3 "CUDA toolkit not found: no nvcc at $work/absent/nvcc" "" -- \
  env CUDACXX="$work/absent/nvcc" bash "$script" --check
check_command 3 "CUDA 12.4 .* is too old" "" -- env CUDACXX="$work/cuda12/bin/nvcc" bash "$script" --check
check_command 3 "CUPTI not found: no cupti.h" "" -- env CUDACXX="$work/nocupti/bin/nvcc" bash "$script"
check_command 3 "packages missing" "missing: cmake ninja-build g++ libcli11-dev" -- \
  env PATH="$work/fakebin:$PATH" CUDACXX="$work/cuda13/bin/nvcc" bash "$script" --check
check_command 3 "" "missing: .* clang" -- \
  env PATH="$work/fakebin:$PATH" CUDACXX="$work/cuda13/bin/nvcc" bash "$script" --check --fuzz
if [[ -e "$work/apt-get-called" ]]; then
  fail "--check called apt-get"
fi
check_command 2 "unknown option '--bogus' (allowed: --fuzz, --check, --help)" "" -- bash "$script" --bogus
check_command 0 "" "--check" -- bash "$script" --help

finish install_deps
