// clad/ba.cpp - the Clad adapter of bench/suite/ba.cpp (the bundle-adjustment objective): the
// kernel's own source (real = double) in a namespace of its own, and ba_objective_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by clad::gradient. Clad's gradient returns void: the value is not computed,
// 0 is returned. Compiled with clang++-19 -fplugin=<clad.so> -I<clad include>.
#include <cgp/cgp.h>
#include <clad/Differentiator/Differentiator.h>
#include <cmath>

namespace clad_peer {
#include "../../suite/ba.cpp" // the kernel (not this file)
} // namespace clad_peer

double ba_objective_grad(const double *cams, const double *X, const double *w, const int *obs,
                         const double *feats, int nobs, double *d_cams, double *d_X, double *d_w) {
  auto grad = clad::gradient(clad_peer::ba_objective, "cams, X, w");
  grad.execute(cams, X, w, obs, feats, nobs, d_cams, d_X, d_w);
  return 0.0;
}
