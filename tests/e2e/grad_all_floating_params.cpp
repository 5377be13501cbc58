// CGP_GRAD() with no names: every floating parameter gets a d_ buffer, in
// parameter order, of its own element type (float scalar, double scalar,
// const float*, const double*, float[] (non-const: in/out)), while int, bool
// and const int* parameters get none. Also a void CGP_GRAD() kernel.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/grad_all_floating_params.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/grad_all_floating_params.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD()
CGP_JVP()
double everything(float f, double d, const float* fp, const double* dp, float fa[], int n, bool flag,
                  const int* idx) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    double t = static_cast<double>(fp[i]) * dp[i] + d * static_cast<double>(fa[i]);
    s += flag ? t * t : std::sin(t);
  }
  return s * static_cast<double>(f) + dp[idx[0]] * static_cast<double>(fa[idx[1]]);
}

CGP_GRAD()
CGP_JVP()
void all_void(double* out, const double* in, double s, int n) {
  for (int i = 0; i < n; ++i) out[i] = out[i] * s + std::exp(in[i] * s);
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int n = 5;
  const int idx[2] = {3, 1};
  for (int flag = 0; flag < 2; ++flag) {
    cgp_test::Checker c("everything flag=" + std::to_string(flag));
    float& f = c.scalar<float>("f", 0.7);
    double& d = c.scalar("d", -1.1);
    std::vector<float>& fp = c.in<float>("fp", n, -1.0, 1.0);
    std::vector<double>& dp = c.in("dp", n, -1.0, 1.0);
    std::vector<float>& fa = c.inout<float>("fa", n, -1.0, 1.0);
    c.float_precision();
    c.primal([&] { return everything(f, d, fp.data(), dp.data(), fa.data(), n, flag != 0, idx); });
    c.grad([&](cgp_test::Grads& g) {
      return everything_grad(f, d, fp.data(), dp.data(), fa.data(), n, flag != 0, idx, g.f32("f"), g.f64("d"),
                             g.f32("fp"), g.f64("dp"), g.f32("fa"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return everything_jvp(f, d, fp.data(), dp.data(), fa.data(), n, flag != 0, idx, t.s32("f"), t.s64("d"),
                             t.f32("fp"), t.f64("dp"), t.f32("fa"));
    });
    c.run();
  }
  {
    cgp_test::Checker c("all_void");
    std::vector<double>& out = c.inout("out", n, -1.0, 1.0);
    std::vector<double>& in = c.in("in", n, -1.0, 1.0);
    double& s = c.scalar("s", 0.9);
    c.primal_void([&] { all_void(out.data(), in.data(), s, n); });
    c.grad_void([&](cgp_test::Grads& g) { all_void_grad(out.data(), in.data(), s, n, g.f64("out"), g.f64("in"), g.f64("s")); });
    c.jvp_void([&](cgp_test::Tangents& t) {
      all_void_jvp(out.data(), in.data(), s, n, t.f64("out"), t.f64("in"), t.s64("s"));
    });
    c.run();
  }
  return cgp_test::finish();
}
#endif
