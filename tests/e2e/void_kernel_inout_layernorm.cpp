// void kernels with an in/out buffer: in-place layer norm (every entry of x
// is read, then overwritten), and a row-wise version calling a helper on
// pointer offsets of the in/out buffer (X + r * n). d_x holds the seed on
// entry and must hold the adjoint of the entry values on exit.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/void_kernel_inout_layernorm.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/void_kernel_inout_layernorm.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, g, b)
CGP_JVP(x, g, b)
void layernorm_inplace(double* x, const double* g, const double* b, int n) {
  double mean = 0.0;
  for (int i = 0; i < n; ++i) mean += x[i];
  mean /= n;
  double var = 0.0;
  for (int i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  var /= n;
  const double inv = 1.0 / std::sqrt(var + 1e-5);
  for (int i = 0; i < n; ++i) x[i] = g[i] * (x[i] - mean) * inv + b[i];
}

void norm_row(double* row, const double* g, int n) {
  double ss = 0.0;
  for (int i = 0; i < n; ++i) ss += row[i] * row[i];
  const double scale = 1.0 / std::sqrt(ss / n + 1e-3);
  for (int i = 0; i < n; ++i) row[i] = row[i] * scale * g[i];
}

CGP_GRAD(X, g)
CGP_JVP(X, g)
void rms_norm_rows(double* X, const double* g, int rows, int n) {
  for (int r = 0; r < rows; ++r) norm_row(X + r * n, g, n);
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  {
    const int n = 6;
    cgp_test::Checker c("layernorm_inplace n=6");
    std::vector<double>& x = c.inout("x", n, -2.0, 2.0);
    std::vector<double>& g = c.in("g", n, 0.5, 1.5);
    std::vector<double>& b = c.in("b", n, -0.5, 0.5);
    c.primal_void([&] { layernorm_inplace(x.data(), g.data(), b.data(), n); });
    c.grad_void([&](cgp_test::Grads& d) {
      layernorm_inplace_grad(x.data(), g.data(), b.data(), n, d.f64("x"), d.f64("g"), d.f64("b"));
    });
    c.jvp_void([&](cgp_test::Tangents& t) {
      layernorm_inplace_jvp(x.data(), g.data(), b.data(), n, t.f64("x"), t.f64("g"), t.f64("b"));
    });
    c.run();
  }
  {
    const int rows = 3, n = 4;
    cgp_test::Checker c("rms_norm_rows rows=3 n=4");
    std::vector<double>& X = c.inout("X", rows * n, -2.0, 2.0);
    std::vector<double>& g = c.in("g", n, 0.5, 1.5);
    c.primal_void([&] { rms_norm_rows(X.data(), g.data(), rows, n); });
    c.grad_void([&](cgp_test::Grads& d) { rms_norm_rows_grad(X.data(), g.data(), rows, n, d.f64("X"), d.f64("g")); });
    c.jvp_void([&](cgp_test::Tangents& t) { rms_norm_rows_jvp(X.data(), g.data(), rows, n, t.f64("X"), t.f64("g")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
