// Early returns at the top level of a kernel: a guard on an int parameter,
// returns from if / else-if arms chosen by the data, and a final return;
// one checker per return path (the guard's path has a zero gradient).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/early_return_top_level.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/early_return_top_level.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, b)
CGP_JVP(x, b)
double early_exits(const double* x, double b, int n) {
  if (n <= 0) return b * 0.0;
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  if (s > 4.0) return std::sqrt(s) + b;
  double t = s * b;
  if (t < -1.0) {
    return std::exp(t) - x[0];
  } else if (t > 1.0) {
    double u = std::log(t);
    return u * x[n - 1];
  }
  return t * t + x[0] * b;
}

#ifndef __CGP_AD__
#include "check.h"

static void path(const char* label, int n, std::vector<double> xv, double b0) {
  cgp_test::Checker c(std::string("early_exits ") + label);
  std::vector<double>& x = c.in("x", xv);
  double& b = c.scalar("b", b0);
  c.primal([&] { return early_exits(x.data(), b, n); });
  c.grad([&](cgp_test::Grads& d) { return early_exits_grad(x.data(), b, n, d.f64("x"), d.f64("b")); });
  c.jvp([&](cgp_test::Tangents& t) { return early_exits_jvp(x.data(), b, n, t.f64("x"), t.s64("b")); });
  c.run();
}

int main() {
  path("(guard n=0)", 0, {0.5, 0.7, -0.2}, 1.5);
  path("(s > 4)", 3, {1.5, -1.2, 0.9}, 0.3);
  path("(t < -1)", 3, {1.0, -0.9, 0.6}, -1.2);
  path("(t > 1)", 3, {1.0, -0.9, 0.6}, 1.3);
  path("(fall through)", 3, {0.4, -0.3, 0.5}, 0.7);
  return cgp_test::finish();
}
#endif
