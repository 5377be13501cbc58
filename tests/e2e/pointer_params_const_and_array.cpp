// Floating parameters as const pointer (const double*), const array
// (const double b[]), non-const array (double W[], only read: by the contract
// it is in/out, so d_W must come back as seed + gradient), an inactive
// const int* index array, and CGP_GRAD() (every floating parameter,
// including the scalar `scale`).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/pointer_params_const_and_array.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/pointer_params_const_and_array.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>

CGP_GRAD()
CGP_JVP()
double weighted_residual(const double* A, double W[], const double b[], double scale, const int* idx, int m,
                         int n) {
  double loss = 0.0;
  for (int i = 0; i < m; ++i) {
    double r = -b[i];
    for (int j = 0; j < n; ++j) r = r + A[i * n + j] * W[j];
    loss = loss + r * r;
  }
  double pick = W[idx[0]] * A[idx[1]];
  return scale * loss / m + pick * pick;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int m = 5, n = 4;
  cgp_test::Checker c("weighted_residual m=5 n=4");
  std::vector<double>& A = c.in("A", m * n, -1.0, 1.0);
  std::vector<double>& W = c.inout("W", n, -1.0, 1.0);
  std::vector<double>& b = c.in("b", m, -0.5, 0.5);
  double& scale = c.scalar("scale", 0.8);
  const int idx[2] = {2, 7};
  c.primal([&] { return weighted_residual(A.data(), W.data(), b.data(), scale, idx, m, n); });
  c.grad([&](cgp_test::Grads& d) {
    return weighted_residual_grad(A.data(), W.data(), b.data(), scale, idx, m, n, d.f64("A"), d.f64("W"), d.f64("b"),
                                  d.f64("scale"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return weighted_residual_jvp(A.data(), W.data(), b.data(), scale, idx, m, n, t.f64("A"), t.f64("W"), t.f64("b"),
                                  t.s64("scale"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
