// Found by the fuzzer (tests/fuzz, seed 4257 of an earlier generator). A
// helper that writes through a pointer and returns a value computed from
// what it wrote, called with a local array the caller never reads again:
// cgp-ad stops with "internal error: pointer parameter 'y' of helper 'h'
// needs an adjoint its caller does not pass". The caller's activity analysis
// drops the local (nothing reads it after the call), but the helper's return
// value flows through y, so its reverse sweep needs d_y. (If the caller reads
// a[0] after the call, the kernel is accepted and its gradient is right.)
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_004_value_helper_writes_dead_local_array.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

static double store_and_return(double* y, const double* p) {
  y[0] = std::sin(p[0]);
  return y[0];
}

CGP_GRAD(x)
double dead_local(const double* x) {
  double a[2] = {};
  return store_and_return(a, x);
}

// The same scratch array reused by every iteration of a loop.
CGP_GRAD(x)
double dead_local_in_loop(const double* x, int n) {
  double scratch[1] = {};
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * store_and_return(scratch, x + i);
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker ch("dead_local");
  std::vector<double>& x = ch.in("x", {0.3});
  ch.primal([&] { return dead_local(x.data()); });
  ch.grad([&](cgp_test::Grads& d) { return dead_local_grad(x.data(), d.f64("x")); });
  ch.expect_grad("x", {std::cos(0.3)}, 1e-15);
  ch.run();

  cgp_test::Checker loop("dead_local_in_loop n=3");
  std::vector<double>& xs = loop.in("x", {0.3, -0.7, 1.1});
  loop.primal([&] { return dead_local_in_loop(xs.data(), 3); });
  loop.grad([&](cgp_test::Grads& d) { return dead_local_in_loop_grad(xs.data(), 3, d.f64("x")); });
  loop.run();
  return cgp_test::finish();
}
#endif
