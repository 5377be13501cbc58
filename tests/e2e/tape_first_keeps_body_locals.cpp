// A loop whose iterations tape unevenly (an arm every 9th step overwrites a
// local array and a scalar) and whose body tapes old values of variables
// declared in it (`u`, `v`), which its snapshots leave out. Under a budget
// the runtime tapes the first iterations while they fit, then checkpoints
// the rest; where the taped ones end a Keep action pushes `u` and `v`, and
// the reverse sweep pops them back before reversing those iterations (the
// reverse of the last of them reads them). Without the Keep actions the
// gradient was wrong whenever the loop switched. Under 8 KiB it switches
// (the whole tape is about 10 KiB; 35 KiB if every step took the arm); the
// gradients must be the same bits under every plan and budget.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/tape_first_keeps_body_locals.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
// RUN: %cgpad --memory-budget=1GiB %s -o %t/budget -- -std=c++17
// RUN: FileCheck %s --check-prefix=CODE < %t/budget/tape_first_keeps_body_locals.cgp.cpp
// The plan call's last arguments: what iterations tape, and the 72 bytes
// (`u` and `v`) a Keep action pushes, kept out of the rest's room.
// CODE: cgp::rt::IterationTapes::UnevenlyKeepingLocals, 72.0);
// CODE: } else if (t_action.isKeep()) {
// CODE: cgp_tape.push(u);
// CODE-NEXT: cgp_tape.push(v);
// CODE: } else if (t_action.isKeep()) {
// CODE: cgp_tape.pop(v);
// CODE-NEXT: u = cgp_tape.pop<double>();
// RUN: %cxx %cxxflags %harness %t/budget/tape_first_keeps_body_locals.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_MEMORY_BUDGET=8192 CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log-8k 2>&1
// RUN: FileCheck %s --check-prefix=SWITCH < %t/budget/log-8k
// SWITCH: loop of 400 iterations: tape iterations while they fit
// SWITCH: loop of 400 iterations: the first {{[0-9]+}} taped ({{[0-9]+}} bytes), then binomial checkpointing of the rest
// SWITCH-NOT: over the budget
// SWITCH: SUMMARY: {{[0-9]+}} checks, 0 failed
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x)
double keeps_local(const double* x, int n) {
  double s = 0.1;
  for (int t = 0; t < n; ++t) {
    double u = std::sin(s + x[t]);
    if (t % 9 == 8) {
      double v[8];
      for (int i = 0; i < 8; ++i) v[i] = u * x[(t + i) % n];
      u = 0.0;
      for (int i = 0; i < 8; ++i) u += std::tanh(v[i]);
    }
    s = s * 0.5 + std::cos(u);
  }
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 400;
  cgp_test::Checker c("keeps_local over 400 steps, an arm every 9th");
  std::vector<double>& x = c.in("x", n, -1.0, 1.0);
  c.primal([&] { return keeps_local(x.data(), n); });
  c.grad([&](cgp_test::Grads& d) { return keeps_local_grad(x.data(), n, d.f64("x")); });
  c.run();
  return cgp_test::finish();
}
#endif
