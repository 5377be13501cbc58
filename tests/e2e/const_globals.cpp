// Namespace-scope constants read by a kernel: constexpr double and int
// scalars, a const double scalar, a const global array (Gauss-Legendre nodes
// and weights) and a constexpr array (polynomial coefficients).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/const_globals.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/const_globals.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

constexpr int kNodes = 5;
constexpr double kHalf = 0.5;
const double kDamping = 0.75;
const double kGaussX[kNodes] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831,
                                0.9061798459386640};
const double kGaussW[kNodes] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                                0.2369268850561891};
constexpr double kPoly[4] = {1.0, -0.5, 0.25, -0.125};

// Integral over [0, 1] (m sub-intervals) of exp(-a0 t^2) cos(a1 t) + poly(a2 t).
CGP_GRAD(a)
CGP_JVP(a)
double gauss_integral(const double* a, int m) {
  double total = 0.0;
  const double width = 1.0 / m;
  for (int k = 0; k < m; ++k) {
    const double mid = (k + kHalf) * width;
    for (int q = 0; q < kNodes; ++q) {
      double t = mid + kHalf * width * kGaussX[q];
      double poly = kPoly[3];
      for (int d = 2; d >= 0; --d) poly = poly * (a[2] * t) + kPoly[d];
      double f = std::exp(-a[0] * t * t) * std::cos(a[1] * t) + poly;
      total += kGaussW[q] * kHalf * width * f;
    }
  }
  return kDamping * total;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  for (int m : {1, 3}) {
    cgp_test::Checker c("gauss_integral m=" + std::to_string(m));
    std::vector<double>& a = c.in("a", std::vector<double>{0.8, 2.1, -0.7});
    c.primal([&] { return gauss_integral(a.data(), m); });
    c.grad([&](cgp_test::Grads& d) { return gauss_integral_grad(a.data(), m, d.f64("a")); });
    c.jvp([&](cgp_test::Tangents& t) { return gauss_integral_jvp(a.data(), m, t.f64("a")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
