// CGP_GRAD naming a subset of several floating parameters: (a, c), (b), and
// (d, a) written out of parameter order (the d_ buffers still follow the
// PARAMETER order: d_a then d_d). The kernels share a helper body; the
// parameters left out are inactive and get no d_ buffer.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/grad_subset_params.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/grad_subset_params.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

double four_body(const double* a, const double* b, double c, double d, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * std::exp(b[i] * c) + d * a[i] * a[i];
  return s * c + std::sin(d * c);
}

CGP_GRAD(a, c)
CGP_JVP(a, c)
double wrt_a_c(const double* a, const double* b, double c, double d, int n) { return four_body(a, b, c, d, n); }

CGP_GRAD(b)
CGP_JVP(b)
double wrt_b(const double* a, const double* b, double c, double d, int n) { return four_body(a, b, c, d, n); }

CGP_GRAD(d, a)
CGP_JVP(d, a)
double wrt_d_a(const double* a, const double* b, double c, double d, int n) { return four_body(a, b, c, d, n); }

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 5;
  cgp_test::Rng rng(7);
  std::vector<double> a0(n), b0(n);
  for (auto& v : a0) v = rng.uniform(-1, 1);
  for (auto& v : b0) v = rng.uniform(-1, 1);
  const double c0 = 0.8, d0 = -0.6;
  {
    cgp_test::Checker ch("wrt_a_c: CGP_GRAD(a, c)");
    std::vector<double>& a = ch.in("a", a0);
    double& c = ch.scalar("c", c0);
    ch.primal([&] { return wrt_a_c(a.data(), b0.data(), c, d0, n); });
    ch.grad([&](cgp_test::Grads& g) { return wrt_a_c_grad(a.data(), b0.data(), c, d0, n, g.f64("a"), g.f64("c")); });
    ch.jvp([&](cgp_test::Tangents& t) { return wrt_a_c_jvp(a.data(), b0.data(), c, d0, n, t.f64("a"), t.s64("c")); });
    ch.run();
  }
  {
    cgp_test::Checker ch("wrt_b: CGP_GRAD(b)");
    std::vector<double>& b = ch.in("b", b0);
    ch.primal([&] { return wrt_b(a0.data(), b.data(), c0, d0, n); });
    ch.grad([&](cgp_test::Grads& g) { return wrt_b_grad(a0.data(), b.data(), c0, d0, n, g.f64("b")); });
    ch.jvp([&](cgp_test::Tangents& t) { return wrt_b_jvp(a0.data(), b.data(), c0, d0, n, t.f64("b")); });
    ch.run();
  }
  {
    cgp_test::Checker ch("wrt_d_a: CGP_GRAD(d, a), buffers in parameter order");
    std::vector<double>& a = ch.in("a", a0);
    double& d = ch.scalar("d", d0);
    ch.primal([&] { return wrt_d_a(a.data(), b0.data(), c0, d, n); });
    ch.grad([&](cgp_test::Grads& g) { return wrt_d_a_grad(a.data(), b0.data(), c0, d, n, g.f64("a"), g.f64("d")); });
    ch.jvp([&](cgp_test::Tangents& t) { return wrt_d_a_jvp(a.data(), b0.data(), c0, d, n, t.f64("a"), t.s64("d")); });
    ch.run();
  }
  return cgp_test::finish();
}
#endif
