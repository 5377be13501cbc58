// ode.cpp - suite kernel: adaptive-step integration of a forced Van der Pol
// oscillator
//   y0' = y1,   y1' = mu (1 - y0^2) y1 - k y0 + a cos(w t),
// with the Bogacki-Shampine 3(2) embedded Runge-Kutta pair and error control,
// written as a while loop: each try takes a step of size h, estimates its
// local error (the difference of the 3rd- and 2nd-order solutions, scaled by
// tol (1 + |y|) per component, largest component), accepts the step when the
// scaled error is at most 1 and rejects it otherwise; either way the next h is
// h times 0.9 err^(-1/3) clamped to [0.2, 5]. A step that would pass the next
// observation time is shortened to land on it (and, accepted, adds what it
// left of h to the next h, so that a step landing just short of an
// observation, followed by a tiny one, continues like a step landing on it:
// the loss stays continuous there); at each observation the loss adds the
// squared distance of the state to the observed one, and the loop leaves by
// break after the last observation (or after max_steps tries). Trip count,
// accepted/rejected steps and step sizes all depend on the data; the gradient
// is that of this discrete algorithm (step sizes included), which finite
// differences measure too where they cross no accept/reject decision.
// Gradient with respect to the 4 parameters p = (mu, k, a, w) and the
// initial state y0[2]; few enough for central finite differences.
#include <cgp/cgp.h>
#include <cmath>

#include "real.h"

constexpr int NY = 2; // state size

static void vdp_rhs(const real *p, real t, const real *y, real *dy) {
  dy[0] = y[1];
  dy[1] = p[0] * (1.0 - y[0] * y[0]) * y[1] - p[1] * y[0] + p[2] * cos(p[3] * t);
}

CGP_GRAD(p, y0)
real ode_loss(const real *p, const real *y0, const double *observed, double dt_obs, int nobs,
              double tol, int max_steps) {
  real y[NY];
  for (int i = 0; i < NY; ++i)
    y[i] = y0[i];
  real t = 0.0;
  real h = 0.01;
  real loss = 0.0;
  double t_next = dt_obs;
  int o = 0;
  int tries = 0;
  while (tries < max_steps) {
    ++tries;
    // Shorten the step to land on the next observation time.
    bool hit = false;
    real hs = h;
    if (t + h >= t_next) {
      hs = t_next - t;
      hit = true;
    }
    real k1[NY], k2[NY], k3[NY], k4[NY], tmp[NY], yn[NY];
    vdp_rhs(p, t, y, k1);
    for (int i = 0; i < NY; ++i)
      tmp[i] = y[i] + 0.5 * hs * k1[i];
    vdp_rhs(p, t + 0.5 * hs, tmp, k2);
    for (int i = 0; i < NY; ++i)
      tmp[i] = y[i] + 0.75 * hs * k2[i];
    vdp_rhs(p, t + 0.75 * hs, tmp, k3);
    for (int i = 0; i < NY; ++i)
      yn[i] = y[i] + hs * (2.0 / 9.0 * k1[i] + 1.0 / 3.0 * k2[i] + 4.0 / 9.0 * k3[i]);
    vdp_rhs(p, t + hs, yn, k4);
    // Local error estimate: 3rd-order minus embedded 2nd-order solution.
    real err = 0.0;
    for (int i = 0; i < NY; ++i) {
      real e = hs * (-5.0 / 72.0 * k1[i] + 1.0 / 12.0 * k2[i] + 1.0 / 9.0 * k3[i] -
                     1.0 / 8.0 * k4[i]);
      real scale = tol * (1.0 + fmax(fabs(y[i]), fabs(yn[i])));
      err = fmax(err, fabs(e) / scale);
    }
    if (err <= 1.0) { // accept
      t = t + hs;
      for (int i = 0; i < NY; ++i)
        y[i] = yn[i];
      if (hit) {
        t = t_next;
        for (int i = 0; i < NY; ++i) {
          real d = y[i] - observed[o * NY + i];
          loss += d * d;
        }
        ++o;
        if (o == nobs)
          break;
        t_next = (o + 1) * dt_obs;
      }
    }
    real fac = 0.9 / cbrt(err + 1e-12);
    fac = fmin(5.0, fmax(0.2, fac));
    if (err <= 1.0)
      h = hs * fac + (h - hs); // a shortened step hands on what it left of h
    else
      h = hs * fac;
  }
  return loss;
}
