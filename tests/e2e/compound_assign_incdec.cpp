// Compound assignment (+= -= *= /=) on local scalars, on local array
// elements and on an in/out pointer parameter; ++/-- on int counters and on
// double locals, prefix and postfix, including a use of the postfix value
// (double w = v--;) and of a prefix value (double z = ++t2;).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/compound_assign_incdec.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/compound_assign_incdec.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>

CGP_GRAD(x, p)
CGP_JVP(x, p)
double compound_ops(const double* x, double p, int n) {
  double acc = 1.0;
  double s = 0.0;
  double t = p;
  double buf[4] = {0.5, 0.25, 0.125, 1.0};
  int i = 0;
  while (i < n) {
    acc *= 1.0 + 0.1 * x[i];
    s += x[i] * t;
    s -= 0.5 * x[i] * x[i];
    t /= 1.0 + x[i] * x[i];
    t++;
    buf[i % 4] *= 1.0 + 0.2 * x[i];
    buf[(i + 1) % 4] += t * x[i];
    buf[(i + 2) % 4] -= 0.3 * s;
    buf[(i + 3) % 4] /= 1.5 + 0.25 * x[i];
    i++;
  }
  int j = n;
  double u = p;
  while (j > 0) {
    --j;
    u -= 0.1 * x[j];
    u--;
    ++u;
    u *= 1.01;
  }
  double v = acc;
  v++;
  --v;
  double w = v--;
  double t2 = t;
  double z = ++t2;
  buf[0]++;
  buf[1]--;
  return s + acc + t + u + w * v + z * t2 + buf[0] * buf[1] + buf[2] + buf[3];
}

CGP_GRAD(y, g)
CGP_JVP(y, g)
void scale_shift(double* y, const double* g, int n) {
  for (int i = 0; i < n; ++i) {
    y[i] *= g[i];
    y[i] += 0.5 * g[i];
    y[i] -= g[i] * g[i] * 0.1;
    y[i] /= 1.0 + g[i] * g[i];
  }
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  {
    const int n = 7;
    cgp_test::Checker c("compound_ops n=7");
    std::vector<double>& x = c.in("x", n, -1.0, 1.0);
    double& p = c.scalar("p", 0.6);
    c.primal([&] { return compound_ops(x.data(), p, n); });
    c.grad([&](cgp_test::Grads& d) { return compound_ops_grad(x.data(), p, n, d.f64("x"), d.f64("p")); });
    c.jvp([&](cgp_test::Tangents& t) { return compound_ops_jvp(x.data(), p, n, t.f64("x"), t.s64("p")); });
    c.run();
  }
  {
    const int n = 6;
    cgp_test::Checker c("scale_shift (void, y in/out) n=6");
    std::vector<double>& y = c.inout("y", n, -1.0, 1.0);
    std::vector<double>& g = c.in("g", n, -1.5, 1.5);
    c.primal_void([&] { scale_shift(y.data(), g.data(), n); });
    c.grad_void([&](cgp_test::Grads& d) { scale_shift_grad(y.data(), g.data(), n, d.f64("y"), d.f64("g")); });
    c.jvp_void([&](cgp_test::Tangents& t) { scale_shift_jvp(y.data(), g.data(), n, t.f64("y"), t.f64("g")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
