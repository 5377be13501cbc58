// rnn.cpp - planner benchmark: a recurrence whose state is the caller's
// buffer, updated in place. An Elman RNN of 64 hidden units over 1000
// steps of 16 inputs: h (in and out) is overwritten at every step from
// the new state computed in a local array; loss = the mean of the last
// state. Gradient with respect to the weights and the initial state. Under
// a budget its snapshots hold the span of h the loop overwrites (all 64
// elements), worked out at the loop's entry. Built once per strategy by
// run.py.
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(h, W, U)
double rnn(double *h, const double *W, const double *U, const double *xs, int n, int m, int steps) {
  double next[64];
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < n; ++i) {
      double a = 0;
      for (int k = 0; k < m; ++k)
        a += U[i * m + k] * xs[t * m + k];
      for (int j = 0; j < n; ++j)
        a += W[i * n + j] * h[j];
      next[i] = std::tanh(a);
    }
    for (int i = 0; i < n; ++i)
      h[i] = next[i];
  }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += h[i];
  return s / n;
}

#ifndef __CGP_AD__
#include "bench_main.h"
int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 1000, n = 64, m = 16;
  std::vector<double> h0(n), h(n), W(n * n), U(n * m), xs(steps * m);
  std::vector<double> dh(n), dW(W.size()), dU(U.size());
  fill(h0, 0.5, 1);
  fill(W, 0.15, 2);
  fill(U, 0.3, 3);
  fill(xs, 1.0, 4);
  return report("rnn",
                [&] {
                  h = h0;
                  return rnn(h.data(), W.data(), U.data(), xs.data(), n, m, steps);
                },
                [&] {
                  h = h0;
                  zero(dh);
                  zero(dW);
                  zero(dU);
                  return rnn_grad(h.data(), W.data(), U.data(), xs.data(), n, m, steps, dh.data(),
                                  dW.data(), dU.data());
                },
                {&dh, &dW, &dU});
}
#endif
