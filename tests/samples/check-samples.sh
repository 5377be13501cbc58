#!/usr/bin/env bash
# check-samples.sh PREFIX BUILD_DIR - builds the six CPU samples (samples/*) as a
# user would, through find_package(CgpAD) and cgp_ad_add_gradients against
# the cgp-ad installed in PREFIX, and runs each one: a sample exits 1 when its
# gradient disagrees with central finite differences (the ODE sample also
# when its loss does not fall). The CUDA sample (samples/cuda, executable rnn_batch) is
# built where CMake finds a CUDA compiler and run only where a GPU answers nvidia-smi;
# tests/cuda/sample_rnn_batch.test runs it under the host emulation of CUDA everywhere.
set -euo pipefail
prefix="$1"
build="$2"
here="$(cd "$(dirname "$0")/../.." && pwd)"
rm -rf "$build"
cmake -S "$here/samples" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCgpAD_DIR="$prefix/lib/cmake/CgpAD"
cmake --build "$build"
for sample in lstm moe ode gmm bundle pose; do
  exe="$(find "$build" -type f -name "$sample" -perm -u+x | head -1)"
  if [ -z "$exe" ]; then
    echo "check-samples: no executable for sample '$sample'" >&2
    exit 1
  fi
  echo "+ $exe"
  "$exe"
done
cuda_exe="$(find "$build" -type f -name rnn_batch -perm -u+x | head -1)"
if [ -z "$cuda_exe" ]; then
  echo "check-samples: CUDA sample not built (no CUDA compiler found)"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "+ $cuda_exe"
  "$cuda_exe"
else
  echo "check-samples: CUDA sample built ($cuda_exe), not run: no GPU here"
fi
