// heat.cpp - planner benchmark: a loop whose state lives in std::vector
// locals. A rod of 64 cells, 2000 explicit steps of diffusion with a
// nonlinear source (u and its update v are local vectors); loss = the
// squared temperatures at the end. Gradient with respect to the 3
// coefficients. Its snapshots hold the vectors' elements. Built once per
// strategy by run.py.
#include <cgp/cgp.h>
#include <cmath>
#include <vector>

CGP_GRAD(k)
double heat(const double *k, const double *u0, int n, int steps) {
  std::vector<double> u(n), v(n);
  for (int i = 0; i < n; ++i)
    u[i] = u0[i];
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      double left = u[(i + n - 1) % n], right = u[(i + 1) % n];
      v[i] = u[i] + k[0] * (left - 2.0 * u[i] + right) + k[1] * std::tanh(k[2] * u[i]);
    }
    for (int i = 0; i < n; ++i)
      u[i] = 0.999 * v[i];
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += u[i] * u[i];
  return s;
}

#ifndef __CGP_AD__
#include "bench_main.h"
int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000, n = 64;
  std::vector<double> k = {0.2, 0.01, 1.5}, dk(3), u0(n);
  fill(u0, 2.0, 7);
  return report("heat", [&] { return heat(k.data(), u0.data(), n, steps); },
                [&] {
                  zero(dk);
                  return heat_grad(k.data(), u0.data(), n, steps, dk.data());
                },
                {&dk});
}
#endif
