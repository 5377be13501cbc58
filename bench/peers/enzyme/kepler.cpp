// enzyme/kepler.cpp - the Enzyme adapter of bench/suite/kepler.cpp (the Kepler orbit-fit loss): the
// kernel's own source (real = double) in a namespace of its own, and kepler_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by __enzyme_autodiff: the wrt arrays duplicated with their adjoints, every
// other argument constant. Enzyme's reverse call returns no value: 0 is returned. Compiled
// with clang++-19 -fplugin=<ClangEnzyme-19.so> -O2 (Enzyme differentiates optimised IR).
#include <cgp/cgp.h>
#include <cmath>

#include "enzyme.h"

namespace enzyme_peer {
#include "../../suite/kepler.cpp" // the kernel (not this file)
} // namespace enzyme_peer

double kepler_loss_grad(const double *p, const double *t, const double *observed, int n,
                        double *d_p) {
  __enzyme_autodiff((void *)enzyme_peer::kepler_loss, enzyme_dup, p, d_p, enzyme_const, t,
                    enzyme_const, observed, enzyme_const, n);
  return 0.0;
}
