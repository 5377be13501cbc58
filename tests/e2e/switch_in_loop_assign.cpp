// A known trap: locals assigned in the arms of a switch inside a loop and
// needed by the reverse sweep for every iteration (gain, bias), in a
// recurrence over a run-time length; the case comes from an int array in one
// kernel and from the data itself (branch on the carried state) in the other.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/switch_in_loop_assign.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/switch_in_loop_assign.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(w, h0)
CGP_JVP(w, h0)
double switched_recurrence(const double* w, double h0, const int* kind, int T) {
  double h = h0;
  double loss = 0.0;
  for (int t = 0; t < T; ++t) {
    double gain;
    double bias;
    switch (kind[t]) {
      case 0:
        gain = std::tanh(w[t] * h);
        bias = 0.1;
        break;
      case 1:
        gain = 1.0 / (1.0 + h * h);
        bias = w[t];
        break;
      case 2:
        gain = std::exp(-0.5 * w[t] * w[t]);
        bias = h * w[t];
        break;
      default:
        gain = 0.5;
        bias = std::sin(h);
        break;
    }
    h = gain * h + bias;
    loss += gain * gain + 0.1 * h * h;
  }
  return loss + h;
}

CGP_GRAD(w, h0)
CGP_JVP(w, h0)
double data_switched_recurrence(const double* w, double h0, int T) {
  double h = h0;
  double loss = 0.0;
  for (int t = 0; t < T; ++t) {
    int k = h > 0.5 ? 0 : (h > -0.5 ? 1 : 2);
    double gain;
    switch (k) {
      case 0:
        gain = 0.8 * std::tanh(w[t]);
        break;
      case 1:
        gain = 1.0 + 0.5 * w[t] * w[t];
        break;
      default:
        gain = -0.7 + 0.1 * w[t];
        break;
    }
    h = gain * h + 0.3 * w[t];
    loss += gain * h;
  }
  return loss;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  {
    const int T = 17;
    std::vector<int> kind(T);
    for (int t = 0; t < T; ++t) kind[t] = (t * 5 + 1) % 4;
    cgp_test::Checker c("switched_recurrence T=17");
    std::vector<double>& w = c.in("w", T, -1.0, 1.0);
    double& h0 = c.scalar("h0", 0.4);
    c.primal([&] { return switched_recurrence(w.data(), h0, kind.data(), T); });
    c.grad([&](cgp_test::Grads& d) {
      return switched_recurrence_grad(w.data(), h0, kind.data(), T, d.f64("w"), d.f64("h0"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return switched_recurrence_jvp(w.data(), h0, kind.data(), T, t.f64("w"), t.s64("h0"));
    });
    c.run();
  }
  {
    const int T = 15;
    cgp_test::Checker c("data_switched_recurrence T=15");
    std::vector<double>& w = c.in("w", T, -1.2, 1.2);
    double& h0 = c.scalar("h0", 0.2);
    c.primal([&] { return data_switched_recurrence(w.data(), h0, T); });
    c.grad([&](cgp_test::Grads& d) { return data_switched_recurrence_grad(w.data(), h0, T, d.f64("w"), d.f64("h0")); });
    c.jvp([&](cgp_test::Tangents& t) {
      return data_switched_recurrence_jvp(w.data(), h0, T, t.f64("w"), t.s64("h0"));
    });
    c.run();
  }
  return cgp_test::finish();
}
#endif
