// clad/rk4.cpp - the Clad adapter of bench/suite/rk4.cpp (the RK4 Lotka-Volterra loss): the
// kernel's own source (real = double) in a namespace of its own, and rk4_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by clad::gradient. Clad's gradient returns void: the value is not computed,
// 0 is returned. Compiled with clang++-19 -fplugin=<clad.so> -I<clad include>.
#include <cgp/cgp.h>
#include <clad/Differentiator/Differentiator.h>
#include <cmath>

namespace clad_peer {
#include "../../suite/rk4.cpp" // the kernel (not this file)
} // namespace clad_peer

double rk4_loss_grad(const double *p, const double *x0, const double *observed, double h, int steps,
                     double *d_p) {
  auto grad = clad::gradient(clad_peer::rk4_loss, "p");
  grad.execute(p, x0, observed, h, steps, d_p);
  return 0.0;
}
