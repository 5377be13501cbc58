// Helpers calling helpers three deep (cell -> gelu_like -> sigmoid), a helper
// with its own loop over a pointer-offset slice (w + j * k), a helper with
// early returns (clipped), and a void helper accumulating through a pointer
// into a local array; all called from inside a nested loop of the kernel.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/helper_chain_in_loop.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/helper_chain_in_loop.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

double gelu_like(double z) { return z * sigmoid(1.702 * z); }

double clipped(double z, double lim) {
  if (z > lim) return lim + 0.1 * (z - lim);
  if (z < -lim) return -lim + 0.1 * (z + lim);
  return z;
}

double cell(const double* w, double h, double x, int k) {
  double acc = h;
  for (int i = 0; i < k; ++i) acc = gelu_like(w[i] * acc + x);
  return clipped(5.0 * acc, 0.3);
}

void accumulate(double* acc, double v) { acc[0] += v * v; }

CGP_GRAD(w, xs)
CGP_JVP(w, xs)
double chain(const double* w, const double* xs, int T, int k) {
  double h = 0.1;
  double total[1] = {0.0};
  for (int t = 0; t < T; ++t) {
    for (int j = 0; j < 2; ++j) {
      h = cell(w + j * k, h, xs[t], k);
      accumulate(total, h);
    }
  }
  return total[0] + h;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int T = 6, k = 3;
  // explicit inputs take both clipping returns; the random ones the middle
  // and the lower one. Every |z| stays at least 0.18 from the limit.
  const std::vector<double> w_fixed = {1.2, 0.9, 1.1, -0.8, 1.3, 0.7};
  const std::vector<double> xs_fixed = {0.8, -0.5, 0.9, 0.3, -0.9, 0.6};
  for (int fixed = 1; fixed >= 0; --fixed) {
    cgp_test::Checker c(std::string("chain T=6 k=3 ") + (fixed ? "fixed inputs" : "random inputs"));
    std::vector<double>& w = fixed ? c.in("w", w_fixed) : c.in("w", 2 * k, -1.5, 1.5);
    std::vector<double>& xs = fixed ? c.in("xs", xs_fixed) : c.in("xs", T, -1.0, 1.0);
    c.primal([&] { return chain(w.data(), xs.data(), T, k); });
    c.grad([&](cgp_test::Grads& d) { return chain_grad(w.data(), xs.data(), T, k, d.f64("w"), d.f64("xs")); });
    c.jvp([&](cgp_test::Tangents& t) { return chain_jvp(w.data(), xs.data(), T, k, t.f64("w"), t.f64("xs")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
