// clad/ode.cpp - the Clad adapter of bench/suite/ode.cpp (the adaptive-step ODE loss): the kernel's
// own source (real = double) in a namespace of its own, and ode_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by clad::gradient. Clad's gradient returns void: the value is not computed,
// 0 is returned. Compiled with clang++-19 -fplugin=<clad.so> -I<clad include>.
#include <cgp/cgp.h>
#include <clad/Differentiator/Differentiator.h>
#include <cmath>

namespace clad_peer {
#include "../../suite/ode.cpp" // the kernel (not this file)
} // namespace clad_peer

double ode_loss_grad(const double *p, const double *y0, const double *observed, double dt_obs,
                     int nobs, double tol, int max_steps, double *d_p, double *d_y0) {
  auto grad = clad::gradient(clad_peer::ode_loss, "p, y0");
  grad.execute(p, y0, observed, dt_obs, nobs, tol, max_steps, d_p, d_y0);
  return 0.0;
}
