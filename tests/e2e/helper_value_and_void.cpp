// Helpers with visible bodies, not marked: value-returning helpers of a
// scalar (one static, one not), void helpers writing through a non-const
// pointer (axpy into a local array, an in-place scale), reading a const
// pointer with an offset (x + r * n), all called from inside loops.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/helper_value_and_void.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/helper_value_and_void.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

static double sq(double v) { return v * v; }

double softplus(double v) { return std::log1p(std::exp(v)); }

void axpy(double a, const double* x, double* y, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

static void scale_inplace(double* y, double s, int n) {
  for (int i = 0; i < n; ++i) y[i] *= s;
}

CGP_GRAD(x, alpha)
CGP_JVP(x, alpha)
double helper_mix(const double* x, const double* alpha, int n, int k) {
  double tmp[8];
  if (n > 8) return 0.0;
  for (int i = 0; i < n; ++i) tmp[i] = 0.0;
  for (int r = 0; r < k; ++r) {
    axpy(softplus(alpha[r]), x + r * n, tmp, n);
    scale_inplace(tmp, 0.9 + 0.05 * sq(alpha[r]), n);
  }
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += sq(tmp[i]) + softplus(tmp[i] - 1.0);
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 5, k = 4;
  cgp_test::Checker c("helper_mix n=5 k=4");
  std::vector<double>& x = c.in("x", n * k, -1.0, 1.0);
  std::vector<double>& alpha = c.in("alpha", k, -1.0, 1.0);
  c.primal([&] { return helper_mix(x.data(), alpha.data(), n, k); });
  c.grad([&](cgp_test::Grads& d) { return helper_mix_grad(x.data(), alpha.data(), n, k, d.f64("x"), d.f64("alpha")); });
  c.jvp([&](cgp_test::Tangents& t) {
    return helper_mix_jvp(x.data(), alpha.data(), n, k, t.f64("x"), t.f64("alpha"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
