#!/usr/bin/env bash
# check-consumer.sh PREFIX [--no-tool]: checks an installed cgp-ad as a user
# would: builds and runs tests/install/consumer with find_package(CgpAD) (Ninja,
# Unix Makefiles, a moved copy of PREFIX), differentiating its kernel with cgp-ad
# from a custom command that uses cgp-ad's depfile, then main.cpp with the plain
# command line of interface.md section 4. (tests/cmake/check-gradients.sh checks
# cgp_ad_add_gradients().)
# --no-tool: PREFIX has no cgp-ad (built with -DCGP_AD_BUILD_TOOL=OFF).
set -euo pipefail

prefix=$(cd "${1:?usage: check-consumer.sh PREFIX [--no-tool]}" && pwd)
check_tool=ON
[ "${2:-}" = "--no-tool" ] && check_tool=OFF
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/consumer" "$work/src" # builds edit kernel.cpp: work on a copy

want='cgp-stats: {"peak_tape_bytes": 800000, "calls": 1, "retraces": 0, "recomputed_iterations": 0, "kernels": {"square_grad": {"peak_tape_bytes": 800000, "calls": 1, "retraces": 0, "recomputed_iterations": 0}}}'
fail() { echo "check-consumer: FAIL: $*" >&2; exit 1; }

# run_consumer EXE: checks its stdout, and that CGP_STATS=1 adds exactly one
# stats line on stderr at exit (and nothing without it).
run_consumer() {
  local out err
  out=$("$1" 2>"$work/err") || fail "$1 exited with $?"
  [ "$out" = "$want" ] || fail "$1 printed '$out', expected '$want'"
  [ ! -s "$work/err" ] || fail "$1 wrote to stderr without CGP_STATS"
  CGP_STATS=1 "$1" >/dev/null 2>"$work/err" || fail "$1 failed with CGP_STATS=1"
  err=$(cat "$work/err")
  [ "$err" = "$want" ] || fail "with CGP_STATS=1, stderr was '$err', expected one line '$want'"
}

# build_with GENERATOR PREFIX DIR
build_with() {
  echo "check-consumer: find_package(CgpAD) with $1 against $2"
  cmake -S "$work/src" -B "$3" -G "$1" -DCMAKE_PREFIX_PATH="$2" \
    -DCHECK_TOOL="$check_tool" >"$3.log" 2>&1 || { cat "$3.log"; fail "configure ($1)"; }
  cmake --build "$3" >>"$3.log" 2>&1 || { cat "$3.log"; fail "build ($1)"; }
  run_consumer "$3/consumer"
  if [ "$check_tool" = ON ]; then
    "$3/consumer_grad" || fail "the gradient cgp-ad generated at build time is wrong ($1)"
    # Changing the kernel must rerun cgp-ad.
    echo "// changed" >>"$work/src/kernel.cpp"
    log=$(cmake --build "$3" 2>&1) || { echo "$log"; fail "rebuild ($1)"; }
    grep -q 'kernel\.cgp' <<<"$log" || fail "cgp-ad not rerun after kernel.cpp changed ($1)"
    # So must changing a header it includes (cgp-ad's depfile), and nothing else.
    echo "// changed" >>"$work/src/cube.h"
    log=$(cmake --build "$3" 2>&1) || { echo "$log"; fail "rebuild ($1)"; }
    grep -q 'kernel\.cgp' <<<"$log" || fail "cgp-ad not rerun after cube.h changed ($1)"
    "$3/consumer_grad" || fail "the gradient is wrong after cube.h changed ($1)"
  fi
}

build_with Ninja "$prefix" "$work/ninja"
build_with "Unix Makefiles" "$prefix" "$work/make"
# The package must not depend on where it was installed.
cp -a "$prefix" "$work/moved"
! grep -rqF "$prefix" "$work/moved/lib/cmake/CgpAD" || fail "absolute path $prefix in lib/cmake/CgpAD"
build_with Ninja "$work/moved" "$work/ninja-moved"

echo "check-consumer: plain command line against $prefix"
"${CXX:-c++}" -std=c++17 -I "$prefix/include" "$work/src/main.cpp" \
  -L "$prefix/lib" -lcgp_rt -lm -o "$work/plain"
run_consumer "$work/plain"
echo "check-consumer: OK"
