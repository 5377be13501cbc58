// Floating scalars passed by value (double), an inactive double and an int
// parameter, plain arithmetic (+ - * / unary minus), int -> double promotion
// in mixed expressions, and CGP_GRAD(x, y) naming a subset.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/scalar_params_by_value.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/scalar_params_by_value.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>

CGP_GRAD(x, y)
CGP_JVP(x, y)
double rational_mix(double x, double y, double c, int k) {
  double a = x * y - c / (1.0 + x * x);
  double b = -a + 3.0 * y;
  double q = (a * b) / (2.0 + y * y) + k * x;
  double r = q - x / (k + 1) + (x - y) * (x + y) / 4.0;
  return r * (1.0 - 0.25 * r / (1.0 + r * r));
}

#ifndef __CGP_AD__
#include "check.h"

static void case_at(double x0, double y0, double c, int k) {
  char name[96];
  std::snprintf(name, sizeof name, "rational_mix(x=%g, y=%g, c=%g, k=%d)", x0, y0, c, k);
  cgp_test::Checker ch(name);
  double& x = ch.scalar("x", x0);
  double& y = ch.scalar("y", y0);
  ch.primal([&] { return rational_mix(x, y, c, k); });
  ch.grad([&](cgp_test::Grads& d) { return rational_mix_grad(x, y, c, k, d.f64("x"), d.f64("y")); });
  ch.jvp([&](cgp_test::Tangents& t) { return rational_mix_jvp(x, y, c, k, t.s64("x"), t.s64("y")); });
  ch.run();
}

int main() {
  case_at(0.7, -1.3, 0.4, 2);
  case_at(-2.5, 0.25, -1.5, 0);
  case_at(12.0, 3.5, 2.0, 5);
  return cgp_test::finish();
}
#endif
