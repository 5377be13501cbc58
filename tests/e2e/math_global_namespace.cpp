// Math functions spelled in the global namespace (::sqrt, ::exp, ::log,
// ::pow, ::sin, ::cos, ::fabs, ::hypot, unqualified tanh and pow from
// <math.h>) and std::pow with an int exponent (std::pow(x, 3)) and with an
// inactive base (std::pow(2.0, x)).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/math_global_namespace.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/math_global_namespace.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>
#include <math.h>

CGP_GRAD(x, k)
CGP_JVP(x, k)
double global_math(const double* x, double k, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    double u = x[i];
    double a = ::sqrt(u * u + k) + ::exp(-u * u) + ::log(1.0 + k * u * u);
    double b = ::pow(k, u) + ::sin(u) * ::cos(k * u) + ::fabs(u + 3.0) + ::hypot(u, k);
    double c = tanh(k * u) + pow(u * u + 1.0, 0.5) + std::pow(u, 3) + std::pow(2.0, u);
    s += a * b + c;
  }
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 5;
  cgp_test::Checker c("global_math n=5");
  std::vector<double>& x = c.in("x", n, -1.5, 1.5);
  double& k = c.scalar("k", 1.7);
  c.primal([&] { return global_math(x.data(), k, n); });
  c.grad([&](cgp_test::Grads& d) { return global_math_grad(x.data(), k, n, d.f64("x"), d.f64("k")); });
  c.jvp([&](cgp_test::Tangents& t) { return global_math_jvp(x.data(), k, n, t.f64("x"), t.s64("k")); });
  c.run();
  return cgp_test::finish();
}
#endif
