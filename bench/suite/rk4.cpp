// rk4.cpp - suite kernel: classic Runge-Kutta (RK4) integration of a small
// nonlinear ODE system, the competitive Lotka-Volterra model of 3 species
//   dx_i/dt = r_i x_i (1 - sum_j A_ij x_j),
// over `steps` steps of size h. The loss is the squared distance of the
// trajectory to observations taken every 100 steps. Gradient with respect to
// the 12 parameters p = (r[3], A[3][3] row by row); few enough for central
// finite differences.
#include <cgp/cgp.h>
#include <cmath>

#include "real.h"

constexpr int NS = 3;       // species
constexpr int EVERY = 100;  // steps between observations

static void lv_rhs(const real *p, const real *x, real *dx) {
  for (int i = 0; i < NS; ++i) {
    real load = 1.0;
    for (int j = 0; j < NS; ++j)
      load -= p[NS + i * NS + j] * x[j];
    dx[i] = p[i] * x[i] * load;
  }
}

CGP_GRAD(p)
real rk4_loss(const real *p, const double *x0, const double *observed, double h, int steps) {
  real x[NS];
  for (int i = 0; i < NS; ++i)
    x[i] = x0[i];
  real loss = 0.0;
  for (int s = 0; s < steps; ++s) {
    real k1[NS], k2[NS], k3[NS], k4[NS], tmp[NS];
    lv_rhs(p, x, k1);
    for (int i = 0; i < NS; ++i)
      tmp[i] = x[i] + 0.5 * h * k1[i];
    lv_rhs(p, tmp, k2);
    for (int i = 0; i < NS; ++i)
      tmp[i] = x[i] + 0.5 * h * k2[i];
    lv_rhs(p, tmp, k3);
    for (int i = 0; i < NS; ++i)
      tmp[i] = x[i] + h * k3[i];
    lv_rhs(p, tmp, k4);
    for (int i = 0; i < NS; ++i)
      x[i] = x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    if (s % EVERY == EVERY - 1) {
      const int o = s / EVERY;
      for (int i = 0; i < NS; ++i) {
        real e = x[i] - observed[o * NS + i];
        loss += e * e;
      }
    }
  }
  return loss;
}
