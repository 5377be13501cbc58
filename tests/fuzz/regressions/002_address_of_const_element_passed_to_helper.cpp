// Found by the fuzzer (tests/fuzz, seeds 11, 14 and 21). '&a[k]' is one of the
// documented ways to pass an array to a helper (user-guide section 5), but
// when 'a' is a pointer-to-const parameter or a constant global array, cgp-ad
// refuses the kernel with "cannot differentiate 'k': assigns to the constant
// 'w'" although the helper's parameter is const and nothing is assigned.
// The same call with 'w + 1' (or with a const local array) is accepted.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/002_address_of_const_element_passed_to_helper.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

static const double gain[3] = {1.5, 0.25, -0.5};

static double dot(const double* p, const double* x, int m) {
  double s = 0.0;
  for (int j = 0; j < m; ++j) s += p[j] * x[j];
  return s;
}

CGP_GRAD(x)
double from_param(const double* x, const double* w) { return std::tanh(dot(&w[1], x, 2)); }

CGP_GRAD(x)
double from_global(const double* x) { return std::tanh(dot(&gain[1], x, 2)); }

#ifndef __CGP_AD__
#include "check.h"

int main() {
  std::vector<double> w = {0.3, -0.7, 0.9};
  {
    cgp_test::Checker c("from_param");
    std::vector<double>& x = c.in("x", 2, -1.0, 1.0);
    c.primal([&] { return from_param(x.data(), w.data()); });
    c.grad([&](cgp_test::Grads& d) { return from_param_grad(x.data(), w.data(), d.f64("x")); });
    c.run();
  }
  {
    cgp_test::Checker c("from_global");
    std::vector<double>& x = c.in("x", 2, -1.0, 1.0);
    c.primal([&] { return from_global(x.data()); });
    c.grad([&](cgp_test::Grads& d) { return from_global_grad(x.data(), d.f64("x")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
