#!/usr/bin/env bash
# quickstart.sh [--prefix DIR] - on a fresh Debian 12 machine: installs missing packages, builds
# and installs cgp-ad (build/, build/quickstart-prefix), then builds the samples as a CMake project
# (samples/CMakeLists.txt, into build/samples/) and for each: differentiates and builds it, prints
# the plan cgp-ad chose and runs it. --prefix DIR uses the cgp-ad installed in DIR instead.
# Last, the CUDA sample (samples/cuda) where nvcc is found: run on the GPU, or without one under
# the host emulation of CUDA with a small batch.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
samples=(lstm moe ode gmm bundle pose)

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
# nvcc where it is (CMake looks on PATH and in CUDACXX only), for the CUDA sample.
nvcc=$(command -v nvcc || true)
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi
if [ -n "$nvcc" ] && [ -z "${CUDACXX:-}" ]; then
  export CUDACXX=$nvcc
fi
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

# The CUDA sample: differentiated (cgp_ad_add_gradients on samples/cuda/rnn_batch.cu) and built
# with nvcc; run on the GPU where nvidia-smi answers, otherwise built once more from the same
# generated code with the C++ compiler under the host emulation of CUDA (tests/cuda/emu) and run
# with 64 sequences of at most 30 steps. Sets cuda_status.
run_cuda_sample() {
  local gen="$samples_build/cuda/cgp_ad_gen/rnn_batch"
  [ "$configured" = 1 ] || return 1
  step cmake --build "$samples_build" --target rnn_batch -j"$(nproc)" || return 1
  step "$prefix/bin/cgp-ad" --explain samples/cuda/rnn_batch.cu -o "$samples_build/cuda/plan" \
    -- -std=c++17 || return 1
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    step "$samples_build/cuda/rnn_batch" || return 1
    cuda_status="ok"
  else
    echo "no GPU here (nvidia-smi missing or failing): running the sample under the host"
    echo "emulation of CUDA instead (each CUDA thread a std::thread), with a small batch"
    step "${CXX:-c++}" -std=c++17 -O2 -I"$prefix/include" -I"$gen" -x c++ \
      -include tests/cuda/emu/cuda_emulation.h "$gen/rnn_batch.cgp.cu" samples/cuda/main.cu \
      -o "$samples_build/cuda/rnn_batch_emulated" -pthread -L"$prefix/lib" -lcgp_rt -lm || return 1
    step "$samples_build/cuda/rnn_batch_emulated" 64 30 || return 1
    cuda_status="ok (host emulation: no GPU)"
  fi
}

echo
echo "=== sample cuda: samples/cuda ==="
if [ -z "$nvcc" ]; then
  echo "skipped: no nvcc"
  cuda_status="skipped: no nvcc"
elif run_cuda_sample; then
  :
else
  cuda_status="FAILED"
  failed=1
fi

echo
echo "=== summary (cgp-ad from $prefix) ==="
for i in "${!samples[@]}"; do
  printf '  %-5s %s\n' "${samples[$i]}" "${status[$i]}"
done
printf '  %-5s %s\n' cuda "$cuda_status"
exit "$failed"
