// A realistic kernel: one causal self-attention head. Local 2-D arrays
// (Q, K, V, scores), rows of local arrays and pointer offsets passed to a
// dot helper (dot(Q[t], K[u], d), dot(Wq + i * d, X + t * d, d)), continue
// for the causal mask, a max-shifted softmax with std::max, and sqrt of an
// int converted to double.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/attention_head.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/attention_head.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <algorithm>
#include <cgp/cgp.h>
#include <cmath>

double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

CGP_GRAD(Wq, Wk, Wv, X)
CGP_JVP(Wq, Wk, Wv, X)
double attention_loss(const double* Wq, const double* Wk, const double* Wv, const double* X, int T, int d) {
  double Q[6][4];
  double K[6][4];
  double V[6][4];
  double P[6][6];
  if (T > 6 || d > 4) return 0.0;
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < d; ++i) {
      Q[t][i] = dot(Wq + i * d, X + t * d, d);
      K[t][i] = dot(Wk + i * d, X + t * d, d);
      V[t][i] = dot(Wv + i * d, X + t * d, d);
    }
  const double inv_sqrt_d = 1.0 / std::sqrt((double)d);
  double loss = 0.0;
  for (int t = 0; t < T; ++t) {
    double m = -1e300;
    for (int u = 0; u < T; ++u) {
      if (u > t) continue;
      P[t][u] = dot(Q[t], K[u], d) * inv_sqrt_d;
      m = std::max(m, P[t][u]);
    }
    double z = 0.0;
    for (int u = 0; u <= t; ++u) {
      P[t][u] = std::exp(P[t][u] - m);
      z += P[t][u];
    }
    for (int i = 0; i < d; ++i) {
      double o = 0.0;
      for (int u = 0; u <= t; ++u) o += P[t][u] / z * V[u][i];
      loss += (o - 0.1 * i) * (o - 0.1 * i);
    }
  }
  return loss / T;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int T = 5, d = 3;
  cgp_test::Checker c("attention_loss T=5 d=3");
  std::vector<double>& Wq = c.in("Wq", d * d, -0.8, 0.8);
  std::vector<double>& Wk = c.in("Wk", d * d, -0.8, 0.8);
  std::vector<double>& Wv = c.in("Wv", d * d, -0.8, 0.8);
  std::vector<double>& X = c.in("X", T * d, -1.0, 1.0);
  c.primal([&] { return attention_loss(Wq.data(), Wk.data(), Wv.data(), X.data(), T, d); });
  c.grad([&](cgp_test::Grads& g) {
    return attention_loss_grad(Wq.data(), Wk.data(), Wv.data(), X.data(), T, d, g.f64("Wq"), g.f64("Wk"), g.f64("Wv"),
                               g.f64("X"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return attention_loss_jvp(Wq.data(), Wk.data(), Wv.data(), X.data(), T, d, t.f64("Wq"), t.f64("Wk"), t.f64("Wv"),
                               t.f64("X"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
