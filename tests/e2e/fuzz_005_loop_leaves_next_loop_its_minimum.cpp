// Found by the fuzzer (tests/fuzz, seed 6131). Under a budget of 2 KiB, a
// counted loop of 76 iterations (its trip count known at run time) planned
// segments as long as the room allowed, and its forward sweep left the
// last segment's tape, 63 iterations, on the tape. The loop after it may
// leave early (`break`, `return`), so it is checkpointed online and needs
// two snapshots and one iteration's tape at the least (84 bytes); it found
// 12. The call held 2140 bytes, over a budget that is above the kernel's
// minimum (announced under CGP_DEBUG, so no check failed). The first loop's
// plan knew nothing of the second: a counted loop that may leave early was
// not counted among the loops after it that plan their own reversal. Now
// those loops' least needs are kept out of the first loop's room, and the
// call holds 1996 bytes. (It showed once segments were counted from the
// loop's end, which leaves a whole segment on the tape; before, the last
// segment held 13 iterations, by luck.)
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --memory-budget=1GiB %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/fuzz_005_loop_leaves_next_loop_its_minimum.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: env CGP_MEMORY_BUDGET=2048 CGP_DEBUG=1 CGP_STATS=1 %t/run > %t/log 2>&1
// RUN: FileCheck %s < %t/log
// RUN: %check-strategies %s %t/strategies
// CHECK-NOT: this call held
// CHECK-NOT: below this loop's minimum
// CHECK: cgp-stats: {"peak_tape_bytes": {{1[0-9][0-9][0-9]|20[0-3][0-9]|204[0-8]}},
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x)
double two_loops(const double x[4], double c, double s, int m, int n) {
  double t2 = std::tanh((-((-1.43) * (c * x[n]))));
  double t3 = s;
  for (int i4 = 0; (i4 < (n * 38)); ++i4) {
    t2 = tanh(((0.5 * t2) + (0.23 * tanh((c / (1.64 + (t2 * t2)))))));
    t3 = std::atan(((0.48 * t3) + (0.3 * std::tanh((t2 + t2)))));
    double t5 = t3;
    t3 += (0.27 * std::tanh(t3));
    t2 += c;
  }
  for (int i6 = 0; (i6 < 2); ++i6) {
    if ((-t3) <= (-0.55)) {
      continue;
    }
    for (int i7 = 0; (i7 < m); ++i7) {
      if (c < 0.96) {
        if (t3 >= t2) {
          t3 = x[3];
          break;
        }
        if (((-0.42) * t2) >= (-0.21)) {
          return (t2 + (s * c));
        }
      }
    }
    t2 = t3;
    if (!(t3 > 0.91)) {
      if ((t3 / (1.82 + (t2 * t2))) <= ((-0.06) + t3)) {
        return ((0.23 * t3) + t2);
      }
      break;
    }
  }
  double t8 = t2;
  if (t8 >= t8) {
    t2 += (0.25 * std::tanh(x[n]));
  }
  return (((((t3 - (1.05 * t2)) - c) - s) - (0.63 * t8)) + (0.29 * t8));
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker ch("two_loops m=1 n=2");
  std::vector<double> &x = ch.in("x", {0.1356, -0.4615, -0.6299, 0.1908});
  const double c = -0.3631, s = 0.8273;
  ch.primal([&] { return two_loops(x.data(), c, s, 1, 2); });
  ch.grad([&](cgp_test::Grads &d) { return two_loops_grad(x.data(), c, s, 1, 2, d.f64("x")); });
  ch.run();
  return cgp_test::finish();
}
#endif
