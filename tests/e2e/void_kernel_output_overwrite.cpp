// void kernel with two in/out outputs of different kinds: y is overwritten
// without being read (its d_ must come back zero), acc is read-modify-write
// (acc[i] += ...; acc[i] *= ...) and reads y back after writing it.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/void_kernel_output_overwrite.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/void_kernel_output_overwrite.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(y, acc, x, W)
CGP_JVP(y, acc, x, W)
void project_and_accumulate(double* y, double* acc, const double* x, const double* W, int m, int n) {
  for (int i = 0; i < m; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += W[i * n + j] * x[j];
    y[i] = std::tanh(s);
    acc[i] += y[i] * y[i];
    acc[i] *= 0.9 + 0.1 * x[i % n];
  }
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int m = 4, n = 3;
  {
    cgp_test::Checker c("project_and_accumulate (y out-only, acc in/out)");
    std::vector<double>& y = c.inout("y", m, -1.0, 1.0);
    std::vector<double>& acc = c.inout("acc", m, -1.0, 1.0);
    std::vector<double>& x = c.in("x", n, -1.0, 1.0);
    std::vector<double>& W = c.in("W", m * n, -1.0, 1.0);
    c.primal_void([&] { project_and_accumulate(y.data(), acc.data(), x.data(), W.data(), m, n); });
    c.grad_void([&](cgp_test::Grads& d) {
      project_and_accumulate_grad(y.data(), acc.data(), x.data(), W.data(), m, n, d.f64("y"), d.f64("acc"),
                                  d.f64("x"), d.f64("W"));
    });
    c.jvp_void([&](cgp_test::Tangents& t) {
      project_and_accumulate_jvp(y.data(), acc.data(), x.data(), W.data(), m, n, t.f64("y"), t.f64("acc"),
                                  t.f64("x"), t.f64("W"));
    });
    c.expect_grad("y", std::vector<double>(m, 0.0), 0.0);
    c.run();
  }
  return cgp_test::finish();
}
#endif
