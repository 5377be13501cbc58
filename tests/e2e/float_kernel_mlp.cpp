// A known trap: a float kernel (every value, parameter and d_ buffer is
// float): one-hidden-layer MLP with tanhf and a softmax cross-entropy using
// expf, logf and fmaxf for the max shift.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/float_kernel_mlp.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/float_kernel_mlp.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <math.h>

CGP_GRAD(W1, b1, W2, x)
CGP_JVP(W1, b1, W2, x)
float mlp_xent(const float* W1, const float* b1, const float* W2, const float* x, int target, int nin, int nh,
               int nout) {
  float h[16];
  float o[8];
  if (nh > 16 || nout > 8) return 0.0f;
  for (int j = 0; j < nh; ++j) {
    float z = b1[j];
    for (int i = 0; i < nin; ++i) z += W1[j * nin + i] * x[i];
    h[j] = tanhf(z);
  }
  float m = -1e30f;
  for (int k = 0; k < nout; ++k) {
    o[k] = 0.0f;
    for (int j = 0; j < nh; ++j) o[k] += W2[k * nh + j] * h[j];
    m = fmaxf(m, o[k]);
  }
  float sum = 0.0f;
  for (int k = 0; k < nout; ++k) sum += expf(o[k] - m);
  return logf(sum) + m - o[target];
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int nin = 4, nh = 6, nout = 3;
  for (int target = 0; target < 2; ++target) {
    cgp_test::Checker c("mlp_xent (float) target=" + std::to_string(target));
    std::vector<float>& W1 = c.in<float>("W1", nh * nin, -0.8, 0.8);
    std::vector<float>& b1 = c.in<float>("b1", nh, -0.3, 0.3);
    std::vector<float>& W2 = c.in<float>("W2", nout * nh, -0.8, 0.8);
    std::vector<float>& x = c.in<float>("x", nin, -1.0, 1.0);
    c.primal([&] { return mlp_xent(W1.data(), b1.data(), W2.data(), x.data(), target, nin, nh, nout); });
    c.grad([&](cgp_test::Grads& d) {
      return mlp_xent_grad(W1.data(), b1.data(), W2.data(), x.data(), target, nin, nh, nout, d.f32("W1"), d.f32("b1"),
                           d.f32("W2"), d.f32("x"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return mlp_xent_jvp(W1.data(), b1.data(), W2.data(), x.data(), target, nin, nh, nout, t.f32("W1"), t.f32("b1"),
                           t.f32("W2"), t.f32("x"));
    });
    c.run();
  }
  return cgp_test::finish();
}
#endif
