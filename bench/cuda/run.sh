#!/usr/bin/env bash
# run.sh [--prefix PREFIX] [options] - the CUDA kernel benchmark: for the kernel-shape tests
# (tests/cuda/kernels) and the CUDA sample's RNN batch, a Markdown table of the gradient's
# time against the primal's on a GPU (when nvidia-smi works), registers and local memory from
# nvcc -Xptxas -v (when nvcc is installed), and the atomics, shuffles and barriers per thread
# counted under the host emulation of CUDA. On a machine with a GPU, this one command makes
# the whole table:
#
#   bench/cuda/run.sh --prefix PREFIX [--write-docs]
#
# Options: see `run.sh --help` (run.py does the work; README.md here says what is measured).
set -euo pipefail
exec python3 "$(cd "$(dirname "$0")" && pwd)/run.py" "$@"
