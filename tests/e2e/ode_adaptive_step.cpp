// A known trap: an adaptive-step ODE integrator (Heun-Euler pair with
// error control) as a while loop whose trip count, accepted/rejected steps
// and step sizes all depend on the data; the last step is shortened to land
// on t_end and leaves the loop by break. The gradient is that of the
// discrete algorithm (step sizes included), which central FD measures too.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/ode_adaptive_step.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/ode_adaptive_step.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <algorithm>
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(p, y0)
CGP_JVP(p, y0)
double ode_adaptive(const double* p, double y0, double t_end, double tol, int max_steps) {
  double t = 0.0;
  double y = y0;
  double h = 0.1;
  int steps = 0;
  while (steps < max_steps) {
    bool last = false;
    if (t + h >= t_end) {
      h = t_end - t;
      last = true;
    }
    const double k1 = -p[0] * y + p[1] * std::sin(t);
    const double ye = y + h * k1;
    const double k2 = -p[0] * ye + p[1] * std::sin(t + h);
    const double yh = y + 0.5 * h * (k1 + k2);
    const double err = std::fabs(yh - ye);
    if (err <= tol) {
      t += h;
      y = yh;
      ++steps;
      if (last) break;
    }
    double fac = 0.9 * std::sqrt(tol / (err + 1e-14));
    fac = std::min(2.0, std::max(0.2, fac));
    h = h * fac;
  }
  return y * y + p[2] * y;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const double tols[2] = {1e-3, 1e-5};
  for (double tol : tols) {
    cgp_test::Checker c("ode_adaptive tol=" + std::to_string(tol));
    std::vector<double>& p = c.in("p", std::vector<double>{1.3, 0.7, 0.4});
    double& y0 = c.scalar("y0", 1.1);
    c.primal([&] { return ode_adaptive(p.data(), y0, 3.0, tol, 10000); });
    c.grad([&](cgp_test::Grads& d) { return ode_adaptive_grad(p.data(), y0, 3.0, tol, 10000, d.f64("p"), d.f64("y0")); });
    c.jvp([&](cgp_test::Tangents& t) {
      return ode_adaptive_jvp(p.data(), y0, 3.0, tol, 10000, t.f64("p"), t.s64("y0"));
    });
    c.run();
  }
  return cgp_test::finish();
}
#endif
