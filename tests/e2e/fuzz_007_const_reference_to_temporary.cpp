// Found by the fuzzer (tests/fuzz, the generator with reference
// parameters). A `const double&` argument that is an expression reading a
// variable the same call takes by non-const reference (`g(t, 2.0 * t)`)
// binds to a temporary, so the callee cannot change it; cgp-ad refused it
// ("passes 't' by const reference to 'g', which may change it through its
// parameter 'a'"). Only a variable or an element passed by const reference
// is checked for that now.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_007_const_reference_to_temporary.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

static double g(double& a, const double& s) {
  a = std::tanh(a + s);
  return s;
}

CGP_GRAD(x)
CGP_JVP(x)
double k(const double* x) {
  double t = x[0];
  double u = g(t, 2.0 * t);
  double v = g(t, x[1] > 0.0 ? x[1] : x[2] + t);
  return t + u * v;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker c("const double& argument bound to a temporary");
  std::vector<double>& x = c.in("x", 3, -1.0, 1.0);
  c.primal([&] { return k(x.data()); });
  c.grad([&](cgp_test::Grads& d) { return k_grad(x.data(), d.f64("x")); });
  c.jvp([&](cgp_test::Tangents& t) { return k_jvp(x.data(), t.f64("x")); });
  c.run();
  return cgp_test::finish();
}
#endif
