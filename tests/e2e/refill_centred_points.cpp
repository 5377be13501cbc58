// Local arrays filled by a loop from values at hand are recomputed by the
// default plan: the reverse sweep fills them again instead of popping their
// old elements (xc, centred points as in GMM, and e).
// Arrays the plan must keep stay taped: y (its loop does
// more), z (written again after its fill), u (filled from c, which changes
// before u's last use). The gradients must match central finite
// differences and have the same bits under store-all and every budget.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --explain %s -o %t -- -std=c++17 | FileCheck %s
// CHECK: xc (line {{[0-9]+}}, double, {{.*}}): RECOMPUTE
// CHECK: e (line {{[0-9]+}}, double, {{.*}}): RECOMPUTE
// RUN: %cxx %cxxflags %harness %t/refill_centred_points.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %harness %t/refill_centred_points.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(mu, w)
double spread(const double *x, const double *mu, const double *w, int n) {
  double loss = 0;
  for (int p = 0; p < n; ++p) {
    double xc[4], y[4], z[4], u[4], e[4];
    for (int i = 0; i < 4; ++i)
      xc[i] = x[p * 4 + i] - mu[i];
    double c = w[0] * xc[0];
    for (int i = 0; i < 4; ++i) {
      y[i] = xc[i] * w[i];
      loss += std::sin(y[i]);
    }
    for (int i = 0; i < 4; ++i)
      z[i] = xc[i] * xc[i];
    z[0] = z[0] + 1.0;
    for (int i = 0; i < 4; ++i)
      u[i] = c * w[i];
    c = c * c;
    for (int i = 0; i < 4; ++i)
      e[i] = 0.3 * x[p * 4 + i] - w[i];
    double s = 0;
    for (int i = 0; i < 4; ++i)
      s += std::exp(e[i]);
    for (int i = 0; i < 4; ++i)
      loss += w[i] * xc[i] * xc[i] + z[i] * u[i] + c * y[i] + std::log(s) * e[i];
  }
  return loss;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 300;
  cgp_test::Checker c("spread over 300 points of 4 coordinates");
  std::vector<double> x = c.random_vector(4 * n, -1.0, 1.0); // data, not differentiated
  std::vector<double>& mu = c.in("mu", 4, -0.5, 0.5);
  std::vector<double>& w = c.in("w", 4, -0.8, 0.8);
  c.primal([&] { return spread(x.data(), mu.data(), w.data(), n); });
  c.grad([&](cgp_test::Grads& d) {
    return spread_grad(x.data(), mu.data(), w.data(), n, d.f64("mu"), d.f64("w"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
