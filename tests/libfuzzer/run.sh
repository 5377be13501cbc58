#!/usr/bin/env bash
# tests/libfuzzer/run.sh [SECONDS] [WORK] - builds the libFuzzer targets of
# cgp-ad's input parsers with clang++-19 (-fsanitize=fuzzer,address,undefined)
# and runs each for SECONDS (default 20), starting from its corpus in
# corpus/NAME (copied to WORK, so new inputs the fuzzer finds stay out of the
# source tree). Exits nonzero on a crash, a sanitizer report or a leak; the
# input that failed is left in WORK as crash-* / leak-* / timeout-*.
# Without clang++-19 or libFuzzer it says so and exits 77 (ctest: skipped).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-20}"
work="${2:-$(mktemp -d /tmp/cgp-libfuzzer.XXXXXX)}"
cxx="${CGP_FUZZ_CXX:-clang++-19}"
llvm_dir="/usr/lib/llvm-19"
if ! command -v "$cxx" > /dev/null ||
   ! ls "$llvm_dir"/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a > /dev/null 2>&1; then
  echo "libfuzzer: no $cxx with libFuzzer (Debian: clang-19 libclang-rt-19-dev); skipped"
  exit 77
fi
mkdir -p "$work"
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -I"$root/include" -I"$root/runtime" -I"$root/tool")
runtime=("$root"/runtime/*.cpp)
build() { # NAME SOURCES... [-- LINK FLAGS]
  local name="$1"; shift
  echo "libfuzzer: building $name"
  "$cxx" "${flags[@]}" "$@" -o "$work/$name"
}
build profile_reader "$here/profile_reader.cpp" "${runtime[@]}"
build option_values "$here/option_values.cpp" "$root/tool/driver/OptionValues.cpp" "${runtime[@]}"
build annotations "$here/annotations.cpp" "$root/tool/frontend/Annotations.cpp" \
  -isystem "$llvm_dir/include" -DNDEBUG -fno-rtti -L"$llvm_dir/lib" -lLLVM-19 -Wl,-rpath,"$llvm_dir/lib"
status=0
for name in profile_reader option_values annotations; do
  rm -rf "$work/corpus-$name" && cp -r "$here/corpus/$name" "$work/corpus-$name"
  echo "libfuzzer: running $name for $seconds s"
  if ! (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "./$name" -max_total_time="$seconds" \
          -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "corpus-$name" \
          > "$name.log" 2>&1); then
    tail -40 "$work/$name.log"
    echo "libfuzzer: $name FAILED (inputs in $work)"
    status=1
  else
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "$work/$name.log" | tail -1 |
      sed "s/^/libfuzzer: $name: /"
  fi
done
exit $status
