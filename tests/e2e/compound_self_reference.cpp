// Compound assignments whose right side reads the variable they update
// (s += s * x, a[i] -= a[j] * x, y *= y, y /= 1 + y): the adjoint of the
// old value flows both through the update and through the right side.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/compound_self_reference.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/compound_self_reference.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x)
CGP_JVP(x)
double scalars(const double *x, int n) {
  double s = 0.5, y = 1.0;
  for (int i = 0; i < n; ++i) {
    s += s * x[i] + std::sin(s);
    s -= 0.1 * s * s;
    y *= y * 0.5 + x[i];
    y /= 1.0 + y * y;
  }
  return s + y;
}

CGP_GRAD(x, a)
CGP_JVP(x, a)
double arrays(const double *x, double *a, int n) {
  for (int i = 1; i < n; ++i) {
    a[i] += a[i - 1] * x[i] + a[i] * a[i];
    a[i - 1] -= a[i] * x[i - 1];
  }
  double t = 0;
  for (int i = 0; i < n; ++i)
    t += a[i] * t + a[i];
  return t;
}

#ifndef __CGP_AD__
#include "check.h"
int main() {
  {
    cgp_test::Checker c("scalars");
    std::vector<double> &x = c.in("x", 6, -0.4, 0.4);
    c.primal([&] { return scalars(x.data(), 6); });
    c.grad([&](cgp_test::Grads &d) { return scalars_grad(x.data(), 6, d.f64("x")); });
    c.jvp([&](cgp_test::Tangents &t) { return scalars_jvp(x.data(), 6, t.f64("x")); });
    c.run();
  }
  {
    cgp_test::Checker c("arrays (in/out a)");
    std::vector<double> &x = c.in("x", 5, -0.5, 0.5);
    std::vector<double> &a = c.inout("a", 5, -0.5, 0.5);
    c.primal([&] { return arrays(x.data(), a.data(), 5); });
    c.grad([&](cgp_test::Grads &d) { return arrays_grad(x.data(), a.data(), 5, d.f64("x"), d.f64("a")); });
    c.jvp([&](cgp_test::Tangents &t) { return arrays_jvp(x.data(), a.data(), 5, t.f64("x"), t.f64("a")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
