// Float kernel with the C float math functions: sqrtf expf logf log1pf
// expm1f sinf cosf tanf tanhf atanf atan2f powf hypotf cbrtf fabsf fminf
// fmaxf, float literals, float params (d_ buffers are float*), at two points
// taking opposite sides of the branchy functions.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/math_float_suffix.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/math_float_suffix.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <math.h>

CGP_GRAD(x)
CGP_JVP(x)
float math_f(const float* x) {
  float a = sqrtf(x[0]) + expf(x[1]) + logf(x[0] + x[2]);
  float b = log1pf(x[2]) + expm1f(x[1] * x[3]);
  float c = sinf(x[3]) * cosf(x[4]) + tanf(x[4]);
  float d = tanhf(x[5]) + atanf(x[5] * x[1]) + atan2f(x[6], x[7]);
  float e = powf(x[0], x[7]) + hypotf(x[6], x[7]) + cbrtf(x[2] + x[6]);
  float f = fabsf(x[6]) * fminf(x[1], x[3]) + fmaxf(x[4], x[5]);
  return a + b * c + 0.5f * d * e + f;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const std::vector<std::vector<double>> points = {
      {1.3, 0.4, 0.6, -0.8, 0.5, 0.9, -0.7, 1.2},
      {0.45, -0.6, 0.2, 0.7, 1.1, -0.3, 0.8, -0.9},
  };
  for (const auto& pt : points) {
    cgp_test::Checker c("math_f x[6]=" + std::to_string(pt[6]));
    std::vector<float>& x = c.in<float>("x", pt);
    c.primal([&] { return math_f(x.data()); });
    c.grad([&](cgp_test::Grads& d) { return math_f_grad(x.data(), d.f32("x")); });
    c.jvp([&](cgp_test::Tangents& t) { return math_f_jvp(x.data(), t.f32("x")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
