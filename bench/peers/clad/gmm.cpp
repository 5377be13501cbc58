// clad/gmm.cpp - the Clad adapter of bench/suite/gmm.cpp (the GMM log-likelihood): the kernel's
// own source (real = double) in a namespace of its own, and gmm_objective_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by clad::gradient. Clad's gradient returns void: the value is not computed,
// 0 is returned. Compiled with clang++-19 -fplugin=<clad.so> -I<clad include>.
#include <cgp/cgp.h>
#include <clad/Differentiator/Differentiator.h>
#include <cmath>

namespace clad_peer {
#include "../../suite/gmm.cpp" // the kernel (not this file)
} // namespace clad_peer

double gmm_objective_grad(const double *alphas, const double *means, const double *icf,
                          const double *x, int n, double wishart_gamma, int wishart_m,
                          double *d_alphas, double *d_means, double *d_icf) {
  auto grad = clad::gradient(clad_peer::gmm_objective, "alphas, means, icf");
  grad.execute(alphas, means, icf, x, n, wishart_gamma, wishart_m, d_alphas, d_means, d_icf);
  return 0.0;
}
