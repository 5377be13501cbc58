// Warp-shuffle reduction: each thread computes f(x[i]) = sqrt(1 + x[i]^2), each warp sums
// its lanes' values with a __shfl_down_sync tree, and lane 0 adds the warp's sum into *total
// with one atomicAdd. Gradients with respect to x and total (total is only added into: d_total
// holds the seed on entry and on exit) against finite differences, under the host emulation
// of CUDA (3 blocks of 64 threads, the last warp part past the end of x) and ThreadSanitizer.
// Every lane's adjoint is its own (the shuffles' pullbacks add in a fixed order), so the bits
// are compared across runs, accumulation and strategies.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all %t/budget
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/budget --memory-budget=48 -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/warp_reduce.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/warp_reduce.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/budget/warp_reduce.cgp.cu -o %t/emu-budget -pthread %ldflags
// RUN: %t/emu-budget %t/budget.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: cmp %t/budget.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/warp_reduce.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/warp_reduce.cgp.cu -I%S
// RUN: %nvcc-compile %t/budget/warp_reduce.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// TIME: TIME warp_sum_grad
// COUNTS: COUNTS warp_sum 192 6 6 0 960 0 0{{$}}
// COUNTS: COUNTS warp_sum_grad 192
#include <cgp/cgp.h>

CGP_GRAD(x, total)
__global__ void warp_sum(const double *x, double *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = i < n ? sqrt(1.0 + x[i] * x[i]) : 0.0;
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0)
    atomicAdd(total, v);
}

#ifndef __CGP_AD__
#include "warp_reduce.cgp.h"
#include "kernel_test.h"

using cgp_cuda_test::DeviceArray;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

/// --time: 2^24 elements on a GPU (2^8 under the emulation), blocks of 256.
void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 24, runs = 20;
#else
  const int n = 1 << 8, runs = 3;
#endif
  const int threads = 256, blocks = (n + threads - 1) / threads;
  std::printf("timing on %d elements (%d blocks of %d), medians of %d launches\n", n, blocks,
              threads, runs);
  std::mt19937 rng(17);
  DeviceArray<double> x(kernel_test::uniform(rng, n, -1, 1)), total(1), gx(n), gtotal(Vec{1.0});
  const double primalMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(warp_sum, blocks, threads, x.get(), total.get(), n);
  });
  const double gradMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(warp_sum_grad, blocks, threads, x.get(), total.get(), n, gx.get(), gtotal.get());
  });
  cgp_cuda_test::print_time("warp_sum_grad", primalMs, gradMs);
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  const int n = 170, threads = 64, blocks = (n + threads - 1) / threads; // 3 blocks
  std::mt19937 rng(41);
  const Vec x = kernel_test::uniform(rng, n, -2, 2);
  const double seed = 1.25, total0 = 0.5;

  struct Result {
    Vec dx;
    double dtotal, total;
  };
  // `launches` gradient launches into a zeroed d_x, each from *total = total0, with the seed
  // in d_total.
  auto gradient = [&](int launches) {
    DeviceArray<double> dx(x), total(1), gx(n), gtotal(Vec{seed});
    for (int l = 0; l < launches; ++l) {
      total.upload(Vec{total0});
      CGP_LAUNCH(warp_sum_grad, blocks, threads, dx.get(), total.get(), n, gx.get(),
                 gtotal.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{gx.download(), gtotal.download()[0], total.download()[0]};
  };
  auto primal = [&](const Vec &xv, double t) {
    DeviceArray<double> dx(xv), total(Vec{t});
    CGP_LAUNCH(warp_sum, blocks, threads, dx.get(), total.get(), n);
    CGP_CUDA_SYNC_CHECK();
    return total.download()[0];
  };

  if (opt.mode == Mode::Races) {
    gradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    primal(x, total0);
    kernel_test::print_counts("warp_sum");
    gradient(1);
    kernel_test::print_counts("warp_sum_grad");
    return 0;
  }

  const Result once = gradient(1);
  kernel_test::check_gradient("warp_sum d_x", x, once.dx, {0, 1, 16, 31, 32, 100, 169},
                              kernel_test::uniform(rng, n, -1, 1),
                              [&](const Vec &v) { return seed * primal(v, total0); }, 1e-3, 1e-8,
                              1e-10);
  cgp_cuda_test::check_close(
      "warp_sum d_total (the adjoint of total's entry value) against finite differences",
      once.dtotal,
      cgp_cuda_test::central_difference(
          [&](const Vec &t) { return seed * primal(x, t[0]); }, Vec{total0}, 0, 1e-3),
      1e-8, 1e-10);
  // The warps add into the total in the order they come: to rounding.
  cgp_cuda_test::check_close("warp_sum_grad leaves the primal's total", once.total,
                             primal(x, total0), 1e-12);

  const Result twice = gradient(2), again = gradient(1);
  kernel_test::check_accumulates("warp_sum d_x", once.dx, twice.dx, true);
  kernel_test::check_repeats("warp_sum d_x", once.dx, again.dx, true);
  cgp_cuda_test::check("warp_sum d_total: a second launch leaves the seed",
                       twice.dtotal == seed);
  cgp_cuda_test::dump_bits(opt.dump, once.dx);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
