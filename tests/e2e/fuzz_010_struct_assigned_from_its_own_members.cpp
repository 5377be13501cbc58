// Found by the fuzzer (tests/fuzz, the generator with structs, seeds 84,
// 243 and 294): wrong gradients. `b.pos = {t, b.vel.y, b.pos.x};` builds the
// whole value before it assigns, so its last member is the old b.pos.x; the
// lowering assigned member by member and read the new one. A braced
// assignment that reads a member it sets now goes through temporaries.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_010_struct_assigned_from_its_own_members.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

struct V {
  double x, y, z;
};
struct B {
  V pos;
  V vel;
};

CGP_GRAD(b, t)
double k(B& b, double t) {
  b.pos = {t, b.vel.y, b.pos.x};
  b.vel = {b.vel.z, b.vel.x, std::sin(b.vel.y)};
  return b.pos.x * b.pos.y + b.pos.z + b.vel.x * b.vel.y * b.vel.z;
}

#ifndef __CGP_AD__
#include "check.h"

double k_grad(B& b, double t, B* d_b, double* d_t);

int main() {
  cgp_test::Checker c("braced assignment reading the members it sets");
  std::vector<double>& b = c.inout("b", 6, -1.0, 1.0);
  double& t = c.scalar("t", 0.7);
  auto load = [](const double* v) { return B{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}}; };
  auto store = [](const B& s, double* v) {
    const double flat[6] = {s.pos.x, s.pos.y, s.pos.z, s.vel.x, s.vel.y, s.vel.z};
    for (int i = 0; i < 6; ++i) v[i] = flat[i];
  };
  c.primal([&] {
    B s = load(b.data());
    double value = k(s, t);
    store(s, b.data());
    return value;
  });
  c.grad([&](cgp_test::Grads& d) {
    B s = load(b.data()), ds = load(d.f64("b"));
    double value = k_grad(s, t, &ds, d.f64("t"));
    store(s, b.data());
    store(ds, d.f64("b"));
    return value;
  });
  c.run();
  return cgp_test::finish();
}
#endif
