// Found by the fuzzer (tests/fuzz, seeds 20, 22, 40, 50 of the generator
// with reference parameters). A void helper with a `const double&`
// parameter, inlined into the kernel by scalar replacement (a scalar passed
// to its `double&` parameter travels through a one-element array): the
// inlined parameter became a local declared `double &g_s = 0.0;`, which does
// not compile. Inlined parameters are plain locals now.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_006_void_helper_const_reference_inlined.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

static void g(double& a, const double& s) { a = std::tanh(a + s); }

CGP_GRAD(x)
CGP_JVP(x)
double k(const double* x) {
  double t = x[0];
  g(t, x[1]);
  return t;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker c("void helper with a const double& parameter, inlined");
  std::vector<double>& x = c.in("x", 2, -1.0, 1.0);
  c.primal([&] { return k(x.data()); });
  c.grad([&](cgp_test::Grads& d) { return k_grad(x.data(), d.f64("x")); });
  c.jvp([&](cgp_test::Tangents& t) { return k_jvp(x.data(), t.f64("x")); });
  c.run();
  return cgp_test::finish();
}
#endif
