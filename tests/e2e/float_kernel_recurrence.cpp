// A float kernel with a long carried recurrence (damped driven oscillator,
// semi-implicit Euler over a run-time step count), float literals, an int to
// float cast in an inactive term, std::sin(float), and a float -> double ->
// float round trip on the result.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/float_kernel_recurrence.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/float_kernel_recurrence.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(a, u0)
CGP_JVP(a, u0)
float damped_oscillator(const float* a, float u0, int steps) {
  float u = u0;
  float v = 0.0f;
  float energy = 0.0f;
  const float dt = 0.05f;
  for (int s = 0; s < steps; ++s) {
    float acc = -a[0] * u - a[1] * v + a[2] * std::sin(0.3f * (float)s);
    v += dt * acc;
    u += dt * v;
    energy += 0.5f * (u * u + v * v) * dt;
  }
  double e = static_cast<double>(energy);
  return static_cast<float>(e * 0.5) + u;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int steps_list[2] = {40, 7};
  for (int steps : steps_list) {
    cgp_test::Checker c("damped_oscillator (float) steps=" + std::to_string(steps));
    std::vector<float>& a = c.in<float>("a", std::vector<double>{2.0, 0.3, 0.5});
    float& u0 = c.scalar<float>("u0", 0.8);
    c.primal([&] { return damped_oscillator(a.data(), u0, steps); });
    c.grad([&](cgp_test::Grads& d) { return damped_oscillator_grad(a.data(), u0, steps, d.f32("a"), d.f32("u0")); });
    c.jvp([&](cgp_test::Tangents& t) { return damped_oscillator_jvp(a.data(), u0, steps, t.f32("a"), t.s32("u0")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
