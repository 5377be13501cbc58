// enzyme/ode.cpp - the Enzyme adapter of bench/suite/ode.cpp (the adaptive-step ODE loss): the
// kernel's own source (real = double) in a namespace of its own, and ode_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by __enzyme_autodiff: the wrt arrays duplicated with their adjoints, every
// other argument constant. Enzyme's reverse call returns no value: 0 is returned. Compiled
// with clang++-19 -fplugin=<ClangEnzyme-19.so> -O2 (Enzyme differentiates optimised IR).
#include <cgp/cgp.h>
#include <cmath>

#include "enzyme.h"

namespace enzyme_peer {
#include "../../suite/ode.cpp" // the kernel (not this file)
} // namespace enzyme_peer

double ode_loss_grad(const double *p, const double *y0, const double *observed, double dt_obs,
                     int nobs, double tol, int max_steps, double *d_p, double *d_y0) {
  __enzyme_autodiff((void *)enzyme_peer::ode_loss, enzyme_dup, p, d_p, enzyme_dup, y0, d_y0,
                    enzyme_const, observed, enzyme_const, dt_obs, enzyme_const, nobs, enzyme_const,
                    tol, enzyme_const, max_steps);
  return 0.0;
}
