// A known trap: mixture-of-experts routing that branches on the data. For
// each token the gate scores every expert, keeps the argmax (an int chosen
// by comparisons of active values), and applies only that expert, scaled by
// its softmax probability; the chosen index must be replayed in reverse.
// Inputs are checked to keep the top-2 score gap clear of the FD step.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/moe_argmax_gate.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/moe_argmax_gate.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(G, E, x)
CGP_JVP(G, E, x)
double moe_forward(const double* G, const double* E, const double* x, int T, int d, int nexp) {
  double loss = 0.0;
  if (nexp > 8) return 0.0;
  for (int t = 0; t < T; ++t) {
    double scores[8];
    int best = 0;
    double best_score = -1e300;
    for (int e = 0; e < nexp; ++e) {
      double s = 0.0;
      for (int j = 0; j < d; ++j) s += G[e * d + j] * x[t * d + j];
      scores[e] = s;
      if (s > best_score) {
        best_score = s;
        best = e;
      }
    }
    double z = 0.0;
    for (int e = 0; e < nexp; ++e) z += std::exp(scores[e] - best_score);
    const double gate = 1.0 / z;
    for (int i = 0; i < d; ++i) {
      double y = 0.0;
      for (int j = 0; j < d; ++j) y += E[(best * d + i) * d + j] * x[t * d + j];
      y = gate * std::tanh(y);
      loss += y * y * (i + 1);
    }
  }
  return loss / T;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int T = 8, d = 3, nexp = 4;
  cgp_test::Checker c("moe_forward T=8 d=3 experts=4");
  std::vector<double>& G = c.in("G", nexp * d, -1.0, 1.0);
  std::vector<double>& E = c.in("E", nexp * d * d, -1.0, 1.0);
  std::vector<double>& x = c.in("x", T * d, -1.0, 1.0);
  // the test's own precondition: a clear winner for every token, and every expert used at least once
  double min_gap = 1e300;
  std::vector<int> used(nexp, 0);
  for (int t = 0; t < T; ++t) {
    double b1 = -1e300, b2 = -1e300;
    int arg = 0;
    for (int e = 0; e < nexp; ++e) {
      double s = 0.0;
      for (int j = 0; j < d; ++j) s += G[e * d + j] * x[t * d + j];
      if (s > b1) {
        b2 = b1;
        b1 = s;
        arg = e;
      } else if (s > b2) {
        b2 = s;
      }
    }
    used[arg] = 1;
    min_gap = std::min(min_gap, b1 - b2);
  }
  int experts_used = 0;
  for (int u : used) experts_used += u;
  std::printf("  note: smallest top-2 gap %.3g, experts used %d of %d\n", min_gap, experts_used, nexp);
  if (!(min_gap > 1e-3) || experts_used < 3) {
    std::printf("  FAIL  test inputs: routing too close to a tie or too few experts used\n");
    return 1;
  }
  c.primal([&] { return moe_forward(G.data(), E.data(), x.data(), T, d, nexp); });
  c.grad([&](cgp_test::Grads& dd) {
    return moe_forward_grad(G.data(), E.data(), x.data(), T, d, nexp, dd.f64("G"), dd.f64("E"), dd.f64("x"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return moe_forward_jvp(G.data(), E.data(), x.data(), T, d, nexp, t.f64("G"), t.f64("E"), t.f64("x"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
