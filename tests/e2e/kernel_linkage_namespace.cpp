// Where CGP_GRAD may stand (interface.md section 1): on a declaration whose
// definition comes later (in a reopened namespace), on a static and on an
// inline definition, and in a nested namespace. The generated functions
// live in the kernel's namespace with its linkage: main calls
// phys::spring_energy_grad, static_kernel_grad, inline_kernel_grad and
// phys::inner::nested_kernel_grad.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/kernel_linkage_namespace.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/kernel_linkage_namespace.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

namespace phys {
CGP_GRAD(k)
CGP_JVP(k)
double spring_energy(const double* k, const double* x, int n);
}  // namespace phys

namespace phys {
double spring_energy(const double* k, const double* x, int n) {
  double e = 0.0;
  for (int i = 0; i + 1 < n; ++i) {
    double dx = x[i + 1] - x[i] - 1.0;
    e += 0.5 * k[i] * dx * dx;
  }
  return e;
}

namespace inner {
CGP_GRAD()
CGP_JVP()
double nested_kernel(double u, double v) { return std::exp(u) * std::cos(v) + u * v; }
}  // namespace inner
}  // namespace phys

CGP_GRAD(a)
CGP_JVP(a)
static double static_kernel(const double* a, int n) {
  double s = 1.0;
  for (int i = 0; i < n; ++i) s *= 1.0 + 0.5 * std::tanh(a[i]);
  return s;
}

CGP_GRAD(b)
CGP_JVP(b)
inline double inline_kernel(double b, const double* c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += std::sin(b * c[i]);
  return s * b;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 5;
  {
    cgp_test::Checker c("phys::spring_energy (marked on its declaration)");
    std::vector<double>& k = c.in("k", n - 1, 0.5, 2.0);
    std::vector<double> x = {0.0, 1.1, 2.3, 3.05, 4.4};
    c.primal([&] { return phys::spring_energy(k.data(), x.data(), n); });
    c.grad([&](cgp_test::Grads& d) { return phys::spring_energy_grad(k.data(), x.data(), n, d.f64("k")); });
    c.jvp([&](cgp_test::Tangents& t) { return phys::spring_energy_jvp(k.data(), x.data(), n, t.f64("k")); });
    c.run();
  }
  {
    cgp_test::Checker c("phys::inner::nested_kernel");
    double& u = c.scalar("u", 0.3);
    double& v = c.scalar("v", -0.8);
    c.primal([&] { return phys::inner::nested_kernel(u, v); });
    c.grad([&](cgp_test::Grads& d) { return phys::inner::nested_kernel_grad(u, v, d.f64("u"), d.f64("v")); });
    c.jvp([&](cgp_test::Tangents& t) { return phys::inner::nested_kernel_jvp(u, v, t.s64("u"), t.s64("v")); });
    c.run();
  }
  {
    cgp_test::Checker c("static_kernel");
    std::vector<double>& a = c.in("a", n, -1.0, 1.0);
    c.primal([&] { return static_kernel(a.data(), n); });
    c.grad([&](cgp_test::Grads& d) { return static_kernel_grad(a.data(), n, d.f64("a")); });
    c.jvp([&](cgp_test::Tangents& t) { return static_kernel_jvp(a.data(), n, t.f64("a")); });
    c.run();
  }
  {
    cgp_test::Checker c("inline_kernel");
    double& b = c.scalar("b", 0.9);
    std::vector<double> cc = c.random_vector(n, -1.0, 1.0);
    c.primal([&] { return inline_kernel(b, cc.data(), n); });
    c.grad([&](cgp_test::Grads& d) { return inline_kernel_grad(b, cc.data(), n, d.f64("b")); });
    c.jvp([&](cgp_test::Tangents& t) { return inline_kernel_jvp(b, cc.data(), n, t.s64("b")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
