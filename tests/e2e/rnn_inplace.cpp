// A known trap: in-place RNN updates over a run-time sequence length T.
// rnn_inplace: the state h is an in/out parameter overwritten element by
// element every step (h[i] = tanh(...) while later rows still read h), so
// the reverse sweep needs every step's old values. rnn_loss: the state is a
// local array overwritten from a second local array every step, with a loss
// read at each step. Run for T = 1, 5 and 23.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/rnn_inplace.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/rnn_inplace.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(h, W, U)
CGP_JVP(h, W, U)
void rnn_inplace(double* h, const double* W, const double* U, const double* xs, int T, int n) {
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < n; ++i) {
      double a = U[i] * xs[t * n + i];
      for (int j = 0; j < n; ++j) a += W[i * n + j] * h[j];
      h[i] = std::tanh(a);
    }
  }
}

CGP_GRAD(W, U, h0)
CGP_JVP(W, U, h0)
double rnn_loss(const double* W, const double* U, const double* h0, const double* xs, const double* ys, int T, int n) {
  double h[8];
  double hn[8];
  if (n > 8) return 0.0;
  for (int i = 0; i < n; ++i) h[i] = h0[i];
  double loss = 0.0;
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < n; ++i) {
      double a = U[i] * xs[t * n + i];
      for (int j = 0; j < n; ++j) a += W[i * n + j] * h[j];
      hn[i] = std::tanh(a);
    }
    for (int i = 0; i < n; ++i) h[i] = hn[i];
    double e = h[0] - ys[t];
    loss += e * e;
  }
  return loss / T;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 4;
  const int Ts[3] = {1, 5, 23};
  for (int T : Ts) {
    cgp_test::Checker c("rnn_inplace (void, h in/out) T=" + std::to_string(T));
    std::vector<double>& h = c.inout("h", n, -0.8, 0.8);
    std::vector<double>& W = c.in("W", n * n, -0.7, 0.7);
    std::vector<double>& U = c.in("U", n, -1.0, 1.0);
    std::vector<double> xs = c.random_vector(T * n, -1.0, 1.0);
    c.primal_void([&] { rnn_inplace(h.data(), W.data(), U.data(), xs.data(), T, n); });
    c.grad_void([&](cgp_test::Grads& d) {
      rnn_inplace_grad(h.data(), W.data(), U.data(), xs.data(), T, n, d.f64("h"), d.f64("W"), d.f64("U"));
    });
    c.jvp_void([&](cgp_test::Tangents& t) {
      rnn_inplace_jvp(h.data(), W.data(), U.data(), xs.data(), T, n, t.f64("h"), t.f64("W"), t.f64("U"));
    });
    c.run();
  }
  for (int T : Ts) {
    cgp_test::Checker c("rnn_loss T=" + std::to_string(T));
    std::vector<double>& W = c.in("W", n * n, -0.7, 0.7);
    std::vector<double>& U = c.in("U", n, -1.0, 1.0);
    std::vector<double>& h0 = c.in("h0", n, -0.8, 0.8);
    std::vector<double> xs = c.random_vector(T * n, -1.0, 1.0);
    std::vector<double> ys = c.random_vector(T, -0.5, 0.5);
    c.primal([&] { return rnn_loss(W.data(), U.data(), h0.data(), xs.data(), ys.data(), T, n); });
    c.grad([&](cgp_test::Grads& d) {
      return rnn_loss_grad(W.data(), U.data(), h0.data(), xs.data(), ys.data(), T, n, d.f64("W"), d.f64("U"),
                           d.f64("h0"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return rnn_loss_jvp(W.data(), U.data(), h0.data(), xs.data(), ys.data(), T, n, t.f64("W"), t.f64("U"),
                           t.f64("h0"));
    });
    c.run();
  }
  return cgp_test::finish();
}
#endif
