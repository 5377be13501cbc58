// Found by the fuzzer (tests/fuzz, the generator with structs, seeds 15 and
// 28). A range-based for over a member array of a struct parameter (a
// kernel's `B&`, a helper's `const B&`) was refused: the member is a pointer
// parameter once the struct is split, and the loop took its extent from the
// variable. It takes it from the struct's member now.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_008_range_for_over_struct_parameter_member.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>

struct B {
  double hist[3];
  double w;
};

double g(const B& b) {
  double s = 0.0;
  for (const double& v : b.hist) s += v * b.w;
  return s;
}

CGP_GRAD(b)
double k(B& b) {
  double s = 0.0;
  for (double v : b.hist) s += v * v;
  for (double& v : b.hist) v *= 0.5;
  return s + g(b);
}

#ifndef __CGP_AD__
#include "check.h"

double k_grad(B& b, B* d_b);

int main() {
  cgp_test::Checker c("range-for over a struct parameter's member array");
  std::vector<double>& b = c.inout("b", 4, -1.0, 1.0);
  auto load = [](const double* v) { return B{{v[0], v[1], v[2]}, v[3]}; };
  auto store = [](const B& s, double* v) {
    for (int i = 0; i < 3; ++i) v[i] = s.hist[i];
    v[3] = s.w;
  };
  c.primal([&] {
    B s = load(b.data());
    double value = k(s);
    store(s, b.data());
    return value;
  });
  c.grad([&](cgp_test::Grads& d) {
    B s = load(b.data()), ds = load(d.f64("b"));
    double value = k_grad(s, &ds);
    store(s, b.data());
    store(ds, d.f64("b"));
    return value;
  });
  c.run();
  return cgp_test::finish();
}
#endif
