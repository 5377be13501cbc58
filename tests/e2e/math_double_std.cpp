// Every math function of the contract in its std:: double form: sqrt exp log
// log1p expm1 sin cos tan tanh atan atan2 pow hypot cbrt fabs fmin fmax, at
// two points chosen so each branchy one (fabs, fmin, fmax, atan2 quadrant,
// cbrt sign) sits well inside one side; the second point takes the other side.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/math_double_std.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/math_double_std.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x)
CGP_JVP(x)
double math_std(const double* x) {
  double a = std::sqrt(x[0]) + std::exp(x[1]) + std::log(x[0] + x[2]);
  double b = std::log1p(x[2]) + std::expm1(x[1] * x[3]);
  double c = std::sin(x[3]) * std::cos(x[4]) + std::tan(x[4]);
  double d = std::tanh(x[5]) + std::atan(x[5] * x[1]) + std::atan2(x[6], x[7]);
  double e = std::pow(x[0], x[7]) + std::hypot(x[6], x[7]) + std::cbrt(x[2] + x[6]);
  double f = std::fabs(x[6]) * std::fmin(x[1], x[3]) + std::fmax(x[4], x[5]);
  return a + b * c + d * e + f;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const std::vector<std::vector<double>> points = {
      {1.3, 0.4, 0.6, -0.8, 0.5, 0.9, -0.7, 1.2},
      {0.45, -0.6, 0.2, 0.7, 1.1, -0.3, 0.8, -0.9},
  };
  for (const auto& pt : points) {
    cgp_test::Checker c("math_std x[6]=" + std::to_string(pt[6]));
    std::vector<double>& x = c.in("x", pt);
    c.primal([&] { return math_std(x.data()); });
    c.grad([&](cgp_test::Grads& d) { return math_std_grad(x.data(), d.f64("x")); });
    c.jvp([&](cgp_test::Tangents& t) { return math_std_jvp(x.data(), t.f64("x")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
