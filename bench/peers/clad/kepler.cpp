// clad/kepler.cpp - the Clad adapter of bench/suite/kepler.cpp (the Kepler orbit-fit loss): the
// kernel's own source (real = double) in a namespace of its own, and kepler_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by clad::gradient. Clad's gradient returns void: the value is not computed,
// 0 is returned. Compiled with clang++-19 -fplugin=<clad.so> -I<clad include>.
#include <cgp/cgp.h>
#include <clad/Differentiator/Differentiator.h>
#include <cmath>

namespace clad_peer {
#include "../../suite/kepler.cpp" // the kernel (not this file)
} // namespace clad_peer

double kepler_loss_grad(const double *p, const double *t, const double *observed, int n,
                        double *d_p) {
  auto grad = clad::gradient(clad_peer::kepler_loss, "p");
  grad.execute(p, t, observed, n, d_p);
  return 0.0;
}
