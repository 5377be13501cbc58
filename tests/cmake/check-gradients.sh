#!/usr/bin/env bash
# check-gradients.sh installed PREFIX GENERATOR | subdir SOURCE_DIR GENERATOR
#
# Checks cgp_ad_add_gradients() (interface.md section 4) as a user meets it:
# builds tests/cmake/consumer against an installed cgp-ad (find_package) or
# through add_subdirectory of the source tree, with GENERATOR (Ninja or
# "Unix Makefiles"), runs the program (it checks both gradients against
# finite differences), then edits headers, options and the tool and checks
# from the build log and the timestamps that exactly the dependent kernels
# are differentiated again, that nothing else is rebuilt, and that a build
# with nothing changed does nothing. Works on copies: the consumer, the
# prefix (so the tool can be touched) and the source tree.
set -euo pipefail

mode=${1:?usage: check-gradients.sh installed PREFIX GENERATOR | subdir SOURCE_DIR GENERATOR}
location=$(cd "${2:?missing PREFIX or SOURCE_DIR}" && pwd)
generator=${3:?missing GENERATOR}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
tag="check-gradients ($mode, $generator)"

fail() { echo "$tag: FAIL: $*" >&2; exit 1; }
say() { echo "$tag: $*"; }

cp -r "$here/consumer" "$work/src"
config=(-G "$generator")
case "$mode" in
  installed)
    cp -a "$location" "$work/prefix" # the tool gets touched below
    tool="$work/prefix/bin/cgp-ad"
    config+=(-DCMAKE_PREFIX_PATH="$work/prefix")
    ;;
  subdir)
    mkdir "$work/cgp-ad"
    for item in CMakeLists.txt cmake include runtime tool; do
      cp -a "$location/$item" "$work/cgp-ad/"
    done
    tool="$work/cgp-ad/tool/driver/main.cpp" # touching it rebuilds the tool
    config+=(-DCGP_AD_SOURCE_DIR="$work/cgp-ad")
    ;;
  *) fail "unknown mode '$mode'" ;;
esac

build_dir=$work/build
log=$work/build.log
gen_energy=$build_dir/cgp_ad_gen/app/energy.cgp.cpp
gen_spring=$build_dir/cgp_ad_gen/springs/spring.cgp.cpp

configure() {
  cmake -S "$work/src" -B "$build_dir" "${config[@]}" "$@" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "configure"; }
}
build() {
  cmake --build "$build_dir" --parallel "$jobs" >"$log" 2>&1 || { cat "$log"; fail "build ($1)"; }
}
# ran NAME: whether the last build ran cgp-ad on NAME.cpp.
ran() { grep -q "cgp-ad: differentiating $1.cpp" "$log"; }
# compiled NAME: whether the last build compiled the generated NAME.cgp.cpp.
compiled() { grep -q "Building CXX object .*$1\.cgp\.cpp\.o" "$log"; }
mtime() { stat -c %y "$1"; }
run_app() { "$build_dir/app" || fail "the program's gradients are wrong ($1)"; }

# expect STEP energy|spring|both [same]: which kernels the last build
# differentiated; that exactly their generated units changed and were
# compiled again, or with "same", that no generated unit changed.
expect() {
  local step=$1 which=$2 outputs=${3:-changed}
  for name in energy spring; do
    local want=no
    [ "$which" = both ] || [ "$which" = "$name" ] && want=yes
    if [ $want = yes ]; then
      ran $name || { cat "$log"; fail "$step: cgp-ad did not run on $name.cpp"; }
    else
      ! ran $name || { cat "$log"; fail "$step: cgp-ad ran on $name.cpp, which does not depend on it"; }
    fi
    local before=${stamps[$name]} now
    now=$(mtime "$build_dir/cgp_ad_gen/$([ $name = energy ] && echo app || echo springs)/$name.cgp.cpp")
    if [ $want = yes ] && [ "$outputs" = changed ]; then
      [ "$now" != "$before" ] || fail "$step: $name.cgp.cpp was not rewritten"
      compiled $name || { cat "$log"; fail "$step: $name.cgp.cpp was not compiled again"; }
    else
      [ "$now" = "$before" ] || fail "$step: $name.cgp.cpp changed ($before -> $now)"
      # (A header the unit includes itself recompiles it, whatever cgp-ad did.)
      [ "$outputs" = same ] || ! compiled $name ||
        { cat "$log"; fail "$step: $name.cgp.cpp was compiled again"; }
    fi
    stamps[$name]=$now
  done
}

# nothing STEP: a build with nothing changed does nothing.
nothing() {
  build "$1, nothing changed"
  if [ "$generator" = Ninja ]; then
    grep -q "ninja: no work to do" "$log" || { cat "$log"; fail "$1: a build with nothing changed did work"; }
  elif grep -Eq "cgp-ad:|Building|Linking" "$log"; then
    cat "$log"
    fail "$1: a build with nothing changed ran cgp-ad or the compiler"
  fi
}

declare -A stamps
say "configure and build"
configure
build "first build"
run_app "first build"
[ -f "$gen_energy" ] && [ -f "$gen_spring" ] || fail "no generated units in $build_dir/cgp_ad_gen"
[ -f "$build_dir/cgp_ad_gen/app/energy.cgp.d" ] || fail "no depfile beside the outputs"
if [ "$mode" = subdir ]; then
  [ ! -e "$build_dir/cgp-ad-subproject/tests" ] || fail "the subproject built its tests"
fi
stamps[energy]=$(mtime "$gen_energy")
stamps[spring]=$(mtime "$gen_spring")
nothing "after the first build"

say "a header of one kernel"
sed -i 's/2\.0 \* x \* x;/2.5 * x * x;/' "$work/src/include/energy_terms.h"
build "energy_terms.h edited"
expect "energy_terms.h edited" energy
run_app "energy_terms.h edited"
nothing "after energy_terms.h"

sed -i 's/0\.5 \* SPRING_K/0.75 * SPRING_K/' "$work/src/include/spring_law.h"
build "spring_law.h edited"
expect "spring_law.h edited" spring
nothing "after spring_law.h"

say "the shared header"
sed -i 's/1e-2/2e-2/' "$work/src/include/common.h"
build "common.h edited"
expect "common.h edited" both
run_app "common.h edited"
nothing "after common.h"

say "the options"
configure -DKERNEL_OPTIONS=--memory-budget=64KiB
build "options changed"
expect "options changed" both
run_app "options changed"
nothing "after the options"

# From here on the generated code stays the same: cgp-ad runs and leaves
# it untouched, and the next build has nothing to do.
say "the tool"
sleep 1 # a new timestamp for the tool
touch "$tool"
build "tool changed"
expect "tool changed" both same
! compiled energy && ! compiled spring || { cat "$log"; fail "a new tool recompiled a kernel"; }
nothing "after the tool"

say "a header touched, not changed"
sleep 1
touch "$work/src/include/energy_terms.h"
build "energy_terms.h touched"
expect "energy_terms.h touched" energy same
nothing "after touching energy_terms.h"

say "a generated file deleted"
rm "$gen_spring"
build "spring.cgp.cpp deleted"
[ -f "$gen_spring" ] || fail "spring.cgp.cpp was not written again"
nothing "after the deletion"
run_app "last build"
say "OK"
