// A value-returning kernel that also updates an in/out buffer: one SGD step
// (returns the loss at the entry weights, updates w in place, then reads the
// updated w again). Both seeds act: the return value's (1) and d_w's on entry;
// d_w on exit involves second derivatives of the loss.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/value_kernel_with_inout.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/value_kernel_with_inout.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(w, x)
CGP_JVP(w, x)
double sgd_step(double* w, const double* x, const double* y, double lr, int m, int n) {
  double g[8];
  if (n > 8) return 0.0;
  for (int j = 0; j < n; ++j) g[j] = 0.0;
  double loss = 0.0;
  for (int i = 0; i < m; ++i) {
    double pred = 0.0;
    for (int j = 0; j < n; ++j) pred += w[j] * x[i * n + j];
    double r = std::tanh(pred) - y[i];
    loss += r * r;
    double dr = 2.0 * r * (1.0 - std::tanh(pred) * std::tanh(pred)) / m;
    for (int j = 0; j < n; ++j) g[j] += dr * x[i * n + j];
  }
  for (int j = 0; j < n; ++j) w[j] -= lr * g[j];
  double reg = 0.0;
  for (int j = 0; j < n; ++j) reg += w[j] * w[j];
  return loss / m + 0.01 * reg;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int m = 6, n = 4;
  cgp_test::Checker c("sgd_step m=6 n=4");
  std::vector<double>& w = c.inout("w", n, -1.0, 1.0);
  std::vector<double>& x = c.in("x", m * n, -1.0, 1.0);
  std::vector<double> y = c.random_vector(m, -0.5, 0.5);
  const double lr = 0.3;
  c.primal([&] { return sgd_step(w.data(), x.data(), y.data(), lr, m, n); });
  c.grad([&](cgp_test::Grads& d) { return sgd_step_grad(w.data(), x.data(), y.data(), lr, m, n, d.f64("w"), d.f64("x")); });
  c.jvp([&](cgp_test::Tangents& t) {
    return sgd_step_jvp(w.data(), x.data(), y.data(), lr, m, n, t.f64("w"), t.f64("x"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
