// A known trap: a value whose derivative is infinite at the input (sqrt or
// hypot at exactly 0) but which is used ONLY in a branch condition. Its
// adjoint is 0, and a tool that multiplies 0 by the local derivative inf
// propagates NaN. At x = y = 0 (and g = 0) the gradient must be finite and
// equal the analytic value; nearby points check the same code against FD.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/zero_times_inf_branch_only.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/zero_times_inf_branch_only.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, y, w)
CGP_JVP(x, y, w)
double radial_gate(double x, double y, const double* w) {
  double r = std::sqrt(x * x + y * y);
  double out;
  if (r < 1.0) {
    out = w[0] * x + w[1] * y * y + w[2];
  } else {
    out = w[2] / r;
  }
  return out;
}

CGP_GRAD(x, y)
CGP_JVP(x, y)
double hypot_guard(double x, double y, double eps) {
  double d = std::hypot(x, y);
  if (d < eps) return 0.5 * (x + y) + x * y;
  return std::sin(x) * y + d;
}

CGP_GRAD(g)
CGP_JVP(g)
double clip_by_norm(const double* g, double thr, int n) {
  double ss = 0.0;
  for (int i = 0; i < n; ++i) ss += g[i] * g[i];
  double nrm = std::sqrt(ss);
  double scale = 1.0;
  if (nrm > thr) scale = thr / nrm;
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += scale * g[i] * (i + 1);
  return s;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const std::vector<double> w0 = {0.7, -1.3, 0.4};
  {
    cgp_test::Checker c("radial_gate at x = y = 0 (r only in the condition)");
    double& x = c.scalar("x", 0.0);
    double& y = c.scalar("y", 0.0);
    std::vector<double>& w = c.in("w", w0);
    c.primal([&] { return radial_gate(x, y, w.data()); });
    c.grad([&](cgp_test::Grads& d) { return radial_gate_grad(x, y, w.data(), d.f64("x"), d.f64("y"), d.f64("w")); });
    c.jvp([&](cgp_test::Tangents& t) { return radial_gate_jvp(x, y, w.data(), t.s64("x"), t.s64("y"), t.f64("w")); });
    c.expect_grad("x", {w0[0]}, 1e-15);
    c.expect_grad("y", {0.0}, 1e-15);
    c.expect_grad("w", {0.0, 0.0, 1.0}, 1e-15);
    c.run();
  }
  {
    cgp_test::Checker c("radial_gate at (0.3, -0.4) and (1.2, 0.9)");
    double& x = c.scalar("x", 0.3);
    double& y = c.scalar("y", -0.4);
    std::vector<double>& w = c.in("w", w0);
    c.primal([&] { return radial_gate(x, y, w.data()); });
    c.grad([&](cgp_test::Grads& d) { return radial_gate_grad(x, y, w.data(), d.f64("x"), d.f64("y"), d.f64("w")); });
    c.jvp([&](cgp_test::Tangents& t) { return radial_gate_jvp(x, y, w.data(), t.s64("x"), t.s64("y"), t.f64("w")); });
    c.run();
    cgp_test::Checker c2("radial_gate at (1.2, 0.9)");
    double& x2 = c2.scalar("x", 1.2);
    double& y2 = c2.scalar("y", 0.9);
    std::vector<double>& w2 = c2.in("w", w0);
    c2.primal([&] { return radial_gate(x2, y2, w2.data()); });
    c2.grad([&](cgp_test::Grads& d) { return radial_gate_grad(x2, y2, w2.data(), d.f64("x"), d.f64("y"), d.f64("w")); });
    c2.jvp([&](cgp_test::Tangents& t) {
      return radial_gate_jvp(x2, y2, w2.data(), t.s64("x"), t.s64("y"), t.f64("w"));
    });
    c2.run();
  }
  {
    cgp_test::Checker c("hypot_guard at x = y = 0");
    double& x = c.scalar("x", 0.0);
    double& y = c.scalar("y", 0.0);
    c.primal([&] { return hypot_guard(x, y, 0.5); });
    c.grad([&](cgp_test::Grads& d) { return hypot_guard_grad(x, y, 0.5, d.f64("x"), d.f64("y")); });
    c.jvp([&](cgp_test::Tangents& t) { return hypot_guard_jvp(x, y, 0.5, t.s64("x"), t.s64("y")); });
    c.expect_grad("x", {0.5}, 1e-15);
    c.expect_grad("y", {0.5}, 1e-15);
    c.run();
  }
  {
    cgp_test::Checker c("hypot_guard at (0.9, -0.6) (d >= eps)");
    double& x = c.scalar("x", 0.9);
    double& y = c.scalar("y", -0.6);
    c.primal([&] { return hypot_guard(x, y, 0.5); });
    c.grad([&](cgp_test::Grads& d) { return hypot_guard_grad(x, y, 0.5, d.f64("x"), d.f64("y")); });
    c.jvp([&](cgp_test::Tangents& t) { return hypot_guard_jvp(x, y, 0.5, t.s64("x"), t.s64("y")); });
    c.run();
  }
  {
    const int n = 5;
    cgp_test::Checker c("clip_by_norm at g = 0 (norm only in the condition)");
    std::vector<double>& g = c.in("g", std::vector<double>(n, 0.0));
    c.primal([&] { return clip_by_norm(g.data(), 1.0, n); });
    c.grad([&](cgp_test::Grads& d) { return clip_by_norm_grad(g.data(), 1.0, n, d.f64("g")); });
    c.jvp([&](cgp_test::Tangents& t) { return clip_by_norm_jvp(g.data(), 1.0, n, t.f64("g")); });
    c.expect_grad("g", {1.0, 2.0, 3.0, 4.0, 5.0}, 1e-15);
    c.run();
  }
  {
    const int n = 5;
    cgp_test::Checker c("clip_by_norm clipping (norm > thr)");
    std::vector<double>& g = c.in("g", n, -1.0, 1.0);
    c.primal([&] { return clip_by_norm(g.data(), 0.5, n); });
    c.grad([&](cgp_test::Grads& d) { return clip_by_norm_grad(g.data(), 0.5, n, d.f64("g")); });
    c.jvp([&](cgp_test::Tangents& t) { return clip_by_norm_jvp(g.data(), 0.5, n, t.f64("g")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
