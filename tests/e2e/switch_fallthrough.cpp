// [[fallthrough]] (a known trap): a polynomial tail evaluated by falling
// through cases from the requested order down to default, for every order;
// and a loop whose per-element switch falls through stages that overwrite a
// local and a carried state the reverse sweep needs.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/switch_fallthrough.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/switch_fallthrough.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(c, x)
CGP_JVP(c, x)
double poly_tail(const double* c, double x, int order) {
  double r = 0.0;
  const double x2 = x * x;
  switch (order) {
    case 4:
      r += c[4] * x2 * x2;
      [[fallthrough]];
    case 3:
      r += c[3] * x2 * x;
      [[fallthrough]];
    case 2:
      r += c[2] * x2;
      [[fallthrough]];
    case 1:
      r += c[1] * x;
      [[fallthrough]];
    default:
      r += c[0];
      break;
  }
  return r * r;
}

CGP_GRAD(v)
CGP_JVP(v)
double staged_update(const double* v, const int* stage, int n) {
  double h = 0.5;
  double acc = 0.0;
  for (int i = 0; i < n; ++i) {
    double t = v[i];
    switch (stage[i]) {
      case 2:
        t = std::sin(t) + h;
        [[fallthrough]];
      case 1:
        t = t * h;
        h = 0.9 * h + 0.1 * t;
        [[fallthrough]];
      case 0:
        acc += t * t;
        break;
      default:
        h = std::tanh(h + t);
        break;
    }
  }
  return acc + h;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  for (int order = 0; order <= 5; ++order) {
    cgp_test::Checker ch("poly_tail order=" + std::to_string(order));
    std::vector<double>& c = ch.in("c", 5, -1.0, 1.0);
    double& x = ch.scalar("x", 0.85);
    ch.primal([&] { return poly_tail(c.data(), x, order); });
    ch.grad([&](cgp_test::Grads& d) { return poly_tail_grad(c.data(), x, order, d.f64("c"), d.f64("x")); });
    ch.jvp([&](cgp_test::Tangents& t) { return poly_tail_jvp(c.data(), x, order, t.f64("c"), t.s64("x")); });
    ch.run();
  }
  {
    const int n = 13;
    std::vector<int> stage(n);
    for (int i = 0; i < n; ++i) stage[i] = (i * 7) % 4;  // 3 -> default
    cgp_test::Checker ch("staged_update n=13");
    std::vector<double>& v = ch.in("v", n, -1.0, 1.0);
    ch.primal([&] { return staged_update(v.data(), stage.data(), n); });
    ch.grad([&](cgp_test::Grads& d) { return staged_update_grad(v.data(), stage.data(), n, d.f64("v")); });
    ch.jvp([&](cgp_test::Tangents& t) { return staged_update_jvp(v.data(), stage.data(), n, t.f64("v")); });
    ch.run();
  }
  return cgp_test::finish();
}
#endif
