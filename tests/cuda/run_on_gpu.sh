#!/usr/bin/env bash
# run_on_gpu.sh [PREFIX [WORKDIR]] - the CUDA tests and the CUDA sample on a real GPU.
#
# For a machine with an NVIDIA GPU, nvcc and an installed cgp-ad (PREFIX, default
# build/test-prefix; `cmake --install build --prefix build/test-prefix`). For each CUDA test
# (tests/cuda/*.cu) and for the sample (samples/cuda), it runs the installed cgp-ad, compiles
# the generated unit with nvcc for the GPU here (-arch=native, or CGP_CUDA_ARCH=sm_90 ...),
# and runs the program: the same checks as under the host emulation (gradients against finite
# differences, ...), now on the device. A test then times each derivative kernel against its
# primal (`--time`: medians of 20 launches, CUDA events, on a bigger batch) and prints
# `TIME kernel primal_ms derivative_ms ratio` lines; the sample prints its own timing line.
# At the end: a Markdown table of the timings, with the GPU's name, and which programs passed.
#
# Exit status: 0 all passed; 1 a build or a check failed; 77 no GPU here (nothing run).
# Without a GPU, ctest's `cuda` suite runs the same programs under the host emulation.
# Work files go to WORKDIR (default build/gpu-run), emptied first.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
prefix="${1:-$root/build/test-prefix}"
work="${2:-$root/build/gpu-run}"
arch="${CGP_CUDA_ARCH:-native}"

if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "run_on_gpu: no GPU here: nvidia-smi is not installed; nothing run." >&2
  echo "run_on_gpu: without a GPU, run the CUDA tests under the host emulation (ctest -R cuda)." >&2
  exit 77
fi
if ! gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1)" || [ -z "$gpu" ]; then
  echo "run_on_gpu: no GPU here: nvidia-smi fails: $gpu" >&2
  echo "run_on_gpu: without a GPU, run the CUDA tests under the host emulation (ctest -R cuda)." >&2
  exit 77
fi
gpu="$(echo "$gpu" | head -1)"
driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"

nvcc="${NVCC:-$(command -v nvcc || true)}"
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc=/usr/local/cuda/bin/nvcc
fi
if [ -z "$nvcc" ]; then
  echo "run_on_gpu: nvcc not found (put it on PATH or set NVCC)" >&2
  exit 1
fi
cgpad="$prefix/bin/cgp-ad"
if [ ! -x "$cgpad" ]; then
  echo "run_on_gpu: $cgpad is missing (install cgp-ad: cmake --install build --prefix $prefix)" >&2
  exit 1
fi
nvcc_version="$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"

rm -rf "$work"
mkdir -p "$work"
echo "run_on_gpu: $gpu (driver $driver), nvcc $nvcc_version, -arch=$arch, cgp-ad from $prefix"

times=()   # "program|kernel|primal_ms|derivative_ms|ratio"
results=() # "program|status"
failed=0

# build_and_run NAME OUTDIR LOG CGPAD_INPUT [EXTRA_SOURCES...] -- ARGS...: differentiates,
# compiles with nvcc, runs the program with ARGS; its output goes to LOG too.
build_and_run() {
  local name=$1 out=$2 log=$3 input=$4
  shift 4
  local sources=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    sources+=("$1")
    shift
  done
  [ $# -gt 0 ] && shift
  mkdir -p "$out"
  local generated="$input"
  if grep -q 'CGP_GRAD\|CGP_JVP' "$input"; then
    echo "+ cgp-ad $input"
    "$cgpad" "$input" -o "$out" -- -std=c++17 --cuda-gpu-arch=sm_90 || return 1
    generated="$out/$(basename "${input%.cu}").cgp.cu"
  else # a test of the device runtime itself: nothing to differentiate
    echo "+ (no marked kernel in $input: compiled as it is)"
  fi
  echo "+ nvcc -arch=$arch $generated ${sources[*]}"
  "$nvcc" -std=c++17 -O2 -arch="$arch" -I"$prefix/include" -I"$here/harness" -I"$out" \
    "$generated" "${sources[@]}" -o "$out/$name" -L"$prefix/lib" -lcgp_rt -lm || return 1
  echo "+ $out/$name $*"
  "$out/$name" "$@" 2>&1 | tee "$log"
}

for test in "$here"/*.cu; do
  name="$(basename "$test" .cu)"
  echo
  echo "=== test $name: tests/cuda/$name.cu ==="
  log="$work/$name.log"
  if build_and_run "$name" "$work/$name" "$log" "$test" -- --time; then
    results+=("tests/cuda/$name.cu|ok")
  else
    results+=("tests/cuda/$name.cu|FAILED")
    failed=1
  fi
  if [ -f "$log" ]; then
    while read -r _ kernel primal derivative ratio; do
      times+=("tests/cuda/$name.cu|$kernel|$primal|$derivative|$ratio")
    done < <(grep '^TIME ' "$log")
  fi
done

echo
echo "=== sample: samples/cuda ==="
log="$work/sample.log"
if build_and_run rnn_batch "$work/sample" "$log" "$root/samples/cuda/rnn_batch.cu" \
  "$root/samples/cuda/main.cu" --; then
  results+=("samples/cuda|ok")
else
  results+=("samples/cuda|FAILED")
  failed=1
fi
# "time: primal P ms, gradient G ms (medians of N launches), gradient/primal = R"
if [ -f "$log" ]; then
  line="$(sed -n 's/^time: primal \([0-9.]*\) ms, gradient \([0-9.]*\) ms.*= \([0-9.]*\).*/\1|\2|\3/p' "$log")"
  [ -n "$line" ] && times+=("samples/cuda|rnn_batch_grad|$line")
fi

echo
echo "## cgp-ad CUDA kernels on $gpu"
echo
echo "Driver $driver, nvcc $nvcc_version (-arch=$arch), $("$cgpad" --version 2>/dev/null | head -1)."
echo "Median of 20 launches each, CUDA events; derivative = the generated \`_grad\` (or \`_jvp\`) kernel."
echo
echo "| program | derivative kernel | primal ms | derivative ms | derivative / primal |"
echo "|---|---|---:|---:|---:|"
for row in "${times[@]}"; do
  IFS='|' read -r program kernel primal derivative ratio <<<"$row"
  echo "| $program | \`$kernel\` | $primal | $derivative | $ratio |"
done
echo
echo "| program | checks |"
echo "|---|---|"
for row in "${results[@]}"; do
  IFS='|' read -r program status <<<"$row"
  echo "| $program | $status |"
done
exit "$failed"
