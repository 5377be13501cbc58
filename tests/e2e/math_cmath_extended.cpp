// The rest of <cmath>: asin acos sinh cosh asinh acosh atanh exp2 log2 log10
// erf erfc tgamma lgamma fma fmod remainder copysign fdim ldexp scalbn, the
// three-argument hypot, std::clamp, the rounding functions (floor ceil round
// trunc nearbyint rint: zero derivative) and GNU's sincos, in double with the
// std:: names and in float with the C `f` names, reverse and forward mode.
// Two points: the second puts tgamma and lgamma at negative non-integers
// (their derivatives call cgp::digamma), flips the signs copysign and fdim
// see, and moves clamp's argument out of its range.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/math_cmath_extended.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/math_cmath_extended.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <algorithm>
#include <cmath>
#include <math.h>

CGP_GRAD(x)
CGP_JVP(x)
double more_math(const double* x, int n) {
  double a = std::asin(x[0]) + std::acos(x[1]) + std::atanh(x[0] * x[1]);
  double b = std::sinh(x[2]) * std::cosh(x[3]) + std::asinh(x[3]) + std::acosh(1.5 + x[2] * x[2]);
  double c = std::exp2(x[2]) + std::log2(x[4]) + std::log10(x[4] * x[5]);
  double d = std::erf(x[3]) * std::erfc(x[2]) + std::tgamma(x[6]) + std::lgamma(x[7]);
  double e = std::fma(x[0], x[1], x[2]) + std::fmod(x[4], x[5]) + std::remainder(x[5], 2.0 * x[4]);
  double f = std::copysign(x[2], x[3]) + std::fdim(x[4], x[1]) + std::ldexp(x[0], n) +
             std::scalbn(x[1], -n);
  double g = std::hypot(x[0], x[1], x[2]) + std::clamp(x[3], -0.5, 0.5);
  double h = x[0] * std::floor(x[4]) + x[1] * std::ceil(x[5]) +
             std::round(x[4]) * std::trunc(x[5]) + std::nearbyint(x[6]) + std::rint(x[7]) * x[2];
  double s = 0, co = 0;
  sincos(x[3] * x[2], &s, &co);
  return a + b * c + d + e * f + g + h + s * co;
}

CGP_GRAD(x)
CGP_JVP(x)
float more_math_f(const float* x, int n) {
  float a = asinf(x[0]) + acosf(x[1]) + atanhf(x[0] * x[1]);
  float b = sinhf(x[2]) * coshf(x[3]) + asinhf(x[3]) + acoshf(1.5f + x[2] * x[2]);
  float c = exp2f(x[2]) + log2f(x[4]) + log10f(x[4] * x[5]);
  float d = erff(x[3]) * erfcf(x[2]) + tgammaf(x[6]) + lgammaf(x[7]);
  float e = fmaf(x[0], x[1], x[2]) + fmodf(x[4], x[5]) + remainderf(x[5], 2.0f * x[4]);
  float f = copysignf(x[2], x[3]) + fdimf(x[4], x[1]) + ldexpf(x[0], n) + scalbnf(x[1], -n);
  float g = std::hypot(x[0], x[1], x[2]) + std::clamp(x[3], -0.5f, 0.5f);
  float h = x[0] * floorf(x[4]) + x[1] * ceilf(x[5]) + roundf(x[4]) * truncf(x[5]) +
            nearbyintf(x[6]) + rintf(x[7]) * x[2];
  float s = 0, co = 0;
  sincosf(x[3] * x[2], &s, &co);
  return a + b * c + d + e * f + g + h + s * co;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const std::vector<std::vector<double>> points = {
      {0.35, -0.42, 0.61, 0.27, 1.73, 0.71, 2.35, 3.15},
      {-0.52, 0.11, -0.44, -0.83, 0.38, 1.41, -1.35, -2.65},
  };
  for (const auto& pt : points) {
    {
      cgp_test::Checker c("more_math x[7]=" + std::to_string(pt[7]));
      std::vector<double>& x = c.in("x", pt);
      c.primal([&] { return more_math(x.data(), 3); });
      c.grad([&](cgp_test::Grads& d) { return more_math_grad(x.data(), 3, d.f64("x")); });
      c.jvp([&](cgp_test::Tangents& t) { return more_math_jvp(x.data(), 3, t.f64("x")); });
      c.run();
    }
    {
      cgp_test::Checker c("more_math_f x[7]=" + std::to_string(pt[7]));
      std::vector<float>& x = c.in<float>("x", pt);
      c.primal([&] { return more_math_f(x.data(), 2); });
      c.grad([&](cgp_test::Grads& d) { return more_math_f_grad(x.data(), 2, d.f32("x")); });
      c.jvp([&](cgp_test::Tangents& t) { return more_math_f_jvp(x.data(), 2, t.f32("x")); });
      c.run();
    }
  }
  return cgp_test::finish();
}
#endif
