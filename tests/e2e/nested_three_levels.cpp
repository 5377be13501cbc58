// Three nested loops whose runs differ in length, each planning its
// reversal: passes over a growing part of a batch (pass p takes the first
// items[p] sequences), each sequence (its length known only at run time)
// run through an RNN, and a value carried from one sequence to the next
// and from one pass to the next. Under a small budget the pass loop and the
// batch loop keep snapshots and leave room to the loops inside them, and
// the time loop checkpoints each sequence on its own schedule. The loops
// over the hidden units run alike at every step: they are left to the
// loops around them. The budget must hold, and the gradients must be the
// same bits under every plan.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/nested_three_levels.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/nested_three_levels.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
// RUN: %cgpad --memory-budget=4KiB --explain %s -o %t/budget -- -std=c++17 > %t/explain
// RUN: FileCheck %s --check-prefix=PLAN < %t/explain
// RUN: %cxx %cxxflags %harness %t/budget/nested_three_levels.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log 2>&1
// RUN: FileCheck %s --check-prefix=THREE < %t/budget/log
// PLAN: loop over p ({{.*}}): tape every iteration if that fits the memory budget, else binomial checkpointing
// PLAN: loop over b ({{.*}}): tape every iteration if that fits the memory budget, else binomial checkpointing
// PLAN-NEXT: chosen at run time, at each run of the loop around it
// PLAN: loop over t ({{.*}}): tape every iteration if that fits the memory budget, else binomial checkpointing
// PLAN-NEXT: chosen at run time, at each run of the loop around it
// PLAN: loop over i ({{.*}}trip count known at run time{{.*}}): tape every iteration
// PLAN-NEXT: its trip count is the same at every iteration of the loop around it: the loops around it plan for all of it
// THREE-DAG: loop of 3 iterations: binomial checkpointing {{.*}}; half the room left to the loops inside it
// THREE-DAG: loop of 4 iterations: binomial checkpointing {{.*}}; half the room left to the loops inside it
// THREE-DAG: loop of 120 iterations: binomial checkpointing with {{[0-9]+}} snapshots
// THREE-NOT: over the budget
// THREE: SUMMARY: {{[0-9]+}} checks, 0 failed
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(W, U, x)
CGP_JVP(W, U, x)
double passes_rnn(const double* W, const double* U, const double* x, const int* lengths,
                  const int* items, int passes, int n) {
  double loss = 0.0;
  double carry = 0.0;
  for (int p = 0; p < passes; ++p) {
    int offset = 0;
    for (int b = 0; b < items[p]; ++b) {
      double h[6];
      for (int i = 0; i < 6; ++i) h[i] = 0.1 * (i + 1) + 0.05 * carry;
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
      for (int i = 0; i < n; ++i) loss += h[i] * h[i] * (1.0 + 0.25 * b + 0.1 * p);
      carry = std::sin(h[0] + carry);
    }
  }
  return loss + carry;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 6, batch = 4, passes = 3;
  const int lengths[batch] = {37, 120, 5, 64};
  const int items[passes] = {2, 4, 3};
  int total = 0;
  for (int b = 0; b < batch; ++b) total += lengths[b];
  cgp_test::Checker c("passes_rnn: passes over the first 2, 4 and 3 of sequences of 37, 120, 5 and 64 steps");
  std::vector<double>& W = c.in("W", n * n, -0.45, 0.45);
  std::vector<double>& U = c.in("U", n, -1.0, 1.0);
  std::vector<double>& x = c.in("x", total, -1.0, 1.0);
  c.primal([&] { return passes_rnn(W.data(), U.data(), x.data(), lengths, items, passes, n); });
  c.grad([&](cgp_test::Grads& d) {
    return passes_rnn_grad(W.data(), U.data(), x.data(), lengths, items, passes, n, d.f64("W"),
                           d.f64("U"), d.f64("x"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return passes_rnn_jvp(W.data(), U.data(), x.data(), lengths, items, passes, n, t.f64("W"),
                          t.f64("U"), t.f64("x"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
