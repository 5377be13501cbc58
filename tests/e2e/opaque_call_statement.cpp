// A kernel that calls a function without a visible body for its effects,
// with inactive arguments only (a logger, a counter): allowed (interface.md
// section 1), kept in the forward sweep, run once per forward iteration, and
// not repeated by the reverse sweep. cgp-ad 0.1 crashed on it (the activity
// analysis took the call for an assignment). Under a memory budget the loop
// is taped, not checkpointed: a replay would repeat the effect.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/opaque_call_statement.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

void count_visit(int i); // defined where cgp-ad does not look

CGP_GRAD(x)
CGP_JVP(x)
double logged_sum(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    count_visit(i);
    s += std::sin(x[i]) * s + x[i];
  }
  count_visit(-1);
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

static int visits = 0;
void count_visit(int) { ++visits; }

int main() {
  std::vector<double> x0{0.3, -0.8, 1.2, 0.5};
  visits = 0;
  std::vector<double> d(4, 0.0);
  logged_sum_grad(x0.data(), 4, d.data());
  if (visits != 5) {
    std::printf("FAIL: the gradient called count_visit %d times, expected 5\n", visits);
    return 1;
  }
  cgp_test::Checker c("logged_sum");
  std::vector<double>& x = c.in("x", x0);
  c.primal([&] { return logged_sum(x.data(), 4); });
  c.grad([&](cgp_test::Grads& g) { return logged_sum_grad(x.data(), 4, g.f64("x")); });
  c.jvp([&](cgp_test::Tangents& t) { return logged_sum_jvp(x.data(), 4, t.f64("x")); });
  c.run();
  return cgp_test::finish();
}
#endif
