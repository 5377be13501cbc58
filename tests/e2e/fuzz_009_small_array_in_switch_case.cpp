// Found by the fuzzer (tests/fuzz, the generator with structs, seed 425).
// A small local array (here a struct's member array) declared in a `switch`
// case inside a loop: scalar replacement split it into h_0, h_1, h_2 but did
// not declare them, since it rewrote the statements of blocks and not those
// of case bodies, and the generated code did not compile.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_009_small_array_in_switch_case.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

struct V {
  double x, y, z;
  double dot(const V& o) const { return x * o.x + y * o.y + z * o.z; }
};
struct Body {
  V pos;
  V vel{};
  double hist[3] = {0.5, 0.25, 0.125};
};

CGP_GRAD(x)
double k(const double* x) {
  double t = x[0];
  for (int i = 0; i < 3; ++i) {
    switch (static_cast<int>(2.0 + std::tanh(t))) {
      case 2: {
        double h[3] = {0.5, 0.25, 0.125};
        Body b{};
        b.pos.x = x[1];
        t += std::tanh(b.vel.dot(b.pos) + h[1] * t + b.pos.x);
      } break;
      default:
        t += 0.1 * x[1];
        break;
    }
  }
  return t;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker c("small arrays declared in a switch case");
  std::vector<double>& x = c.in("x", 2, -0.5, 0.5);
  c.primal([&] { return k(x.data()); });
  c.grad([&](cgp_test::Grads& d) { return k_grad(x.data(), d.f64("x")); });
  c.run();
  return cgp_test::finish();
}
#endif
