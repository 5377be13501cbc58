// enzyme/moe.cpp - the Enzyme adapter of bench/suite/moe.cpp (the mixture-of-experts loss): the
// kernel's own source (real = double) in a namespace of its own, and moe_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by __enzyme_autodiff: the wrt arrays duplicated with their adjoints, every
// other argument constant. Enzyme's reverse call returns no value: 0 is returned. Compiled
// with clang++-19 -fplugin=<ClangEnzyme-19.so> -O2 (Enzyme differentiates optimised IR).
#include <cgp/cgp.h>
#include <cmath>

#include "enzyme.h"

namespace enzyme_peer {
#include "../../suite/moe.cpp" // the kernel (not this file)
} // namespace enzyme_peer

double moe_loss_grad(const double *Wg, const double *W1, const double *b1, const double *W2,
                     const double *b2, const double *xs, const double *ys, int ntok, double *d_Wg,
                     double *d_W1, double *d_b1, double *d_W2, double *d_b2) {
  __enzyme_autodiff((void *)enzyme_peer::moe_loss, enzyme_dup, Wg, d_Wg, enzyme_dup, W1, d_W1,
                    enzyme_dup, b1, d_b1, enzyme_dup, W2, d_W2, enzyme_dup, b2, d_b2, enzyme_const,
                    xs, enzyme_const, ys, enzyme_const, ntok);
  return 0.0;
}
