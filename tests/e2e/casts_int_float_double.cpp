// Casts: int -> double ((double)i, double(k)), double -> float ((float)x,
// static_cast<float>), float -> double (static_cast<double>), double -> int
// (piecewise constant, inputs kept mid-step), a float scalar wrt parameter
// (d_s is float*) in a double kernel, and a float-returning kernel with a
// double parameter. The values pass through float, so FD uses the float rule.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/casts_int_float_double.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/casts_int_float_double.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>

CGP_GRAD(x, s)
CGP_JVP(x, s)
double mixed_precision(const double* x, float s, int n) {
  double acc = 0.0;
  for (int i = 0; i < n; ++i) {
    double w = (double)i / (double)n;
    float xf = (float)x[i];
    float t = xf * s + static_cast<float>(w);
    acc += static_cast<double>(t * t);
    int k = (int)(x[i] * 4.0);
    acc += 0.1 * k * x[i] + double(k) / n;
  }
  return acc / n;
}

CGP_GRAD(v)
CGP_JVP(v)
float narrow_sum(const double* v, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += static_cast<float>(v[i] * v[i]) * (float)(i + 1);
  return s / (float)n;
}

#ifndef __CGP_AD__
#include <cmath>

#include "check.h"

int main() {
  {
    const int n = 8;
    cgp_test::Checker c("mixed_precision n=8");
    std::vector<double>& x = c.in("x", n, -1.9, 1.9);
    for (double& v : x) v = (std::floor(v * 4.0) + 0.5) / 4.0;  // mid-step of (int)(4x)
    float& s = c.scalar<float>("s", 0.75);
    c.float_precision();
    c.primal([&] { return mixed_precision(x.data(), s, n); });
    c.grad([&](cgp_test::Grads& d) { return mixed_precision_grad(x.data(), s, n, d.f64("x"), d.f32("s")); });
    c.jvp([&](cgp_test::Tangents& t) { return mixed_precision_jvp(x.data(), s, n, t.f64("x"), t.s32("s")); });
    c.run();
  }
  {
    const int n = 6;
    cgp_test::Checker c("narrow_sum n=6 (returns float)");
    std::vector<double>& v = c.in("v", n, -1.0, 1.0);
    c.float_precision();
    c.primal([&] { return narrow_sum(v.data(), n); });
    c.grad([&](cgp_test::Grads& d) { return narrow_sum_grad(v.data(), n, d.f64("v")); });
    c.jvp([&](cgp_test::Tangents& t) { return narrow_sum_jvp(v.data(), n, t.f64("v")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
