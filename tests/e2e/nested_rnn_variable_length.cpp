// Nested loops that each plan their reversal: a batch of sequences of
// different lengths (lengths[b], known only at run time), each run through
// an RNN whose state h is a local array declared in the batch loop's body.
// One sequence's tape (about 160 bytes per step) is far above a 2 KiB
// budget, so under it the batch loop keeps snapshots of its own state and
// leaves half the room to the time loop inside, which checkpoints each
// sequence on its own binomial schedule; under 64 KiB everything is taped.
// The gradients must be the same bits under every plan.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/nested_rnn_variable_length.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/nested_rnn_variable_length.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
// RUN: %cgpad --memory-budget=2KiB %s -o %t/budget -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/budget/nested_rnn_variable_length.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log 2>&1
// RUN: FileCheck %s --check-prefix=NESTED < %t/budget/log
// NESTED: binomial checkpointing {{.*}}; half the room left to the loops inside it
// NESTED: loop of {{[0-9]+}} iterations: binomial checkpointing with {{[0-9]+}} snapshots
// NESTED-NOT: over the budget
// NESTED: SUMMARY: {{[0-9]+}} checks, 0 failed
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(W, U, x)
CGP_JVP(W, U, x)
double batch_rnn(const double* W, const double* U, const double* x, const int* lengths,
                 int batch, int n) {
  double loss = 0.0;
  int offset = 0;
  for (int b = 0; b < batch; ++b) {
    double h[6];
    for (int i = 0; i < n; ++i) h[i] = 0.1 * (i + 1);
    for (int t = 0; t < lengths[b]; ++t) {
      double z[6];
      for (int i = 0; i < n; ++i) {
        double a = U[i] * x[offset + t];
        for (int j = 0; j < n; ++j) a += W[i * n + j] * h[j];
        z[i] = a;
      }
      for (int i = 0; i < n; ++i) h[i] = std::tanh(z[i]);
    }
    offset += lengths[b];
    for (int i = 0; i < n; ++i) loss += h[i] * h[i] * (1.0 + 0.25 * b);
  }
  return loss;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 6, batch = 4;
  const int lengths[batch] = {37, 120, 5, 64};
  int total = 0;
  for (int b = 0; b < batch; ++b) total += lengths[b];
  cgp_test::Checker c("batch_rnn over sequences of 37, 120, 5 and 64 steps");
  std::vector<double>& W = c.in("W", n * n, -0.45, 0.45);
  std::vector<double>& U = c.in("U", n, -1.0, 1.0);
  std::vector<double>& x = c.in("x", total, -1.0, 1.0);
  c.primal([&] { return batch_rnn(W.data(), U.data(), x.data(), lengths, batch, n); });
  c.grad([&](cgp_test::Grads& d) {
    return batch_rnn_grad(W.data(), U.data(), x.data(), lengths, batch, n, d.f64("W"), d.f64("U"),
                          d.f64("x"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return batch_rnn_jvp(W.data(), U.data(), x.data(), lengths, batch, n, t.f64("W"), t.f64("U"),
                         t.f64("x"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
