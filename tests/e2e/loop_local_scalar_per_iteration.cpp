// A known trap: scalars declared INSIDE loop bodies (outer and inner), each
// reassigned several times within one iteration (a = ...; a = f(a)), whose
// intermediate values the reverse sweep needs per iteration; a product
// across iterations makes every iteration's value matter.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/loop_local_scalar_per_iteration.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/loop_local_scalar_per_iteration.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, c)
CGP_JVP(x, c)
double per_iteration_scalars(const double* x, double c, int n, int reps) {
  double prod = 1.0;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    double a = std::tanh(c * x[i]);
    double b = a * a;
    a = std::sin(a + b);
    b = b * a + 0.5;
    for (int r = 0; r < reps; ++r) {
      double u = b * x[i];
      u = std::exp(-u * u) + 0.1 * r;
      b = 0.5 * b + 0.5 * u;
    }
    prod *= 0.5 + b * b;
    sum += a * b;
  }
  return prod + sum;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 9, reps = 3;
  cgp_test::Checker ch("per_iteration_scalars n=9 reps=3");
  std::vector<double>& x = ch.in("x", n, -1.5, 1.5);
  double& c = ch.scalar("c", 0.9);
  ch.primal([&] { return per_iteration_scalars(x.data(), c, n, reps); });
  ch.grad([&](cgp_test::Grads& d) { return per_iteration_scalars_grad(x.data(), c, n, reps, d.f64("x"), d.f64("c")); });
  ch.jvp([&](cgp_test::Tangents& t) {
    return per_iteration_scalars_jvp(x.data(), c, n, reps, t.f64("x"), t.s64("c"));
  });
  ch.run();
  return cgp_test::finish();
}
#endif
