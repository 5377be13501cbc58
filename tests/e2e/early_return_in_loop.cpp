// Early return inside a loop: walk a piecewise-linear cumulative mass until
// it passes a threshold, then return an interpolated position (the loop trip
// count depends on the data); plus a return inside a while loop. Each is run
// where the loop exits early and where it runs to the end.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/early_return_in_loop.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/early_return_in_loop.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(w)
CGP_JVP(w)
double quantile_position(const double* w, double q, int n) {
  double total = 0.0;
  for (int i = 0; i < n; ++i) total += std::exp(w[i]);
  double cum = 0.0;
  for (int i = 0; i < n; ++i) {
    double p = std::exp(w[i]) / total;
    if (cum + p >= q) {
      double frac = (q - cum) / p;
      return i + frac;
    }
    cum += p;
  }
  return n + cum;
}

CGP_GRAD(a, x0)
CGP_JVP(a, x0)
double newton_until(const double* a, double x0, int maxit) {
  double x = x0;
  int it = 0;
  while (it < maxit) {
    double f = x * x * x + a[0] * x - a[1];
    double df = 3.0 * x * x + a[0];
    double step = f / df;
    x -= step;
    if (std::fabs(step) < 1e-3) return x + 0.01 * it;
    ++it;
  }
  return x;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const double qs[2] = {0.55, 1.5};  // 1.5: never reached, loop runs out
  for (double q : qs) {
    const int n = 8;
    cgp_test::Checker c("quantile_position q=" + std::to_string(q));
    std::vector<double>& w = c.in("w", n, -1.0, 1.0);
    c.primal([&] { return quantile_position(w.data(), q, n); });
    c.grad([&](cgp_test::Grads& d) { return quantile_position_grad(w.data(), q, n, d.f64("w")); });
    c.jvp([&](cgp_test::Tangents& t) { return quantile_position_jvp(w.data(), q, n, t.f64("w")); });
    c.run();
  }
  const int maxits[2] = {30, 2};  // 30: converges and returns inside; 2: runs out
  for (int maxit : maxits) {
    cgp_test::Checker c("newton_until maxit=" + std::to_string(maxit));
    std::vector<double>& a = c.in("a", std::vector<double>{1.5, 2.0});
    double& x0 = c.scalar("x0", 2.0);
    c.primal([&] { return newton_until(a.data(), x0, maxit); });
    c.grad([&](cgp_test::Grads& d) { return newton_until_grad(a.data(), x0, maxit, d.f64("a"), d.f64("x0")); });
    c.jvp([&](cgp_test::Tangents& t) { return newton_until_jvp(a.data(), x0, maxit, t.f64("a"), t.s64("x0")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
