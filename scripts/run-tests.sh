#!/usr/bin/env bash
# run-tests.sh [CTEST-ARGS...] - configures build/ (Release, Ninja) if it is not
# configured yet, builds everything, and runs the whole ctest suite (extra
# arguments go to ctest, e.g. -R unit). The exit status is ctest's.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
step() { echo "+ $*"; "$@"; }

if [ ! -f build/CMakeCache.txt ]; then
  step cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
step cmake --build build -j"$jobs"
step ctest --test-dir build --output-on-failure --no-tests=error -j"$jobs" "$@"
