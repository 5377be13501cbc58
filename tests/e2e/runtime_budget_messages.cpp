// CGP_MEMORY_BUDGET never goes unnoticed: a malformed value is reported on
// stderr (once, naming the variable), and a gradient built without
// --memory-budget that holds more than the variable allows says so once per
// process, with what to do; built with --memory-budget, the budget is kept
// and nothing is said.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t/plain -- -std=c++17
// RUN: %cxx %cxxflags %t/plain/runtime_budget_messages.cgp.cpp -o %t/plain/run %ldflags
// RUN: env CGP_MEMORY_BUDGET=banana %t/plain/run 2> %t/plain/banana.err
// RUN: FileCheck %s --check-prefix=MALFORMED < %t/plain/banana.err
// MALFORMED: cgp: CGP_MEMORY_BUDGET='banana' is not a size (64MiB, 512KiB, 1GiB or a number of bytes); ignored
// MALFORMED-NOT: CGP_MEMORY_BUDGET
// RUN: env CGP_MEMORY_BUDGET=1KiB %t/plain/run 2> %t/plain/small.err
// RUN: FileCheck %s --check-prefix=UNPLANNED < %t/plain/small.err
// UNPLANNED: cgp: a gradient held {{[0-9]+}} bytes of tape and snapshots, over CGP_MEMORY_BUDGET (1024 bytes): it was built without --memory-budget, so its loops were not planned to fit one; build it with --memory-budget=SIZE
// UNPLANNED-NOT: cgp:
// RUN: %cgpad --memory-budget=1MiB %s -o %t/budget -- -std=c++17
// RUN: %cxx %cxxflags %t/budget/runtime_budget_messages.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_MEMORY_BUDGET=4KiB %t/budget/run 2> %t/budget/kept.err
// RUN: FileCheck %s --allow-empty --check-prefix=KEPT < %t/budget/kept.err
// KEPT-NOT: cgp:
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x)
double trajectory(const double *x, int steps) {
  double s = x[0];
  for (int t = 0; t < steps; ++t)
    s = std::sin(s) * x[1] + 0.5 * s;
  return s;
}

#ifndef __CGP_AD__
#include <cstdio>
int main() {
  double x[2] = {0.3, 1.1};
  for (int call = 0; call < 3; ++call) { // said once, not per call
    double d[2] = {0.0, 0.0};
    trajectory_grad(x, 2000, d);
    if (!std::isfinite(d[0]) || !std::isfinite(d[1]))
      return 1;
  }
  return 0;
}
#endif
