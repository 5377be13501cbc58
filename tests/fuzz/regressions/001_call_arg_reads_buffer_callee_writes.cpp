// Found by the fuzzer (tests/fuzz, seed 24 of the first generator). A helper
// call whose scalar argument reads a buffer that the same call writes:
// h(io, io[0] * 2.0). The reverse sweep evaluates the argument again
// (h_rev(io, *io * 2.0, ...)) after the forward sweep has left the callee's
// result in io[0], so the helper's reverse sees the wrong u. Expected
// d_io[0] = 4 * io[0] (f = 2 io^2); cgp-ad gives 2 io + 2 (2 io^2) instead.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/001_call_arg_reads_buffer_callee_writes.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

void scale_first(double* y, double u) { y[0] = u * y[0]; }

CGP_GRAD(io)
double arg_reads_output(double* io) {
  scale_first(io, io[0] * 2.0);
  return io[0];
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  cgp_test::Checker c("arg_reads_output");
  std::vector<double>& io = c.inout("io", {-0.5819});
  c.seed("io", {0.0});
  c.primal([&] { return arg_reads_output(io.data()); });
  c.grad([&](cgp_test::Grads& d) { return arg_reads_output_grad(io.data(), d.f64("io")); });
  c.expect_grad("io", {4 * -0.5819}, 1e-12);
  c.run();
  return cgp_test::finish();
}
#endif
