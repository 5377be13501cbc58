// enzyme/rk4.cpp - the Enzyme adapter of bench/suite/rk4.cpp (the RK4 Lotka-Volterra loss): the
// kernel's own source (real = double) in a namespace of its own, and rk4_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by __enzyme_autodiff: the wrt arrays duplicated with their adjoints, every
// other argument constant. Enzyme's reverse call returns no value: 0 is returned. Compiled
// with clang++-19 -fplugin=<ClangEnzyme-19.so> -O2 (Enzyme differentiates optimised IR).
#include <cgp/cgp.h>
#include <cmath>

#include "enzyme.h"

namespace enzyme_peer {
#include "../../suite/rk4.cpp" // the kernel (not this file)
} // namespace enzyme_peer

double rk4_loss_grad(const double *p, const double *x0, const double *observed, double h, int steps,
                     double *d_p) {
  __enzyme_autodiff((void *)enzyme_peer::rk4_loss, enzyme_dup, p, d_p, enzyme_const, x0,
                    enzyme_const, observed, enzyme_const, h, enzyme_const, steps);
  return 0.0;
}
