// Custom derivatives (CGP_PULLBACK_OF, interface.md section 3):
// - a library-like function with no body visible to cgp-ad (its definition
//   is hidden from the tool by #ifndef __CGP_AD__), called in a loop;
// - a visible helper whose generated derivative the pullback replaces (a
//   counter proves the pullback runs);
// - a void function writing through a pointer (its pullback clears the
//   adjoint of what it overwrites), called on a local array;
// - arguments that carry no derivative: a scalar (the pullback gets a
//   scratch adjoint) and a pointer that is not differentiated (null);
// - a function updating a `double&` in place: its pullback takes `double*`
//   for it and sees the value the function left there.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/custom_pullbacks.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/custom_pullbacks.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
// RUN: grep -c "::gauss_cdf_pb(" %t/custom_pullbacks.cgp.cpp | grep -qv '^0$'
// RUN: grep -q "::weighted_norm_pb(.*nullptr" %t/custom_pullbacks.cgp.cpp
// RUN: grep -q "::shrink_pb(" %t/custom_pullbacks.cgp.cpp
#include <cgp/cgp.h>
#include <cmath>

// -- a function without a body cgp-ad can see
double gauss_cdf(double x);
#ifndef __CGP_AD__
double gauss_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
#endif
CGP_PULLBACK_OF(gauss_cdf)
void gauss_cdf_pb(double x, double d_ret, double *d_x) {
  *d_x += d_ret * std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
}

// -- a visible helper, with a pullback of our own
static int softsign_pullbacks = 0;
inline double softsign(double v) { return v / (1.0 + std::fabs(v)); }
CGP_PULLBACK_OF(softsign)
void softsign_pb(double v, double d_ret, double *d_v) {
  ++softsign_pullbacks;
  double a = 1.0 + std::fabs(v);
  *d_v += d_ret / (a * a);
}

// -- a void function writing through a pointer: y = a * x (y overwritten)
void scale_into(const double *x, double *y, int n, double a);
#ifndef __CGP_AD__
void scale_into(const double *x, double *y, int n, double a) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i];
}
#endif
CGP_PULLBACK_OF(scale_into)
void scale_into_pb(const double *x, double *y, int n, double a, double *d_x, double *d_y,
                   double *d_a) {
  (void)y;
  for (int i = 0; i < n; ++i) {
    if (d_x)
      d_x[i] += a * d_y[i];
    *d_a += x[i] * d_y[i];
    d_y[i] = 0; // y was overwritten: its entry values get no adjoint
  }
}

// -- sum_i w_i x_i^2, where w may carry no derivative (null d_w)
double weighted_norm(const double *x, const double *w, int n);
#ifndef __CGP_AD__
double weighted_norm(const double *x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += w[i] * x[i] * x[i];
  return s;
}
#endif
CGP_PULLBACK_OF(weighted_norm)
void weighted_norm_pb(const double *x, const double *w, int n, double d_ret, double *d_x,
                      double *d_w) {
  for (int i = 0; i < n; ++i) {
    d_x[i] += d_ret * 2 * w[i] * x[i];
    if (d_w)
      d_w[i] += d_ret * x[i] * x[i];
  }
}

// -- a reference updated in place: `a` holds what shrink left there
static double shrink(double &a, double b) {
  a = a * std::sin(b);
  return a * b;
}

CGP_PULLBACK_OF(shrink)
void shrink_pb(double &a, double b, double d_ret, double *d_a, double *d_b) {
  double before = a / std::sin(b);
  double d_after = *d_a + d_ret * b;
  *d_b += d_ret * a + d_after * before * std::cos(b);
  *d_a = d_after * std::sin(b);
}

CGP_GRAD(x, s)
double probit_loss(const double *x, const double *w, double s, double t, int n) {
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    double p = gauss_cdf(s * x[i] + t); // t carries no derivative
    acc += softsign(p - 0.5) * w[i];
  }
  double y[6];
  scale_into(x, y, n, s * s);
  double a = x[0] + 2.0;
  acc += shrink(a, s);
  acc += a * a;
  return acc + weighted_norm(y, w, n) * 0.1;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 6;
  cgp_test::Checker c("custom pullbacks n=6");
  std::vector<double> &x = c.in("x", n, -1.0, 1.0);
  double &s = c.scalar("s", 0.8);
  std::vector<double> w = c.random_vector(n, 0.5, 1.5);
  double t = 0.1;
  c.primal([&] { return probit_loss(x.data(), w.data(), s, t, n); });
  c.grad([&](cgp_test::Grads &d) {
    return probit_loss_grad(x.data(), w.data(), s, t, n, d.f64("x"), d.f64("s"));
  });
  c.run();
  if (softsign_pullbacks == 0) {
    std::printf("FAIL: the custom pullback of softsign never ran\n");
    return 1;
  }
  return cgp_test::finish();
}
#endif
