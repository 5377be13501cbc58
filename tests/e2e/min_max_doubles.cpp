// std::min / std::max on doubles: running max and min over an array, a clamp
// std::min(std::max(x, lo), hi) with active bounds, a floor on a spread, and
// min/max against constants, and std::max / std::min of initializer lists
// in a loop; inputs distinct and away from every tie.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/min_max_doubles.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/min_max_doubles.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <algorithm>
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, lo, hi)
CGP_JVP(x, lo, hi)
double clamp_stats(const double* x, double lo, double hi, int n) {
  double mx = x[0];
  double mn = x[0];
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    mx = std::max(mx, x[i]);
    mn = std::min(mn, x[i]);
    double cl = std::min(std::max(x[i], lo), hi);
    s += cl * cl * (1.0 + 0.1 * i);
  }
  double spread = std::max(mx - mn, 0.5);
  return s / spread + std::min(mx, 2.0 * hi) - std::max(mn, lo - 1.0);
}

// Of lists: each element evaluated once, the first largest (smallest) kept.
CGP_GRAD(x)
CGP_JVP(x)
double list_extremes(const double* x, int n) {
  double s = 0.0;
  for (int i = 1; i + 1 < n; ++i)
    s += std::max({x[i - 1], 0.5 * x[i], std::sin(x[i + 1])}) * std::min({x[i], -x[i - 1]});
  return s + std::max({x[0], x[n - 1]});
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const std::vector<double> xv = {0.31, -1.42, 0.87, 1.63, -0.25, 0.05, -0.77, 1.21, -1.95};
  const double his[2] = {1.0, 0.7};  // 0.7: std::min(mx, 2 hi) takes 2 hi
  for (double h : his) {
    cgp_test::Checker c("clamp_stats hi=" + std::to_string(h));
    std::vector<double>& x = c.in("x", xv);
    double& lo = c.scalar("lo", -0.9);
    double& hi = c.scalar("hi", h);
    c.primal([&] { return clamp_stats(x.data(), lo, hi, static_cast<int>(xv.size())); });
    c.grad([&](cgp_test::Grads& d) {
      return clamp_stats_grad(x.data(), lo, hi, static_cast<int>(xv.size()), d.f64("x"), d.f64("lo"), d.f64("hi"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return clamp_stats_jvp(x.data(), lo, hi, static_cast<int>(xv.size()), t.f64("x"), t.s64("lo"), t.s64("hi"));
    });
    c.run();
  }
  {
    // all within a narrow band: the spread floor 0.5 wins
    cgp_test::Checker c("clamp_stats narrow band");
    std::vector<double>& x = c.in("x", std::vector<double>{0.1, 0.22, -0.05, 0.3, 0.15});
    double& lo = c.scalar("lo", 0.0);
    double& hi = c.scalar("hi", 0.25);
    c.primal([&] { return clamp_stats(x.data(), lo, hi, 5); });
    c.grad([&](cgp_test::Grads& d) { return clamp_stats_grad(x.data(), lo, hi, 5, d.f64("x"), d.f64("lo"), d.f64("hi")); });
    c.jvp([&](cgp_test::Tangents& t) {
      return clamp_stats_jvp(x.data(), lo, hi, 5, t.f64("x"), t.s64("lo"), t.s64("hi"));
    });
    c.run();
  }
  {
    cgp_test::Checker c("list_extremes");
    std::vector<double>& x = c.in("x", xv);
    c.primal([&] { return list_extremes(x.data(), static_cast<int>(xv.size())); });
    c.grad([&](cgp_test::Grads& d) { return list_extremes_grad(x.data(), static_cast<int>(xv.size()), d.f64("x")); });
    c.jvp([&](cgp_test::Tangents& t) { return list_extremes_jvp(x.data(), static_cast<int>(xv.size()), t.f64("x")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
