#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: the documentation lands in share/doc/rooflinectl/ with
# docs/ beside README.md, so that every relative link of the installed README (docs/..., LICENSE)
# names a file that is there; the schemas and configs land in share/rooflinectl/.
# Usage: test_install_docs.sh BUILD_DIR SOURCE_DIR
set -u
build="$1"
source_dir="$2"
source "$(dirname "$0")/harness.sh"

prefix="$work/prefix"
if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  fail "cmake --install $build: $(tail -c 400 "$work/install.log")"
  finish install_docs
  exit 1
fi
doc="$prefix/share/doc/rooflinectl"
for file in README.md LICENSE THIRD-PARTY-NOTICES docs/architecture.md docs/counter-method.md \
  docs/examples/h200-sweep.json; do
  if [[ -f $doc/$file ]]; then pass; else fail "not installed: share/doc/rooflinectl/$file"; fi
done
# Every relative link target of README.md (Markdown links and images, anchors dropped).
links=$(grep -o '](\([^)#:]*\)[)#]' "$source_dir/README.md" | sed 's/^](//; s/[)#]$//' | sort -u)
if [[ -z $links ]]; then fail "no relative links found in README.md: the pattern is wrong"; fi
for link in $links; do
  if [[ -e $doc/$link ]]; then
    pass
  else
    fail "README.md links $link, not in the installed share/doc/rooflinectl/"
  fi
done
if [[ -f $prefix/share/rooflinectl/report-schema.json && -d $prefix/share/rooflinectl/configs ]]; then
  pass
else
  fail "schemas or configs missing from share/rooflinectl/"
fi
finish install_docs
