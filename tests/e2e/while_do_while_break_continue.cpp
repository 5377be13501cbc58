// while (true) with break, while with continue, do-while with continue
// (which jumps to the condition), and a depth-3 nest of for / do-while /
// while whose innermost loop ends by its condition or by a break; all bounds
// are int parameters.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/while_do_while_break_continue.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/while_do_while_break_continue.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(a)
CGP_JVP(a)
double loop_mix(const double* a, int n, int m) {
  double s = 0.0;
  int i = 0;
  while (true) {
    if (i >= n) break;
    double v = a[i];
    ++i;
    if (i % 3 == 0) continue;
    s += v * v;
  }
  int j = 0;
  double p = 1.0;
  do {
    double t = a[j % n];
    ++j;
    if (j % 2 == 0) continue;
    p *= 1.0 + 0.1 * t;
  } while (j < m);
  int k = n - 1;
  while (k >= 0) {
    if (a[k] < -0.8) {
      --k;
      continue;
    }
    p += 0.05 * std::sin(a[k] * p);
    k -= 2;
  }
  for (int r = 0; r < 2; ++r) {
    int q = 0;
    do {
      int u = q;
      while (u < n) {
        s += 0.01 * a[u] * p * (r + 1);
        u += 2;
        if (u + q > n) break;
      }
      ++q;
    } while (q < 3);
  }
  return s + p;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int sizes[2][2] = {{7, 9}, {10, 4}};
  for (const auto& sz : sizes) {
    const int n = sz[0], m = sz[1];
    cgp_test::Checker c("loop_mix n=" + std::to_string(n) + " m=" + std::to_string(m));
    std::vector<double>& a = c.in("a", n, -1.0, 1.0);
    a[1] = -0.9;  // takes the continue of the third loop
    c.primal([&] { return loop_mix(a.data(), n, m); });
    c.grad([&](cgp_test::Grads& d) { return loop_mix_grad(a.data(), n, m, d.f64("a")); });
    c.jvp([&](cgp_test::Tangents& t) { return loop_mix_jvp(a.data(), n, m, t.f64("a")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
