#!/usr/bin/env bash
# Builds and runs the CUDA emulation selftest (tests/cuda/emu/selftest.cu):
#  1. g++ under the emulation: every check must pass (among them, blocks that
#     share elements only through atomics, which the cross-block check must
#     not report), and the emulation must report (and abort on) a bad warp
#     mask, a deadlock and two blocks changing one element, not both with an
#     atomic of device scope (the report naming the blocks, the element and
#     the plain write);
#     with CGP_EMU_CROSS_BLOCK=0 the cross-block race runs to its end;
#  2. with -fsanitize=thread: a normal run must be race-free, `--race` (a race
#     within one block) must be reported (exit status 66);
#  3. if nvcc is found: compiles the same source for sm_80 and sm_90 (not run).
# Exit status nonzero on any failure. CXX and NVCC override the compilers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cxx=${CXX:-g++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

step() { printf '== %s\n' "$*"; }
bad() { printf 'FAILED: %s\n' "$*"; failures=$((failures + 1)); }

emu_build() {  # output, extra flags...
  local out=$1; shift
  "$cxx" -std=c++17 -Wall -Wextra -Werror -O1 "$@" -x c++ -include "$here/cuda_emulation.h" \
    "$here/selftest.cu" -o "$out" -pthread
}

# Runs a mode that the emulation must refuse: nonzero exit, a cgp_emu: line,
# and each further pattern (fixed strings) somewhere in the output.
expect_abort() {  # binary, mode, patterns...
  local bin=$1 mode=$2 log="$tmp/abort$2.log" pattern
  shift 2
  # In a subshell, so that the shell's "Aborted" notice goes to the log too.
  if (timeout 300 "$bin" "$mode"; exit $?) >"$log" 2>&1; then
    bad "selftest $mode exited 0"; cat "$log"; return
  elif ! grep -q '^cgp_emu: ' "$log"; then
    bad "selftest $mode gave no cgp_emu: diagnostic"; cat "$log"; return
  fi
  for pattern in "$@"; do
    grep -qF -- "$pattern" "$log" || { bad "selftest $mode: no '$pattern' in"; cat "$log"; return; }
  done
  grep -m1 '^cgp_emu: ' "$log"
}

step "emulation: g++ -O1"
if emu_build "$tmp/selftest"; then
  timeout 300 "$tmp/selftest" || bad "selftest under the emulation"
  expect_abort "$tmp/selftest" --bad-warp
  expect_abort "$tmp/selftest" --deadlock
  expect_abort "$tmp/selftest" --cross-block-race \
    'cross-block race in kernel cross_block_add<<<(2,2,1), (32,1,1)>>>: blocks (0,1,0) and (1,1,0)' \
    'of a cudaMalloc allocation of 64 bytes' \
    'in element 3 of parameter 1 of the kernel (8-byte elements)' \
    'block (0,1,0) changed it with a plain write, block (1,1,0) with a plain write'
  expect_abort "$tmp/selftest" --cross-block-mixed \
    'blocks (0,0,0) and (2,0,0)' \
    'no parameter of the kernel points into the allocation; the byte is in element 0 of 8-byte' \
    'block (0,0,0) changed it with an atomic, block (2,0,0) with a plain write'
  expect_abort "$tmp/selftest" --cross-block-scope \
    'blocks (0,0,0) and (1,0,0)' \
    'block (0,0,0) changed it with a plain write, block (1,0,0) with a plain write' \
    'other than atomic*_block ones'
  if CGP_EMU_CROSS_BLOCK=0 timeout 300 "$tmp/selftest" --cross-block-race >"$tmp/off.log" 2>&1; then
    echo "CGP_EMU_CROSS_BLOCK=0: the cross-block race runs unreported, as it must"
  else
    bad "selftest --cross-block-race with CGP_EMU_CROSS_BLOCK=0"; cat "$tmp/off.log"
  fi
else
  bad "building selftest under the emulation"
fi

step "emulation: g++ -O1 -fsanitize=thread"
if emu_build "$tmp/selftest-tsan" -g -fsanitize=thread; then
  export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
  timeout 300 "$tmp/selftest-tsan" >"$tmp/tsan.log" 2>&1
  rc=$?
  tail -n 1 "$tmp/tsan.log"
  [ "$rc" -eq 0 ] || { bad "selftest under TSan: exit status $rc"; cat "$tmp/tsan.log"; }
  timeout 300 "$tmp/selftest-tsan" --race >"$tmp/race.log" 2>&1
  rc=$?
  if [ "$rc" -eq 66 ] && grep -q 'ThreadSanitizer: data race' "$tmp/race.log"; then
    echo "TSan reports the race of selftest --race (exit status 66), as it must"
  else
    bad "selftest --race under TSan: exit status $rc, expected 66 and a data race report"
    tail -n 20 "$tmp/race.log"
  fi
else
  bad "building selftest with -fsanitize=thread"
fi

step "nvcc: compile for sm_80 and sm_90"
nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
  if command -v nvcc >/dev/null 2>&1; then nvcc=$(command -v nvcc)
  elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc
  fi
fi
if [ -z "$nvcc" ]; then
  echo "nvcc not found: CUDA compile checks skipped"
elif "$nvcc" -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra \
    -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    "$here/selftest.cu" -o "$tmp/selftest-nvcc"; then
  ver=$("$nvcc" --version | sed -n 's/.*release \([^,]*\),.*/\1/p')
  echo "nvcc $ver: selftest.cu compiles for sm_80 and sm_90 (not run: no GPU here)"
else
  bad "nvcc compile of selftest.cu"
fi

if [ "$failures" -ne 0 ]; then
  echo "run-selftest: $failures failure(s)"
  exit 1
fi
echo "run-selftest: all passed"
