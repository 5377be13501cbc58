// Two long loops one after the other, each checkpointed under a budget of
// 2 KiB. When the first one plans, the second one's tape is an estimate
// (100 iterations, the default, here several times the budget); reserving
// all of it left the first loop its minimum, one snapshot, and 498501
// replayed iterations for 1000 steps. The second loop fits itself into what
// it finds, so the first keeps it half the room at most: both get
// schedules with several snapshots. The gradients must be the same bits
// under every plan, and the budget must hold.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/two_loops_share_budget.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
// RUN: %cgpad --memory-budget=2KiB %s -o %t/budget -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/budget/two_loops_share_budget.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_DEBUG=1 %t/budget/run > %t/budget/log 2>&1
// RUN: FileCheck %s --check-prefix=SHARED < %t/budget/log
// Each CGP_DEBUG line names the gradient and the loop's line.
// SHARED: cgp-debug: encode_decode_grad: line 30: plan: loop of 1000 iterations: binomial checkpointing with {{[2-9]|[1-9][0-9]+}} snapshots
// SHARED-NEXT: cgp-debug: encode_decode_grad: line 33: plan: loop of 800 iterations: binomial checkpointing with {{[2-9]|[1-9][0-9]+}} snapshots
// SHARED-NOT: over the budget
// SHARED: SUMMARY: {{[0-9]+}} checks, 0 failed
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(w)
double encode_decode(const double* w, int T1, int T2) {
  double h[8];
  for (int i = 0; i < 8; ++i) h[i] = 0.1 * i;
  for (int t = 0; t < T1; ++t)
    for (int i = 0; i < 8; ++i) h[i] = std::tanh(w[i] * h[(i + 1) % 8] + 0.01 * t);
  double s = 0.0;
  for (int t = 0; t < T2; ++t) {
    for (int i = 0; i < 8; ++i) h[i] = std::sin(h[i] + 0.1 * w[(i + t) % 8]);
    s += h[t % 8];
  }
  return s / T2;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker c("encode_decode over 1000 and 800 steps");
  std::vector<double>& w = c.in("w", 8, -0.9, 0.9);
  c.primal([&] { return encode_decode(w.data(), 1000, 800); });
  c.grad([&](cgp_test::Grads& d) { return encode_decode_grad(w.data(), 1000, 800, d.f64("w")); });
  c.run();
  return cgp_test::finish();
}
#endif
