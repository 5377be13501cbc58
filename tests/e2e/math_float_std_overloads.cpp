// Float kernel using the std:: float overloads (std::exp(float),
// std::sqrt(float), std::pow(float, float), ...), which return float, mixed
// with a float scalar by value and a float in/out buffer.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/math_float_std_overloads.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/math_float_std_overloads.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x, s, y)
CGP_JVP(x, s, y)
float math_std_float(const float* x, float s, float* y, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; ++i) {
    float u = x[i];
    float v = std::sqrt(u * u + 1.0f) + std::exp(0.5f * u) + std::log(2.0f + u);
    v += std::log1p(u * u) + std::expm1(0.3f * s * u);
    v += std::sin(u) + std::cos(s * u) + std::tan(0.4f * u);
    v += std::tanh(u + s) + std::atan(u) + std::atan2(u, 1.5f + s);
    v += std::pow(1.5f + 0.2f * u, s) + std::hypot(u, s) + std::cbrt(3.0f + u);
    v += std::fabs(u - 2.0f) + std::fmin(u, 2.0f) + std::fmax(u, -2.0f);
    y[i] = y[i] * std::tanh(v) + 0.1f * v;
    acc += v * v;
  }
  return acc / static_cast<float>(n);
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 6;
  cgp_test::Checker c("math_std_float n=6");
  std::vector<float>& x = c.in<float>("x", n, -1.0, 1.0);
  float& s = c.scalar<float>("s", 0.6);
  std::vector<float>& y = c.inout<float>("y", n, -1.0, 1.0);
  c.primal([&] { return math_std_float(x.data(), s, y.data(), n); });
  c.grad([&](cgp_test::Grads& d) {
    return math_std_float_grad(x.data(), s, y.data(), n, d.f32("x"), d.f32("s"), d.f32("y"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return math_std_float_jvp(x.data(), s, y.data(), n, t.f32("x"), t.s32("s"), t.f32("y"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
