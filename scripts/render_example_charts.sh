#!/usr/bin/env bash
# Regenerates the README's example from a sweep report: the two SVG charts rendered to PNG by
# headless Chromium (Debian: apt-get install chromium) into docs/images/, and the Markdown report
# into docs/examples/; and the profile example's kernel roofline (SVG, as `plot` writes it) from
# docs/examples/h200-profile-block.json. Usage: scripts/render_example_charts.sh [REPORT.json] [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
report="${1:-docs/examples/h200-sweep.json}"
bin="${2:-build/release/rooflinectl}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# chart name, canvas width and height (the SVGs' own size, so the PNG is 1:1)
for spec in "roofline 1000 660" "throughput 1200 540"; do
  read -r chart width height <<<"$spec"
  "$bin" plot "$report" --chart "$chart" -o "$work/$chart.svg"
  # A fresh profile per run; no network, sync or updates (the machine may be offline).
  chromium --no-sandbox --headless --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
    --user-data-dir="$work/profile-$chart" --window-size="$width,$height" \
    --screenshot="docs/images/h200-$chart.png" "file://$work/$chart.svg" 2>/dev/null
done
"$bin" report "$report" --format md -o docs/examples/h200-sweep.md
"$bin" plot docs/examples/h200-profile-block.json -o docs/images/h200-profile-block.svg
