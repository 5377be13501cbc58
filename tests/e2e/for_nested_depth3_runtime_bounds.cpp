// for loops nested three deep with bounds known only at run time (int
// parameters), continue and break in the innermost loop (padding of a
// multi-channel 1-D convolution), and an index computed from all three
// counters; run for two shapes.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/for_nested_depth3_runtime_bounds.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/for_nested_depth3_runtime_bounds.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, k)
CGP_JVP(x, k)
double conv1d_multi(const double* x, const double* k, int C, int L, int K) {
  double loss = 0.0;
  for (int c = 0; c < C; ++c) {
    for (int i = 0; i < L; ++i) {
      double acc = 0.0;
      for (int j = 0; j < K; ++j) {
        int p = i + j - K / 2;
        if (p < 0) continue;
        if (p >= L) break;
        acc += k[c * K + j] * x[c * L + p];
      }
      loss += std::tanh(acc) * (1.0 + 0.1 * c);
    }
  }
  return loss;
}

#ifndef __CGP_AD__
#include "check.h"

static void shape(int C, int L, int K) {
  cgp_test::Checker c("conv1d_multi C=" + std::to_string(C) + " L=" + std::to_string(L) + " K=" + std::to_string(K));
  std::vector<double>& x = c.in("x", C * L, -1.0, 1.0);
  std::vector<double>& k = c.in("k", C * K, -0.8, 0.8);
  c.primal([&] { return conv1d_multi(x.data(), k.data(), C, L, K); });
  c.grad([&](cgp_test::Grads& d) { return conv1d_multi_grad(x.data(), k.data(), C, L, K, d.f64("x"), d.f64("k")); });
  c.jvp([&](cgp_test::Tangents& t) { return conv1d_multi_jvp(x.data(), k.data(), C, L, K, t.f64("x"), t.f64("k")); });
  c.run();
}

int main() {
  shape(2, 7, 3);
  shape(3, 5, 4);
  return cgp_test::finish();
}
#endif
