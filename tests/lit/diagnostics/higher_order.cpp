// Differentiating a gradient cgp-ad generated (reverse or forward mode over
// reverse mode) is refused with an error that says so and what works
// instead; the included unit's own marker is not differentiated again.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %S/Inputs/gradient_kernel.cpp -o %t/first -- -std=c++17
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -I%t/first 2>&1 | FileCheck %s
// RUN: test ! -e %t/out
#include "gradient_kernel.cgp.cpp"

// CHECK: error: cannot differentiate 'g': in 'f_grad' (called from 'g'): a gradient that cgp-ad generated (it holds the runtime's 'Tape') cannot be differentiated again yet (reverse or forward mode over reverse mode); differentiate its forward mode function (f_jvp) instead: reverse over forward works
// CHECK: 1 error generated.
CGP_JVP(x)
double g(const double* x) {
  double d[2] = {0.0, 0.0};
  f_grad(x, d);
  return d[0] + d[1];
}
