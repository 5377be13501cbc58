#!/usr/bin/env bash
# build.sh - builds the benchmark peers (the Clad and Enzyme clang plugins) from source
# folders the user names, against the installed LLVM/Clang 19, so that bench/suite/run.py can
# time their gradients beside cgp-ad's. Neither peer is packaged for Debian; this script is
# never run by CI.
#
#   bench/peers/build.sh [--clad-src DIR] [--enzyme-src DIR] [--build DIR] [--llvm DIR] [-j N]
#
# Results: <build>/clad (Clad installed: lib/clad.so, include/) and <build>/enzyme (Enzyme's
# build tree: Enzyme/ClangEnzyme-<major>.so), each with peer-commit.txt, the source folder's
# git commit, which run.py reports. Default build folder: build/bench/peers (in the repository).
# run.py takes them as --clad <build>/clad --enzyme <build>/enzyme.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
clad_src="" enzyme_src="" build="$root/build/bench/peers" llvm="/usr/lib/llvm-19" jobs=2

while [ $# -gt 0 ]; do
  case "$1" in
    --clad-src) clad_src="$(cd "$2" && pwd)"; shift 2 ;;
    --enzyme-src) enzyme_src="$(cd "$2" && pwd)"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --llvm) llvm="$2"; shift 2 ;;
    -j) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$clad_src" ] && [ -z "$enzyme_src" ]; then
  echo "build.sh: name at least one of --clad-src DIR, --enzyme-src DIR" >&2; exit 2
fi
mkdir -p "$build"
build="$(cd "$build" && pwd)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# record SRC DIR: writes SRC's git commit (or "unknown") and SRC itself to DIR/peer-commit.txt.
record() {
  echo "$(git -C "$1" rev-parse HEAD 2>/dev/null || echo unknown) $1" > "$2/peer-commit.txt"
}

if [ -n "$clad_src" ]; then
  echo "== Clad from $clad_src"
  # Tests off: they are Clad's own (lit, and a googletest download), not needed here.
  cmake -S "$clad_src" -B "$build/clad-build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_DIR="$llvm/lib/cmake/llvm" -DClang_DIR="$llvm/lib/cmake/clang" \
    -DCLAD_DISABLE_TESTS=ON -DCLAD_INCLUDE_DOCS=OFF \
    -DCMAKE_INSTALL_PREFIX="$build/clad"
  nice -n 10 cmake --build "$build/clad-build" -j "$jobs"
  cmake --install "$build/clad-build" > /dev/null
  record "$clad_src" "$build/clad"
  echo "== Clad: $(ls "$build"/clad/lib*/clad.so)"
fi

if [ -n "$enzyme_src" ]; then
  echo "== Enzyme from $enzyme_src"
  # The CMake project is the enzyme/ subfolder; only the clang plugin is needed.
  cmake -S "$enzyme_src/enzyme" -B "$build/enzyme" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_DIR="$llvm/lib/cmake/llvm" -DClang_DIR="$llvm/lib/cmake/clang" \
    -DENZYME_CLANG=ON -DENZYME_MLIR=OFF \
    -DLLVM_EXTERNAL_LIT=/bin/true
  major="$("$llvm/bin/llvm-config" --version | cut -d. -f1)"
  nice -n 10 cmake --build "$build/enzyme" -j "$jobs" --target "ClangEnzyme-$major"
  record "$enzyme_src" "$build/enzyme"
  echo "== Enzyme: $(ls "$build"/enzyme/Enzyme/ClangEnzyme-"$major".so)"
fi
