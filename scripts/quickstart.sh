#!/usr/bin/env bash
# quickstart.sh [--prefix DIR] - on a fresh Debian 12 machine: installs missing packages, builds
# and installs cgp-ad (build/, build/quickstart-prefix), then differentiates, builds and runs each
# sample into build/samples/NAME/. --prefix DIR uses the cgp-ad installed in DIR instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
samples=(lstm moe ode gmm)

usage() {
  echo "usage: scripts/quickstart.sh [--prefix DIR]" >&2
  exit 2
}
prefix=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h | --help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done

step() { echo "+ $*"; "$@"; }

if [ -z "$prefix" ]; then
  step scripts/install-deps.sh
  if [ ! -f build/CMakeCache.txt ]; then
    step cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
  fi
  step cmake --build build -j"$(nproc)"
  prefix=$root/build/quickstart-prefix
  step cmake --install build --prefix "$prefix"
else
  [ -d "$prefix" ] || { echo "quickstart: no such folder: $prefix" >&2; exit 2; }
  prefix=$(cd "$prefix" && pwd)
fi
if [ ! -x "$prefix/bin/cgp-ad" ]; then
  echo "quickstart: $prefix/bin/cgp-ad is missing" >&2
  exit 1
fi

# Differentiates samples/NAME/NAME.cpp, builds it with samples/NAME/main.cpp, runs it.
run_sample() {
  local name=$1
  local dir=build/samples/$name
  local gen=$dir/gen
  mkdir -p "$dir"
  step "$prefix/bin/cgp-ad" "samples/$name/$name.cpp" -o "$gen" -- -std=c++17 || return 1
  step c++ -std=c++17 -O2 -Wall -Wextra -I "$prefix/include" -I "$gen" "$gen/$name.cgp.cpp" \
    "samples/$name/main.cpp" -L "$prefix/lib" -lcgp_rt -lm -o "$dir/$name" || return 1
  step "$dir/$name" || return 1
}

status=()
failed=0
for name in "${samples[@]}"; do
  echo
  echo "=== sample $name: samples/$name ==="
  if run_sample "$name"; then
    status+=("ok")
  else
    status+=("FAILED")
    failed=1
  fi
done

echo
echo "=== summary (cgp-ad from $prefix) ==="
for i in "${!samples[@]}"; do
  printf '  %-5s %s\n' "${samples[$i]}" "${status[$i]}"
done
exit "$failed"
