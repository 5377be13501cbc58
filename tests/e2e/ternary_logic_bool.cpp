// ?: with active values in both arms and nested ?:, bool parameters and
// const bool locals, && || ! in conditions, a bool converted to a number,
// over all four combinations of the two bool parameters.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/ternary_logic_bool.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/ternary_logic_bool.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, g)
CGP_JVP(x, g)
double gated_sum(const double* x, const double* g, bool use_gate, bool invert, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    const bool pos = x[i] > 0.0;
    const bool strong = x[i] > 0.5 || x[i] < -0.5;
    double v = pos ? x[i] * x[i] : (strong ? -x[i] : 0.5 * x[i] * x[i] * x[i]);
    double sig = 1.0 / (1.0 + std::exp(-g[i]));
    double gate = use_gate ? (invert ? 1.0 - sig : sig) : 1.0 - 0.5 * g[i];
    if (use_gate && !invert && !(g[i] < -1.0)) gate = gate * gate;
    const bool keep = (pos || strong) && !(i % 4 == 3);
    s += keep ? gate * v : v - gate;
    s += pos * 0.1 * x[i];
  }
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

static double away(double v, double b, double m) {
  if (std::fabs(v - b) >= m) return v;
  return v >= b ? b + m : b - m;
}

int main() {
  const int n = 12;
  for (int use_gate = 0; use_gate < 2; ++use_gate)
    for (int invert = 0; invert < 2; ++invert) {
      cgp_test::Checker c("gated_sum use_gate=" + std::to_string(use_gate) + " invert=" + std::to_string(invert));
      std::vector<double>& x = c.in("x", n, -1.5, 1.5);
      std::vector<double>& g = c.in("g", n, -2.0, 2.0);
      for (int i = 0; i < n; ++i) {
        x[i] = away(away(away(x[i], 0.0, 0.05), 0.5, 0.05), -0.5, 0.05);
        g[i] = away(g[i], -1.0, 0.05);
      }
      c.primal([&] { return gated_sum(x.data(), g.data(), use_gate != 0, invert != 0, n); });
      c.grad([&](cgp_test::Grads& d) {
        return gated_sum_grad(x.data(), g.data(), use_gate != 0, invert != 0, n, d.f64("x"), d.f64("g"));
      });
      c.jvp([&](cgp_test::Tangents& t) {
        return gated_sum_jvp(x.data(), g.data(), use_gate != 0, invert != 0, n, t.f64("x"), t.f64("g"));
      });
      c.run();
    }
  return cgp_test::finish();
}
#endif
