// rk4.cpp - planner benchmark: classic Runge-Kutta (RK4) integration of a
// damped nonlinear oscillator with a forcing term over 10,000 steps; loss =
// squared distance of the end state to a target. Gradient with respect to
// the 4 parameters. Built once per strategy by run.sh.
#include <cgp/cgp.h>
#include <cmath>

static void rhs(const double *p, double t, const double *y, double *dy) {
  dy[0] = y[1];
  dy[1] = -p[0] * std::sin(y[0]) - p[1] * y[1] + p[2] * std::cos(p[3] * t);
}

CGP_GRAD(p)
double rk4(const double *p, int steps) {
  double y[2] = {1.0, 0.0};
  const double h = 0.001;
  for (int s = 0; s < steps; ++s) {
    double t = s * h;
    double k1[2], k2[2], k3[2], k4[2], tmp[2];
    rhs(p, t, y, k1);
    for (int i = 0; i < 2; ++i)
      tmp[i] = y[i] + 0.5 * h * k1[i];
    rhs(p, t + 0.5 * h, tmp, k2);
    for (int i = 0; i < 2; ++i)
      tmp[i] = y[i] + 0.5 * h * k2[i];
    rhs(p, t + 0.5 * h, tmp, k3);
    for (int i = 0; i < 2; ++i)
      tmp[i] = y[i] + h * k3[i];
    rhs(p, t + h, tmp, k4);
    for (int i = 0; i < 2; ++i)
      y[i] = y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
  return (y[0] - 0.3) * (y[0] - 0.3) + (y[1] + 0.2) * (y[1] + 0.2);
}

#ifndef __CGP_AD__
#include "bench_main.h"
int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 10000;
  std::vector<double> p = {2.0, 0.3, 0.5, 1.3}, dp(4);
  return report("rk4", [&] { return rk4(p.data(), steps); },
                [&] {
                  zero(dp);
                  return rk4_grad(p.data(), steps, dp.data());
                },
                {&dp});
}
#endif
