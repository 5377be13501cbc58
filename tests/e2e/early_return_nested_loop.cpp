// A known trap: an early return inside a nested loop (depth 2 and depth 3)
// once an accumulated value passes a threshold, leaving the enclosing loops
// mid-iteration; each kernel runs where the return fires early, late, and
// never (the loops run out).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/early_return_nested_loop.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/early_return_nested_loop.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, w)
CGP_JVP(x, w)
double first_hit(const double* x, const double* w, int R, int C, double thr) {
  double acc = 0.0;
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      double v = std::tanh(w[c] * x[r * C + c]);
      acc += v * v;
      if (acc > thr) return acc * x[r * C + c] + r;
    }
    acc *= 0.9;
  }
  return -acc;
}

CGP_GRAD(p)
CGP_JVP(p)
double first_hit3(const double* p, int A, int B, int C, double thr) {
  double s = 0.0;
  for (int a = 0; a < A; ++a) {
    double ra = std::cos(p[a]);
    for (int b = 0; b < B; ++b) {
      double rb = ra * p[A + b];
      for (int c = 0; c < C; ++c) {
        double t = rb * p[A + B + c];
        s += t * t;
        if (s > thr) return s * ra + rb;
      }
      s *= 0.95;
    }
  }
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int R = 5, C = 4;
  const double thrs[3] = {0.9, 2.4, 100.0};
  for (double thr : thrs) {
    cgp_test::Checker c("first_hit thr=" + std::to_string(thr));
    std::vector<double>& x = c.in("x", R * C, -1.5, 1.5);
    std::vector<double>& w = c.in("w", C, 0.5, 1.5);
    c.primal([&] { return first_hit(x.data(), w.data(), R, C, thr); });
    c.grad([&](cgp_test::Grads& d) { return first_hit_grad(x.data(), w.data(), R, C, thr, d.f64("x"), d.f64("w")); });
    c.jvp([&](cgp_test::Tangents& t) { return first_hit_jvp(x.data(), w.data(), R, C, thr, t.f64("x"), t.f64("w")); });
    c.run();
  }
  const int A = 3, B = 3, CC = 4;
  const double thr3[3] = {0.7, 3.1, 100.0};
  for (double thr : thr3) {
    cgp_test::Checker c("first_hit3 thr=" + std::to_string(thr));
    std::vector<double>& p = c.in("p", A + B + CC, -1.2, 1.2);
    c.primal([&] { return first_hit3(p.data(), A, B, CC, thr); });
    c.grad([&](cgp_test::Grads& d) { return first_hit3_grad(p.data(), A, B, CC, thr, d.f64("p")); });
    c.jvp([&](cgp_test::Tangents& t) { return first_hit3_jvp(p.data(), A, B, CC, thr, t.f64("p")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
