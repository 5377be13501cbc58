// enzyme/gmm.cpp - the Enzyme adapter of bench/suite/gmm.cpp (the GMM log-likelihood): the kernel's
// own source (real = double) in a namespace of its own, and gmm_objective_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by __enzyme_autodiff: the wrt arrays duplicated with their adjoints, every
// other argument constant. Enzyme's reverse call returns no value: 0 is returned. Compiled
// with clang++-19 -fplugin=<ClangEnzyme-19.so> -O2 (Enzyme differentiates optimised IR).
#include <cgp/cgp.h>
#include <cmath>

#include "enzyme.h"

namespace enzyme_peer {
#include "../../suite/gmm.cpp" // the kernel (not this file)
} // namespace enzyme_peer

double gmm_objective_grad(const double *alphas, const double *means, const double *icf,
                          const double *x, int n, double wishart_gamma, int wishart_m,
                          double *d_alphas, double *d_means, double *d_icf) {
  __enzyme_autodiff((void *)enzyme_peer::gmm_objective, enzyme_dup, alphas, d_alphas, enzyme_dup,
                    means, d_means, enzyme_dup, icf, d_icf, enzyme_const, x, enzyme_const, n,
                    enzyme_const, wishart_gamma, enzyme_const, wishart_m);
  return 0.0;
}
