// enzyme/ba.cpp - the Enzyme adapter of bench/suite/ba.cpp (the bundle-adjustment objective): the
// kernel's own source (real = double) in a namespace of its own, and ba_objective_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by __enzyme_autodiff: the wrt arrays duplicated with their adjoints, every
// other argument constant. Enzyme's reverse call returns no value: 0 is returned. Compiled
// with clang++-19 -fplugin=<ClangEnzyme-19.so> -O2 (Enzyme differentiates optimised IR).
#include <cgp/cgp.h>
#include <cmath>

#include "enzyme.h"

namespace enzyme_peer {
#include "../../suite/ba.cpp" // the kernel (not this file)
} // namespace enzyme_peer

double ba_objective_grad(const double *cams, const double *X, const double *w, const int *obs,
                         const double *feats, int nobs, double *d_cams, double *d_X, double *d_w) {
  __enzyme_autodiff((void *)enzyme_peer::ba_objective, enzyme_dup, cams, d_cams, enzyme_dup, X, d_X,
                    enzyme_dup, w, d_w, enzyme_const, obs, enzyme_const, feats, enzyme_const, nobs);
  return 0.0;
}
