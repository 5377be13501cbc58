// int and bool locals around active code: int counters and sums with % and
// integer /, int -> double division for a mean, bool flags combined with
// || and &&, a bool parameterising a ?: on active values, and a loop with a
// run-time stride.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/int_bool_locals.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/int_bool_locals.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>

CGP_GRAD(x)
CGP_JVP(x)
double int_bool_logic(const double* x, const int* bucket, int n, int stride) {
  int count = 0;
  int sum_idx = 0;
  bool any_neg = false;
  double s = 0.0;
  for (int i = 0; i < n; i += stride) {
    int b = bucket[i] % 3;
    int q = i / 2;
    bool neg = x[i] < 0.0;
    any_neg = any_neg || neg;
    if (neg && b != 1) {
      count++;
      s -= x[i] * q;
    } else if (!neg && (b == 0 || i % 2 == 0)) {
      sum_idx += i;
      s += x[i] * x[i] * (b + 1);
    } else {
      s += 0.5 * x[i] * (q + 1);
    }
  }
  double mean_idx = count > 0 ? (double)sum_idx / count : 0.0;
  bool flag = any_neg && count % 2 == 0;
  return s * (1.0 + 0.1 * mean_idx) + (flag ? x[0] : -x[0]);
}

#ifndef __CGP_AD__
#include <cmath>

#include "check.h"

int main() {
  const int n = 13;
  std::vector<int> bucket(n);
  for (int i = 0; i < n; ++i) bucket[i] = (i * i + 1) % 7;
  // bucket[i] % 3 = 1 2 2 0 0 2 2 1 2 2 0 0 2. With xa: stride 1 takes all
  // three arms and an even count (flag true); strides 2 and 3 an odd count;
  // all entries positive (last config): count stays 0.
  const std::vector<double> xa = {-0.7, 0.4, 1.1, -0.3, 0.9, -1.2, 0.5, 0.8, -0.6, 1.3, 0.2, -0.9, 0.6};
  std::vector<double> xpos(xa);
  for (double& v : xpos) v = std::fabs(v);
  for (int cfg = 1; cfg <= 4; ++cfg) {
    const int stride = cfg == 4 ? 1 : cfg;
    cgp_test::Checker c("int_bool_logic stride=" + std::to_string(stride) + (cfg == 4 ? " all positive" : ""));
    std::vector<double>& x = c.in("x", cfg == 4 ? xpos : xa);
    c.primal([&] { return int_bool_logic(x.data(), bucket.data(), n, stride); });
    c.grad([&](cgp_test::Grads& d) { return int_bool_logic_grad(x.data(), bucket.data(), n, stride, d.f64("x")); });
    c.jvp([&](cgp_test::Tangents& t) { return int_bool_logic_jvp(x.data(), bucket.data(), n, stride, t.f64("x")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
