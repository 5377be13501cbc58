// A counted loop that leaves by `break` when a damped oscillator's energy
// falls below a tolerance, from a start index known only at run time, with
// the index read in the body: its trip count is known only when it ends.
// Under a memory budget it is checkpointed online (each replayed or taped
// iteration rebuilds its index from its number). Run once where the loop
// breaks (after about 900 iterations, 20 KiB of tape) and once where it
// reaches its limit; the gradients must be the same bits under every plan.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/counted_loop_break_online.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/counted_loop_break_online.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
// RUN: %cgpad --memory-budget=2KiB %s -o %t/budget -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/budget/counted_loop_break_online.cgp.cpp -o %t/budget/run %ldflags
// RUN: env CGP_DEBUG=1 CGP_STATS=1 %t/budget/run > %t/budget/log 2>&1
// RUN: FileCheck %s --check-prefix=ONLINE < %t/budget/log
// ONLINE: loop of unknown trip count: online checkpointing
// ONLINE-NOT: over the budget
// ONLINE: SUMMARY: {{[0-9]+}} checks, 0 failed
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(p)
CGP_JVP(p)
double ring_down(const double* p, int first, int maxit, double tol) {
  double x = 1.0, v = 0.0;
  for (int it = first; it < maxit; ++it) {
    double a = -p[0] * x - p[1] * v + 0.002 * std::sin(0.1 * it);
    v += 0.05 * a;
    x += 0.05 * v;
    if (x * x + v * v < tol)
      break;
  }
  return x + 2.0 * v;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int limits[2] = {2000, 300};
  for (int maxit : limits) {
    cgp_test::Checker c("ring_down maxit=" + std::to_string(maxit));
    std::vector<double>& p = c.in("p", std::vector<double>{1.0, 0.05});
    c.primal([&] { return ring_down(p.data(), 2, maxit, 0.1); });
    c.grad([&](cgp_test::Grads& d) { return ring_down_grad(p.data(), 2, maxit, 0.1, d.f64("p")); });
    c.jvp([&](cgp_test::Tangents& t) { return ring_down_jvp(p.data(), 2, maxit, 0.1, t.f64("p")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
