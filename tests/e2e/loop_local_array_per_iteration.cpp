// A known trap: local arrays (1-D and 2-D) declared INSIDE a loop body,
// filled with nonlinear values each iteration and read again later in the
// same iteration; the reverse sweep needs every iteration's contents, not
// the last one's. Token-wise gated projection + log-softmax over T tokens.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/loop_local_array_per_iteration.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/loop_local_array_per_iteration.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(W, x)
CGP_JVP(W, x)
double per_token_softmax(const double* W, const double* x, const int* target, int T, int d) {
  double loss = 0.0;
  if (d > 6) return 0.0;
  for (int t = 0; t < T; ++t) {
    double z[6];
    double g[6][2];
    double m = -1e300;
    for (int i = 0; i < d; ++i) {
      z[i] = 0.0;
      for (int j = 0; j < d; ++j) z[i] += W[i * d + j] * x[t * d + j];
      g[i][0] = std::tanh(z[i]);
      g[i][1] = 1.0 / (1.0 + std::exp(-z[i]));
      m = std::max(m, z[i]);
    }
    double e[6];
    double sum = 0.0;
    for (int i = 0; i < d; ++i) {
      e[i] = std::exp(g[i][0] * g[i][1] + z[i] - m);
      sum += e[i];
    }
    loss -= std::log(e[target[t]] / sum);
    for (int i = 0; i < d; ++i) loss += 0.01 * g[i][0] * g[i][0] * z[i];
  }
  return loss / T;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int T = 6, d = 4;
  cgp_test::Checker c("per_token_softmax T=6 d=4");
  std::vector<double>& W = c.in("W", d * d, -1.0, 1.0);
  std::vector<double>& x = c.in("x", T * d, -1.0, 1.0);
  std::vector<int> target(T);
  for (int t = 0; t < T; ++t) target[t] = (3 * t + 1) % d;
  c.primal([&] { return per_token_softmax(W.data(), x.data(), target.data(), T, d); });
  c.grad([&](cgp_test::Grads& dd) {
    return per_token_softmax_grad(W.data(), x.data(), target.data(), T, d, dd.f64("W"), dd.f64("x"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return per_token_softmax_jvp(W.data(), x.data(), target.data(), T, d, t.f64("W"), t.f64("x"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
