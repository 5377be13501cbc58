// Errors in the input itself are Clang's own messages (exit status 1);
// a missing input file is an error too. Nothing is written, and outputs of
// an earlier run stay as they were.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSYNTAX 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: test ! -e %t/out
// RUN: %expect-exit 1 %cgpad %t/missing.cpp -o %t/out -- -std=c++17 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: test ! -e %t/out
//
// A good run, then a bad one over the same outputs: the outputs keep their
// contents and timestamps.
// RUN: %cgpad %s -o %t/keep -- -std=c++17
// RUN: cp %t/keep/input-errors.cgp.cpp %t/before.cpp && touch -d '2001-01-01' %t/keep/input-errors.cgp.cpp
// RUN: %expect-exit 1 %cgpad %s -o %t/keep -- -std=c++17 -DSYNTAX 2>/dev/null
// RUN: cmp %t/before.cpp %t/keep/input-errors.cgp.cpp
// RUN: test "$(date -r %t/keep/input-errors.cgp.cpp +%%Y)" = 2001
//
// Two inputs with one NAME (k.cpp, k.cc) would both write NAME.cgp.h.
// RUN: mkdir -p %t/two && cp %s %t/two/k.cpp && cp %s %t/two/k.cc
// RUN: %expect-exit 1 %cgpad %t/two/k.cpp %t/two/k.cc -o %t/two/out -- -std=c++17 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: test ! -e %t/two/out
// SAME: cgp-ad: error: '{{.*}}k.cc' and '{{.*}}k.cpp' would write the same outputs
#include <cgp/cgp.h>

CGP_GRAD(x)
double k(double x) {
#ifdef SYNTAX
  return x * ;
  // SYNTAX: input-errors.cpp:[[@LINE-1]]:14: error: expected expression
#else
  return x * x;
#endif
}

// MISSING: cgp-ad: error: no such file: '{{.*}}missing.cpp'
