// switch on an int array inside a loop: break-terminated cases, a case with
// its own block scope and local, grouped labels (case 3: case 4:), default;
// then a switch whose cases return early (return inside a switch) or break
// to a final return, run for every mode.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/switch_break_default.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/switch_break_default.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(p)
CGP_JVP(p)
double activation_by_kind(const double* p, const int* kind, int n, int mode) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    const double a = p[i];
    double y;
    switch (kind[i]) {
      case 0:
        y = std::tanh(a);
        break;
      case 1:
        y = a > 0.0 ? a : 0.01 * a;
        break;
      case 2: {
        double e = std::exp(a);
        y = e / (1.0 + e);
        break;
      }
      case 3:
      case 4:
        y = a * a * (kind[i] - 2);
        break;
      default:
        y = std::log1p(a * a);
        break;
    }
    s += y * (i + 1);
  }
  switch (mode) {
    case 0:
      return s;
    case 1:
      return 0.01 * s * s;
    default:
      break;
  }
  return -std::exp(0.01 * s);
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 14;
  std::vector<int> kind(n);
  for (int i = 0; i < n; ++i) kind[i] = i % 6;  // 5 -> default
  for (int mode = 0; mode < 3; ++mode) {
    cgp_test::Checker c("activation_by_kind mode=" + std::to_string(mode));
    std::vector<double>& p = c.in("p", n, -1.5, 1.5);
    for (double& v : p)
      if (std::fabs(v) < 0.05) v = 0.1;  // leaky relu kink at 0
    c.primal([&] { return activation_by_kind(p.data(), kind.data(), n, mode); });
    c.grad([&](cgp_test::Grads& d) { return activation_by_kind_grad(p.data(), kind.data(), n, mode, d.f64("p")); });
    c.jvp([&](cgp_test::Tangents& t) { return activation_by_kind_jvp(p.data(), kind.data(), n, mode, t.f64("p")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
