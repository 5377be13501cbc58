// if / else if / else chains on data, with && || ! in the conditions, inside
// a loop (Huber-like piecewise loss), and a final if / else if clamp; three
// input sets reach the middle, the log branch and the constant branch (whose
// gradient is exactly zero). Inputs are kept 0.05 away from every boundary.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/if_elseif_else_chain.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/if_elseif_else_chain.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(r, w)
CGP_JVP(r, w)
double piecewise_loss(const double* r, const double* w, double delta, int n) {
  double acc = 0.0;
  for (int i = 0; i < n; ++i) {
    double a = r[i];
    double l;
    if (a < -delta) {
      l = -2.0 * delta * a - delta * delta;
    } else if (a > delta && w[i] > 0.0) {
      l = 2.0 * delta * a - delta * delta + w[i] * a;
    } else if (!(a > 0.0) || w[i] < -0.5) {
      l = a * a * w[i];
    } else {
      l = a * a + 0.1 * w[i];
    }
    acc += l;
  }
  if (acc > 10.0) {
    acc = 10.0 + std::log(acc - 9.0);
  } else if (acc < -10.0) {
    acc = -10.0;
  }
  return acc;
}

#ifndef __CGP_AD__
#include "check.h"

// Moves v at least m away from the boundary b.
static double away(double v, double b, double m) {
  if (std::fabs(v - b) >= m) return v;
  return v >= b ? b + m : b - m;
}

// regime: 0 middle (|acc| <= 10), 1 log branch, 2 constant branch
static void case_with(const char* label, int n, double rlo, double rhi, double wlo, double whi, int regime) {
  const double delta = 1.0;
  cgp_test::Checker c(std::string("piecewise_loss ") + label);
  std::vector<double>& r = c.in("r", n, rlo, rhi);
  std::vector<double>& w = c.in("w", n, wlo, whi);
  for (int i = 0; i < n; ++i) {
    r[i] = away(away(away(r[i], -delta, 0.05), delta, 0.05), 0.0, 0.05);
    w[i] = away(away(w[i], 0.0, 0.05), -0.5, 0.05);
  }
  if (regime == 0) {  // make sure each of the four arms is taken
    r[0] = -1.4;
    r[1] = 1.3;
    w[1] = 0.6;
    r[2] = -0.4;
    r[3] = 0.4;
    w[3] = 0.3;
    r[4] = 1.5;
    w[4] = -0.3;
  }
  const double v = piecewise_loss(r.data(), w.data(), delta, n);
  const int got = v > 10.0 ? 1 : (v == -10.0 ? 2 : 0);
  if (got != regime) {
    std::printf("  FAIL  test inputs: expected regime %d, got %d (value %g)\n", regime, got, v);
    ++cgp_test::tally().checks;
    ++cgp_test::tally().failures;
  }
  c.primal([&] { return piecewise_loss(r.data(), w.data(), delta, n); });
  c.grad([&](cgp_test::Grads& d) { return piecewise_loss_grad(r.data(), w.data(), delta, n, d.f64("r"), d.f64("w")); });
  c.jvp([&](cgp_test::Tangents& t) {
    return piecewise_loss_jvp(r.data(), w.data(), delta, n, t.f64("r"), t.f64("w"));
  });
  c.run();
}

int main() {
  case_with("(all four arms, |acc| <= 10)", 12, -1.6, 1.6, -1.0, 1.0, 0);
  case_with("(acc > 10: log branch)", 16, 2.0, 3.0, 0.1, 1.0, 1);
  case_with("(acc < -10: constant, zero gradient)", 16, -0.95, -0.85, -1.0, -0.9, 2);
  return cgp_test::finish();
}
#endif
