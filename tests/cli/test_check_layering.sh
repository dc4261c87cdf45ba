#!/usr/bin/env bash
# scripts/check_layering.py on small trees made here: an include along a declared arrow passes,
# one against the arrows, an undeclared folder and a cycle each fail with a line naming them.
# Usage: test_check_layering.sh SCRIPT
set -u
script=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$tmp/src/low" "$tmp/src/high" "$tmp/kernels" "$tmp/app"
echo '#include "low/a.hpp"' >"$tmp/src/high/b.cpp"
echo '#include "high/b.hpp"' >"$tmp/app/main.cpp"
echo '#include "low/a.hpp"' >"$tmp/kernels/k.cu"
printf 'low: \nhigh: low\nkernels: low\napp: high\n' >"$tmp/layers.txt"
out=$(python3 "$script" --layers "$tmp/layers.txt" --root "$tmp") || fail "clean tree refused: $out"
grep -q "^app -> high$" <<<"$out" || fail "graph not printed: $out"

echo '#include "high/b.hpp"' >"$tmp/src/low/a.cpp"
out=$(python3 "$script" --layers "$tmp/layers.txt" --root "$tmp") && fail "upward include passed"
grep -q 'src/low/a.cpp:1: includes "high/b.hpp": low/ may not use high/' <<<"$out" ||
  fail "upward include not named: $out"
rm "$tmp/src/low/a.cpp"

echo '#include "high/b.hpp"' >"$tmp/kernels/k.cu"
out=$(python3 "$script" --layers "$tmp/layers.txt" --root "$tmp") && fail "kernels -> high passed"
grep -q 'kernels/k.cu:1: includes "high/b.hpp": kernels/ may not use high/' <<<"$out" ||
  fail "kernels include not named: $out"
echo '#include "low/a.hpp"' >"$tmp/kernels/k.cu"

mkdir -p "$tmp/src/stray"
out=$(python3 "$script" --layers "$tmp/layers.txt" --root "$tmp") && fail "undeclared folder passed"
grep -q "src/stray/ is not declared" <<<"$out" || fail "undeclared folder not named: $out"
rmdir "$tmp/src/stray"

printf 'low: high\nhigh: low\nkernels: low\napp: high\n' >"$tmp/layers.txt"
out=$(python3 "$script" --layers "$tmp/layers.txt" --root "$tmp") && fail "cycle passed"
grep -q "dependency cycle" <<<"$out" || fail "cycle not named: $out"
echo "check_layering.py: 5 cases ok"
