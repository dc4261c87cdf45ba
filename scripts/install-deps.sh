#!/usr/bin/env bash
# Installs what building and testing rooflinectl needs, with apt-get, on Debian 12 and Ubuntu
# 22.04/24.04, and checks what it cannot install: the CUDA toolkit (nvcc and CUPTI, from NVIDIA's
# packages or installer). Idempotent: packages already installed are left alone, and apt-get runs
# only when one is missing.
#
#   scripts/install-deps.sh           build and test packages (what the README's commands need)
#   scripts/install-deps.sh --fuzz    also clang and its libFuzzer runtime (scripts/fuzz.sh)
#   scripts/install-deps.sh --check   install nothing: list what is missing, exit 3 if anything is
#
# The toolkit is looked up as CMakeLists.txt does: $CUDACXX, else /usr/local/cuda/bin/nvcc, else
# nvcc on PATH. Exit codes: 0 ready; 2 unknown option; 3 something is missing that
# this script cannot install (or, with --check, anything missing), with the fix on one line.
set -euo pipefail

fuzz=0
check_only=0
for arg in "$@"; do
  case "$arg" in
    --fuzz) fuzz=1 ;;
    --check) check_only=1 ;;
    -h | --help)
      awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
      exit 0
      ;;
    *)
      echo "install-deps: error: unknown option '$arg' (allowed: --fuzz, --check, --help)" >&2
      exit 2
      ;;
  esac
done

fail() {
  echo "install-deps: error: $*" >&2
  exit 3
}

# --- What must already be there: the CUDA toolkit with nvcc and CUPTI. ------------------------
if [[ -n "${CUDACXX:-}" ]]; then
  nvcc="$CUDACXX"
  nvcc_origin="\$CUDACXX"
elif [[ -x /usr/local/cuda/bin/nvcc ]] || ! command -v nvcc >/dev/null 2>&1; then
  nvcc=/usr/local/cuda/bin/nvcc
  nvcc_origin="the default location"
else
  nvcc="$(command -v nvcc)"
  nvcc_origin="PATH"
fi
toolkit_fix="install the CUDA 13 toolkit with CUPTI from NVIDIA's packages (e.g. apt-get install cuda-toolkit-13-0 after adding NVIDIA's CUDA repository) or set CUDACXX to its nvcc, then run this again"
[[ -x "$nvcc" ]] || fail "CUDA toolkit not found: no nvcc at $nvcc ($nvcc_origin): $toolkit_fix"
nvcc_release="$("$nvcc" --version | sed -n 's/.*release \([0-9][0-9.]*\).*/\1/p')"
[[ -n "$nvcc_release" ]] || fail "$nvcc does not print a CUDA release: $toolkit_fix"
toolkit="$(cd "$(dirname "$nvcc")/.." && pwd -P)"
cupti_header=""
for dir in "$toolkit/include" "$toolkit/extras/CUPTI/include"; do
  [[ -f "$dir/cupti.h" ]] && cupti_header="$dir/cupti.h"
done
[[ -n "$cupti_header" ]] || fail "CUPTI not found: no cupti.h in $toolkit/include or $toolkit/extras/CUPTI/include: $toolkit_fix"
if [[ "${nvcc_release%%.*}" -lt 13 ]]; then
  fail "CUDA $nvcc_release at $toolkit is too old (rooflinectl needs CUDA 13 for CUPTI's range profiler): $toolkit_fix"
fi
echo "install-deps: expected already there: CUDA toolkit $nvcc_release at $toolkit (nvcc found through $nvcc_origin, CUPTI $cupti_header)"

# --- What apt-get installs. --------------------------------------------------------------------
if [[ -r /etc/os-release ]]; then
  # shellcheck source=/dev/null
  distro="$(. /etc/os-release && echo "${ID:-unknown} ${VERSION_ID:-}")"
else
  distro="unknown"
fi
case "$distro" in
  "debian 12" | "ubuntu 22.04" | "ubuntu 24.04") ;;
  *) echo "install-deps: notice: tested on Debian 12 and Ubuntu 22.04/24.04, this is '$distro': trying the same packages" ;;
esac
command -v dpkg-query >/dev/null 2>&1 || fail "no dpkg-query: this script needs a Debian or Ubuntu system (install by hand: CMake >= 3.25, Ninja, g++, CLI11, fmt, nlohmann/json, GoogleTest, tinyxml2, Python 3 with jsonschema)"

# Build: CMake, Ninja, g++, CLI11, fmt, nlohmann/json. Tests: GoogleTest, tinyxml2 (SVG checks),
# Python 3 (the CLI tests edit reports with it; scripts/ncu_crosscheck.py and bench_gpu.py) and
# python3-jsonschema (the committed reports checked against docs/*schema.json).
packages=(cmake ninja-build g++ libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libtinyxml2-dev
  python3 python3-jsonschema)
if ((fuzz)); then
  packages+=(clang)
fi

installed() { [[ "$(dpkg-query -W -f '${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }

missing_packages() {
  local p
  for p in "$@"; do
    installed "$p" || echo "$p"
  done
}

apt_install() {
  local run=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || fail "installing $* needs root: run this script as root or install sudo"
    run=(sudo)
  fi
  echo "install-deps: installing with apt-get: $*"
  "${run[@]}" apt-get update -qq
  "${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

# One round for the listed packages, a second for the libFuzzer runtime, whose name carries the
# version of the clang that the first round installed (libclang-rt-14-dev on Debian 12).
ensure() {
  local missing
  mapfile -t missing < <(missing_packages "$@")
  if ((${#missing[@]} == 0)); then
    echo "install-deps: already installed: $*"
  elif ((check_only)); then
    echo "install-deps: missing: ${missing[*]}"
    return 1
  else
    apt_install "${missing[@]}"
  fi
}

status=0
ensure "${packages[@]}" || status=1
if ((fuzz)) && command -v clang >/dev/null 2>&1; then
  clang_major="$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)"
  ensure "libclang-rt-$clang_major-dev" || status=1
fi
((status == 0)) || fail "packages missing (listed above): run scripts/install-deps.sh without --check to install them"

cmake_version="$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')"
if [[ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -n1)" != "3.25" ]]; then
  fail "CMake $cmake_version is older than 3.25 (Ubuntu 22.04 ships 3.22): install a newer one (pip install cmake, or Kitware's APT repository), then run this again"
fi
echo "install-deps: ready (CMake $cmake_version, CUDA $nvcc_release)"
