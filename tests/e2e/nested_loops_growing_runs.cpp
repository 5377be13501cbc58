// Nested loops whose inner runs grow: the first items of a batch take a few
// inner iterations, the last one hundreds. A plan made from the first item
// would tape everything and leave the last no room; under a budget the
// outer loop keeps snapshots instead and reverses one item at a time, and
// the inner loop plans within what is left when it meets each item. Two
// shapes: a counted loop around a loop that stops on its data (online), and
// a while loop around a counted loop with a run-time trip count. The budget
// must hold and the gradients must be the same bits under every plan.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/nested_loops_growing_runs.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/nested_loops_growing_runs.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
// RUN: %cgpad --memory-budget=4KiB %s -o %t/budget -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/budget/nested_loops_growing_runs.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log 2>&1
// RUN: FileCheck %s --check-prefix=GROWING < %t/budget/log
// GROWING-DAG: loop of 4 iterations: binomial checkpointing {{.*}}; half the room left to the loops inside it
// GROWING-DAG: loop of unknown trip count: online checkpointing {{.*}}; half the room left to the loops inside it
// GROWING-NOT: over the budget
// GROWING: SUMMARY: {{[0-9]+}} checks, 0 failed
#include <cgp/cgp.h>
#include <cmath>

// Each item of the batch runs its state x until its horizon.
CGP_GRAD(w, x0)
CGP_JVP(w, x0)
double batch_until(const double* w, const double* x0, const double* horizon, int batch, int n) {
  double loss = 0.0;
  for (int b = 0; b < batch; ++b) {
    double x[4];
    for (int i = 0; i < n; ++i) x[i] = x0[i] * (1.0 + 0.1 * b);
    double time = 0.0;
    while (time < horizon[b]) {
      double y[4];
      for (int i = 0; i < n; ++i) y[i] = std::sin(w[i] * x[(i + 1) % n]) + 0.5 * x[i];
      for (int i = 0; i < n; ++i) x[i] = y[i];
      time += 0.25;
    }
    for (int i = 0; i < n; ++i) loss += x[i] * x[i] * (1.0 + 0.5 * b);
  }
  return loss;
}

// Chunks of a signal, each folded by a recurrence of its own length.
CGP_GRAD(a, decay)
double chunked_recurrence(const double* a, const int* sizes, int chunks, double decay) {
  double total = 0.0;
  int c = 0;
  int offset = 0;
  while (c < chunks) {
    double s = 0.0;
    for (int k = 0; k < sizes[c]; ++k) s = std::tanh(decay * s + a[offset + k]);
    total += s * s * (c + 1);
    offset += sizes[c];
    ++c;
  }
  return total;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  {
    const int n = 4, batch = 4;
    const double horizon[batch] = {0.5, 0.75, 1.0, 60.0}; // 2, 3, 4 and 240 steps
    cgp_test::Checker c("batch_until over horizons of 2, 3, 4 and 240 steps");
    std::vector<double>& w = c.in("w", n, -1.2, 1.2);
    std::vector<double>& x0 = c.in("x0", n, -0.8, 0.8);
    c.primal([&] { return batch_until(w.data(), x0.data(), horizon, batch, n); });
    c.grad([&](cgp_test::Grads& d) {
      return batch_until_grad(w.data(), x0.data(), horizon, batch, n, d.f64("w"), d.f64("x0"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return batch_until_jvp(w.data(), x0.data(), horizon, batch, n, t.f64("w"), t.f64("x0"));
    });
    c.run();
  }
  {
    const int chunks = 4;
    const int sizes[chunks] = {2, 3, 2, 500};
    cgp_test::Checker c("chunked_recurrence over chunks of 2, 3, 2 and 500 values");
    std::vector<double>& a = c.in("a", 507, -0.9, 0.9);
    double& decay = c.scalar("decay", 0.7);
    c.primal([&] { return chunked_recurrence(a.data(), sizes, chunks, decay); });
    c.grad([&](cgp_test::Grads& d) {
      return chunked_recurrence_grad(a.data(), sizes, chunks, decay, d.f64("a"), d.f64("decay"));
    });
    c.run();
  }
  return cgp_test::finish();
}
#endif
