// Corner cases of local pointers and references: a pointer moved by 2 in a
// loop and set in the arms of an `if`, a pointer walking an in/out buffer
// that it overwrites (old values taped or not as each iteration needs), a
// reference whose index variable changes after it was bound (the reference
// keeps its element), a reference to a by-value parameter, a const reference
// that sees a later write to its element, and a local array written by a
// helper through a local pointer into it, all inside loops.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/pointer_reference_corners.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/pointer_reference_corners.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

void fill_sq(double* out, const double* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * in[i] + 0.5 * out[i];
}

CGP_GRAD(x, s)
CGP_JVP(x, s)
double strided(const double* x, double s, int n, int flip) {
  double acc = 0.0;
  const double* p = x;
  for (int i = 0; i < n; ++i) {
    acc += std::sin(*p) * s;
    p += 2;
  }
  if (flip > 0)
    p = x + 1;
  else
    p = x + 3;
  acc += p[0] * p[2];
  double& ps = s;
  ps = ps * acc;
  double tmp[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  for (int r = 0; r < 3; ++r) {
    double* half = tmp + 3 * (r % 2);
    fill_sq(half, p, 3);
    acc += half[1] * s;
  }
  return acc + s;
}

CGP_GRAD(y, w)
CGP_JVP(y, w)
void inplace(double* y, const double* w, int n) {
  for (int pass = 0; pass < 3; ++pass) {
    double* o = y;
    const double* end = y + n;
    while (o < end) {
      *o = std::tanh(*o * w[pass] + o[0] * 0.25);
      o++;
    }
  }
  int k = 1;
  double& r = y[k];
  const double& c = y[2];
  k = 3;
  y[2] = y[2] * w[0];
  r = 5.0 * r + c * y[k];
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  for (int flip : {1, -1}) {
    const int n = 4;
    cgp_test::Checker c(flip > 0 ? "strided flip" : "strided");
    std::vector<double>& x = c.in("x", 2 * n, -1.0, 1.0);
    double& s = c.scalar("s", 0.7);
    c.primal([&] { return strided(x.data(), s, n, flip); });
    c.grad([&](cgp_test::Grads& d) { return strided_grad(x.data(), s, n, flip, d.f64("x"), d.f64("s")); });
    c.jvp([&](cgp_test::Tangents& t) { return strided_jvp(x.data(), s, n, flip, t.f64("x"), t.s64("s")); });
    c.run();
  }
  {
    const int n = 5;
    cgp_test::Checker c("inplace");
    std::vector<double>& y = c.inout("y", n, -1.0, 1.0);
    std::vector<double>& w = c.in("w", 3, 0.4, 1.1);
    c.primal_void([&] { inplace(y.data(), w.data(), n); });
    c.grad_void([&](cgp_test::Grads& d) { inplace_grad(y.data(), w.data(), n, d.f64("y"), d.f64("w")); });
    c.jvp_void([&](cgp_test::Tangents& t) { inplace_jvp(y.data(), w.data(), n, t.f64("y"), t.f64("w")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
