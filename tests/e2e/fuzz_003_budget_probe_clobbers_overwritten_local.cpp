// Found by the fuzzer (tests/fuzz, seeds 2082, 2833, 2911 of an earlier
// generator). With --memory-budget, a loop of two or more iterations (a
// run-time or a constant bound) first runs one probe iteration to measure
// its tape, then restores a snapshot of "its state". The snapshot leaves out
// a scalar the loop overwrites without reading it first ('t' below), so the
// probe clobbers it: the first real iteration tapes the probe's value
// instead of the value from before the loop, and the reverse sweep of the
// code before the loop (sin(t)) differentiates at the wrong point. The
// gradient is wrong under --memory-budget (whatever CGP_MEMORY_BUDGET says)
// and right without it. Array elements overwritten the same way are fine.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --memory-budget=1GiB %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_003_budget_probe_clobbers_overwritten_local.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(c)
double overwritten_in_loop(double c, int n) {
  double t = c * c;
  double r = std::sin(t);
  for (int i = 0; i < n; ++i) {
    t = std::atan(c);
  }
  return r + t;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker ch("overwritten_in_loop n=4");
  double& c = ch.scalar("c", -0.558);
  ch.primal([&] { return overwritten_in_loop(c, 4); });
  ch.grad([&](cgp_test::Grads& d) { return overwritten_in_loop_grad(c, 4, d.f64("c")); });
  // d/dc [sin(c^2) + atan(c)]
  ch.expect_grad("c", {std::cos(0.558 * 0.558) * 2 * -0.558 + 1 / (1 + 0.558 * 0.558)}, 1e-12);
  ch.run();
  return cgp_test::finish();
}
#endif
