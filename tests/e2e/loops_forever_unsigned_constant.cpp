// Odd but common loop shapes: unsigned and size_t indices (run backwards
// without wrapping), for(;;) and while(true) left by break, a switch whose
// case continues the loop, do-while with continue; and a kernel whose
// result does not depend on its input at all.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/loops_forever_unsigned_constant.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/loops_forever_unsigned_constant.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>
#include <cstddef>
CGP_GRAD(x)
CGP_JVP(x)
double unsigned_idx(const double *x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i] * x[i] * (double)i;
  for (unsigned k = 3; k > 0; --k) s *= 1.0 + 0.1 * x[k];
  return s;
}
CGP_GRAD(x)
CGP_JVP(x)
double constant_kernel(const double *x) { double c = 3.0; (void)x; return c * 2.0; }
CGP_GRAD(x)
CGP_JVP(x)
double forever(const double *x, int n) {
  double s = 1.0;
  int i = 0;
  for (;;) {
    if (i >= n) break;
    switch (i % 3) {
    case 0: s = s * x[i]; break;
    case 1: ++i; continue;
    default: s += std::exp(x[i] * 0.1);
    }
    i++;
  }
  while (true) {
    s *= 0.5;
    if (s < 0.1) break;
  }
  int j = 0;
  do {
    ++j;
    if (j == 2) continue;
    s += x[j] * s;
  } while (j < 3);
  return s;
}
#ifndef __CGP_AD__
#include "check.h"
int main() {
  {
    cgp_test::Checker c("unsigned");
    std::vector<double> &x = c.in("x", 6, -0.4, 0.9);
    c.primal([&] { return unsigned_idx(x.data(), 6); });
    c.grad([&](cgp_test::Grads &d) { return unsigned_idx_grad(x.data(), 6, d.f64("x")); });
    c.jvp([&](cgp_test::Tangents &t) { return unsigned_idx_jvp(x.data(), 6, t.f64("x")); });
    c.run();
  }
  {
    cgp_test::Checker c("constant");
    std::vector<double> &x = c.in("x", 2, -0.4, 0.9);
    c.primal([&] { return constant_kernel(x.data()); });
    c.grad([&](cgp_test::Grads &d) { return constant_kernel_grad(x.data(), d.f64("x")); });
    c.jvp([&](cgp_test::Tangents &t) { return constant_kernel_jvp(x.data(), t.f64("x")); });
    c.run();
  }
  {
    cgp_test::Checker c("forever");
    std::vector<double> &x = c.in("x", 7, 0.4, 0.9);
    c.primal([&] { return forever(x.data(), 7); });
    c.grad([&](cgp_test::Grads &d) { return forever_grad(x.data(), 7, d.f64("x")); });
    c.jvp([&](cgp_test::Tangents &t) { return forever_jvp(x.data(), 7, t.f64("x")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
