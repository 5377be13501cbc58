// A grid-stride loop with an early exit: a fixed grid walks an array of any length, each
// thread from its global index by steps of the whole grid, and stops at the first index past
// the valid prefix, whose length *count was computed on the device. y[i] = softplus(x[i] +
// b[0]) for the valid i; y past the prefix is left as it was. Gradients with respect to x, b
// and y (in/out: d_y holds its seed on entry; on exit 0 where y was written, the seed where
// it was not) against finite differences, under the host emulation of CUDA (3 blocks of 32
// threads, 3 to 4 iterations each) and ThreadSanitizer. d_x is each thread's own: its bits
// are compared across runs, accumulation and strategies; d_b, which every thread adds into,
// is summed in the order the threads come, and compared to rounding.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all %t/budget
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/budget --memory-budget=48 -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/grid_stride.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/grid_stride.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/budget/grid_stride.cgp.cu -o %t/emu-budget -pthread %ldflags
// RUN: %t/emu-budget %t/budget.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: cmp %t/budget.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/grid_stride.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/grid_stride.cgp.cu -I%S
// RUN: %nvcc-compile %t/budget/grid_stride.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// TIME: TIME softplus_valid_grad
// COUNTS: COUNTS softplus_valid 96 0 0 0 0 0 0{{$}}
// COUNTS: COUNTS softplus_valid_grad 96
#include <cgp/cgp.h>

CGP_GRAD(x, b, y)
__global__ void softplus_valid(const double *x, const double *b, const int *count, double *y,
                               int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (i >= *count)
      break;
    y[i] = log1p(exp(x[i] + b[0]));
  }
}

#ifndef __CGP_AD__
#include "grid_stride.cgp.h"
#include "kernel_test.h"

using cgp_cuda_test::DeviceArray;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

/// --time: 2^24 elements, 7/8 of them valid, on a grid of 1024 blocks of 256 threads on a
/// GPU (2^10 elements and 4 blocks of 64 under the emulation).
void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 24, blocks = 1024, threads = 256, runs = 20;
#else
  const int n = 1 << 10, blocks = 4, threads = 64, runs = 3;
#endif
  const int valid = n - n / 8;
  std::printf("timing on %d elements (%d valid), %d blocks of %d, medians of %d launches\n", n,
              valid, blocks, threads, runs);
  std::mt19937 rng(17);
  const Vec seed = kernel_test::uniform(rng, n, 0.5, 1.5);
  DeviceArray<int> count(std::vector<int>{valid});
  DeviceArray<double> x(kernel_test::uniform(rng, n, -2, 2)), b(Vec{0.25}), y(n), gx(n), gb(1),
      gy(seed);
  const double primalMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(softplus_valid, blocks, threads, x.get(), b.get(), count.get(), y.get(), n);
  });
  // Each launch uses up the seeds of the y it writes: put them back.
  const double gradMs = cgp_cuda_test::median_ms(runs, [&] { gy.upload(seed); }, [&] {
    CGP_LAUNCH(softplus_valid_grad, blocks, threads, x.get(), b.get(), count.get(), y.get(), n,
               gx.get(), gb.get(), gy.get());
  });
  cgp_cuda_test::print_time("softplus_valid_grad", primalMs, gradMs);
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  const int n = 340, valid = 301, blocks = 3, threads = 32;
  std::mt19937 rng(31);
  const Vec x = kernel_test::uniform(rng, n, -2, 2), b{0.25},
            y0 = kernel_test::uniform(rng, n, -1, 1), seed = kernel_test::uniform(rng, n, 0.5, 1.5);
  DeviceArray<int> count(std::vector<int>{valid});

  struct Result {
    Vec dx, db, dy, y;
  };
  // `launches` gradient launches into zeroed d_x, d_b, each from y = y0 and with the seeds in
  // d_y.
  auto gradient = [&](int launches) {
    DeviceArray<double> dx(x), db(b), y(n), gx(n), gb(1), gy(n);
    for (int l = 0; l < launches; ++l) {
      y.upload(y0);
      gy.upload(seed);
      CGP_LAUNCH(softplus_valid_grad, blocks, threads, dx.get(), db.get(), count.get(), y.get(),
                 n, gx.get(), gb.get(), gy.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{gx.download(), gb.download(), gy.download(), y.download()};
  };
  auto primal = [&](const Vec &xv, const Vec &bv, const Vec &yv) {
    DeviceArray<double> dx(xv), db(bv), y(yv);
    CGP_LAUNCH(softplus_valid, blocks, threads, dx.get(), db.get(), count.get(), y.get(), n);
    CGP_CUDA_SYNC_CHECK();
    return y.download();
  };

  if (opt.mode == Mode::Races) {
    gradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    primal(x, b, y0);
    kernel_test::print_counts("softplus_valid");
    gradient(1);
    kernel_test::print_counts("softplus_valid_grad");
    return 0;
  }

  auto loss = [&](const Vec &xv, const Vec &bv, const Vec &yv) {
    const Vec y = primal(xv, bv, yv);
    double L = 0;
    for (int k = 0; k < n; ++k)
      L += seed[k] * y[k];
    return L;
  };
  const Result once = gradient(1);
  // First and later strides, the last valid element and one past the prefix.
  kernel_test::check_gradient("softplus_valid d_x", x, once.dx, {0, 95, 96, 200, 300, 301, 339},
                              kernel_test::uniform(rng, n, -1, 1),
                              [&](const Vec &v) { return loss(v, b, y0); }, 1e-3, 1e-8, 1e-10);
  cgp_cuda_test::check_close(
      "softplus_valid d_b against finite differences", once.db,
      cgp_cuda_test::fd_gradient([&](const Vec &v) { return loss(x, v, y0); }, b, 1e-3), 1e-8,
      1e-10);
  // d_y: 0 where y was written, the seed past the prefix.
  kernel_test::check_gradient("softplus_valid d_y", y0, once.dy, {0, 200, 300, 301, 339},
                              kernel_test::uniform(rng, n, -1, 1),
                              [&](const Vec &v) { return loss(x, b, v); }, 1e-3, 1e-8, 1e-10);
  // To rounding: nvcc may contract the gradient's forward sweep and the primal differently.
  cgp_cuda_test::check_close("softplus_valid_grad leaves the primal's y", once.y,
                             primal(x, b, y0), 1e-12);

  const Result twice = gradient(2), again = gradient(1);
  kernel_test::check_accumulates("softplus_valid d_x", once.dx, twice.dx, true);
  kernel_test::check_accumulates("softplus_valid d_b", once.db, twice.db, false);
  kernel_test::check_repeats("softplus_valid d_x", once.dx, again.dx, true);
  kernel_test::check_repeats("softplus_valid d_b", once.db, again.db, false);
  Vec bits = once.dx;
  bits.insert(bits.end(), once.dy.begin(), once.dy.end());
  cgp_cuda_test::dump_bits(opt.dump, bits);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
