#!/usr/bin/env bash
# quickstart.sh [--prefix DIR] - on a fresh Debian 12 machine: installs missing packages, builds
# and installs cgp-ad (build/, build/quickstart-prefix), then builds the samples as a CMake project
# (samples/CMakeLists.txt, into build/samples/) and for each: differentiates and builds it, prints
# the plan cgp-ad chose and runs it. --prefix DIR uses the cgp-ad installed in DIR instead.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
samples=(lstm moe ode gmm bundle)

usage() {
  echo "usage: scripts/quickstart.sh [--prefix DIR]" >&2
  exit 2
}
prefix=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    -h | --help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

# The samples' build tree: find_package(CgpAD) from $prefix (CgpAD_DIR too, since a cached
# one from an earlier --prefix would win), Ninja when there is one and no tree yet.
samples_build=build/samples
generator=()
if [ ! -f "$samples_build/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
configured=0
step cmake -S samples -B "$samples_build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCgpAD_DIR="$prefix/lib/cmake/CgpAD" && configured=1

# Builds sample NAME (cgp_ad_add_gradients runs cgp-ad on samples/NAME/NAME.cpp, then the
# compiler builds the generated NAME.cgp.cpp with main.cpp), prints the plan, runs it.
run_sample() {
  local name=$1
  [ "$configured" = 1 ] || return 1
  step cmake --build "$samples_build" --target "$name" -j"$(nproc)" || return 1
  step "$prefix/bin/cgp-ad" --explain "samples/$name/$name.cpp" -o "$samples_build/$name/plan" \
    -- -std=c++17 || return 1
  step "$samples_build/$name/$name" || return 1
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
