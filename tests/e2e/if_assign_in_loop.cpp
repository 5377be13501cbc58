// A known trap: locals assigned in the arms of an if / else if / else inside
// a loop (activation value and slope chosen by the sign of a data value),
// with the carried state overwritten every iteration; the reverse sweep
// needs each iteration's branch and values.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/if_assign_in_loop.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/if_assign_in_loop.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(w, x0)
CGP_JVP(w, x0)
double leaky_chain(const double* w, double x0, int T) {
  double x = x0;
  double prod = 1.0;
  for (int t = 0; t < T; ++t) {
    double z = w[t] * x + 0.1;
    double a;
    double slope;
    if (z > 0.0) {
      a = z;
      slope = 1.0 + 0.1 * z;
    } else if (z > -1.0) {
      a = 0.1 * z;
      slope = 0.1 + z * z;
    } else {
      a = std::tanh(z);
      slope = 0.5;
    }
    x = a + 0.5 * std::sin(x);
    prod *= slope;
  }
  return x + prod;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const double x0s[2] = {0.3, -1.4};
  for (double xs : x0s) {
    const int T = 20;
    cgp_test::Checker c("leaky_chain T=20 x0=" + std::to_string(xs));
    std::vector<double>& w = c.in("w", T, -2.5, 2.5);
    double& x0 = c.scalar("x0", xs);
    c.primal([&] { return leaky_chain(w.data(), x0, T); });
    c.grad([&](cgp_test::Grads& d) { return leaky_chain_grad(w.data(), x0, T, d.f64("w"), d.f64("x0")); });
    c.jvp([&](cgp_test::Tangents& t) { return leaky_chain_jvp(w.data(), x0, T, t.f64("w"), t.s64("x0")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
