// Loops whose iterations tape different amounts by the branches they take,
// under memory budgets: every k-th step overwrites a whole array (16 old
// values to keep), the others one scalar; a loop that stops on its data
// takes a costlier arm when its input is positive. Iteration 0 takes the
// cheap arm, so a plan from a probe of it would tape segments several
// times the budget; the plan takes the most one iteration can tape instead
// (transform/TapeBound.cpp). At run time the counted loop tapes its first
// iterations while they fit, and plans the rest in the room they leave:
// under 16 KiB its whole tape (about 7.7 KiB; 38 KiB if every step took
// the costly arm) fits and none of it runs again; under 8 KiB the first
// iterations are taped and the rest checkpointed. The budgets must hold,
// and the gradients must be the same bits under every plan.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/branchy_loop_budget.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
// RUN: %cgpad --memory-budget=1GiB %s -o %t/budget -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/budget/branchy_loop_budget.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_MEMORY_BUDGET=1024 CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log-1k 2>&1
// RUN: FileCheck %s --check-prefix=HELD < %t/budget/log-1k
// RUN: env CGP_MEMORY_BUDGET=4096 CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log-4k 2>&1
// RUN: FileCheck %s --check-prefix=HELD < %t/budget/log-4k
// HELD: binomial checkpointing
// HELD: online checkpointing
// HELD-NOT: over the budget
// HELD: SUMMARY: {{[0-9]+}} checks, 0 failed
// RUN: env CGP_MEMORY_BUDGET=8192 CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log-8k 2>&1
// RUN: FileCheck %s --check-prefix=SWITCH < %t/budget/log-8k
// SWITCH: loop of 300 iterations: tape iterations while they fit
// SWITCH: loop of 300 iterations: the first {{[0-9]+}} taped ({{[0-9]+}} bytes), then binomial checkpointing of the rest
// SWITCH-NOT: over the budget
// SWITCH: SUMMARY: {{[0-9]+}} checks, 0 failed
// RUN: env CGP_MEMORY_BUDGET=16384 CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log-16k 2>&1
// RUN: FileCheck %s --check-prefix=WHOLE < %t/budget/log-16k
// WHOLE: loop of 300 iterations: tape iterations while they fit
// WHOLE-NOT: the first {{[0-9]+}} taped
// WHOLE-NOT: over the budget
// WHOLE: SUMMARY: {{[0-9]+}} checks, 0 failed
// Nothing of the counted loop runs again; the while loop, planned online,
// runs its 43 iterations untaped and then taped in each of the three
// gradient calls (online loops do not tape first): 129.
// WHOLE: "calls": 6, "retraces": 0, "recomputed_iterations": 129, "kernels"
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x)
CGP_JVP(x)
double every_kth(const double* x, int n, int k) {
  double s = 0.0;
  double a[16];
  for (int i = 0; i < 16; ++i) a[i] = 0.1 * i;
  for (int t = 0; t < n; ++t) {
    if (t % k == k - 1) {
      for (int i = 0; i < 16; ++i) a[i] = std::sin(a[i] + x[t]);
    } else {
      s = std::cos(s) * 0.9 + x[t] * a[t % 16];
    }
  }
  return s + a[3];
}

CGP_GRAD(x)
double until_small(const double* x, int m, double eps) {
  double v = 1.0, w = 0.0;
  double acc[8] = {};
  int it = 0;
  while (v > eps) {
    if (x[it % m] > 0.0) {
      v = v * (0.75 + 0.1 * x[it % m]);
      for (int j = 0; j < 8; ++j) acc[j] = std::tanh(acc[j] + w * x[(it + j) % m]);
      w = std::sin(w + v);
    } else {
      v = v * 0.5;
    }
    ++it;
  }
  double r = v + w;
  for (int j = 0; j < 8; ++j) r += acc[j];
  return r;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  {
    const int n = 300, k = 7;
    cgp_test::Checker c("every_kth over 300 steps, the costly arm every 7th");
    std::vector<double>& x = c.in("x", n, -1.0, 1.0);
    c.primal([&] { return every_kth(x.data(), n, k); });
    c.grad([&](cgp_test::Grads& d) { return every_kth_grad(x.data(), n, k, d.f64("x")); });
    c.jvp([&](cgp_test::Tangents& t) { return every_kth_jvp(x.data(), n, k, t.f64("x")); });
    c.run();
  }
  {
    const int m = 16;
    cgp_test::Checker c("until_small, a costlier arm on positive inputs");
    std::vector<double>& x = c.in("x", m, -1.0, 1.0);
    x[0] = -0.5; // iteration 0 takes the cheap arm
    c.primal([&] { return until_small(x.data(), m, 1e-9); });
    c.grad([&](cgp_test::Grads& d) { return until_small_grad(x.data(), m, 1e-9, d.f64("x")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
