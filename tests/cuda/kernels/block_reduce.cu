// Block reduction: each block sums f(x[i]) = log(1 + x[i]^2) over its elements with a
// tree in __shared__ memory (halving the stride, __syncthreads() after each level) and
// thread 0 writes the block's partial sum. Gradient with respect to x (in/out seed
// d_partial) against finite differences, under the host emulation of CUDA (3 blocks of
// 128 threads, the last one part empty) and ThreadSanitizer. Every adjoint element gets
// one contribution, so the bits are the same in every run and under every strategy.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all %t/budget
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/budget --memory-budget=64 -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/block_reduce.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/block_reduce.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/budget/block_reduce.cgp.cu -o %t/emu-budget -pthread %ldflags
// RUN: %t/emu-budget %t/budget.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: cmp %t/budget.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/block_reduce.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/block_reduce.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// TIME: TIME block_sum_grad
// COUNTS: COUNTS block_sum 384 0 0 0 0 0 3072{{$}}
// COUNTS: COUNTS block_sum_grad 384
#include <cgp/cgp.h>

constexpr int BLOCK = 128; // threads per block

CGP_GRAD(x, partial)
__global__ void block_sum(const double *x, double *partial, int n) {
  __shared__ double s[BLOCK];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? log1p(x[i] * x[i]) : 0.0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    partial[blockIdx.x] = s[0];
}

#ifndef __CGP_AD__
#include "block_reduce.cgp.h"
#include "kernel_test.h"

using cgp_cuda_test::DeviceArray;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

/// --time: 2^24 elements on a GPU (2^10 under the emulation).
void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 24, runs = 20;
#else
  const int n = 1 << 10, runs = 3;
#endif
  const int blocks = (n + BLOCK - 1) / BLOCK;
  std::printf("timing on %d elements (%d blocks of %d), medians of %d launches\n", n, blocks,
              BLOCK, runs);
  std::mt19937 rng(17);
  const Vec seed = kernel_test::uniform(rng, blocks, 0.5, 1.5);
  DeviceArray<double> x(kernel_test::uniform(rng, n, -1, 1)), partial(blocks), gx(n), gp(seed);
  const double primalMs = cgp_cuda_test::median_ms(
      runs, [] {}, [&] { CGP_LAUNCH(block_sum, blocks, BLOCK, x.get(), partial.get(), n); });
  // Each launch uses up the seeds of the partials: put them back.
  const double gradMs = cgp_cuda_test::median_ms(runs, [&] { gp.upload(seed); }, [&] {
    CGP_LAUNCH(block_sum_grad, blocks, BLOCK, x.get(), partial.get(), n, gx.get(), gp.get());
  });
  cgp_cuda_test::print_time("block_sum_grad", primalMs, gradMs);
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  const int n = 300, blocks = (n + BLOCK - 1) / BLOCK; // 3 blocks, the last with 44 elements
  std::mt19937 rng(5);
  const Vec x = kernel_test::uniform(rng, n, -1.5, 1.5),
            seed = kernel_test::uniform(rng, blocks, 0.5, 1.5);

  struct Result {
    Vec dx, dpartial, partial;
  };
  // `launches` gradient launches into a zeroed d_x, each with the seeds in d_partial.
  auto gradient = [&](int launches) {
    DeviceArray<double> dx(x), partial(blocks), gx(n), gp(blocks);
    for (int l = 0; l < launches; ++l) {
      gp.upload(seed);
      CGP_LAUNCH(block_sum_grad, blocks, BLOCK, dx.get(), partial.get(), n, gx.get(), gp.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{gx.download(), gp.download(), partial.download()};
  };
  auto primal = [&](const Vec &xv) {
    DeviceArray<double> dx(xv), partial(blocks);
    CGP_LAUNCH(block_sum, blocks, BLOCK, dx.get(), partial.get(), n);
    CGP_CUDA_SYNC_CHECK();
    return partial.download();
  };

  if (opt.mode == Mode::Races) {
    gradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    primal(x);
    kernel_test::print_counts("block_sum");
    gradient(1);
    kernel_test::print_counts("block_sum_grad");
    return 0;
  }

  auto loss = [&](const Vec &xv) {
    const Vec partial = primal(xv);
    double L = 0;
    for (int b = 0; b < blocks; ++b)
      L += seed[b] * partial[b];
    return L;
  };
  const Result once = gradient(1);
  kernel_test::check_gradient("block_sum d_x", x, once.dx, {0, 63, 64, 127, 128, 200, 299},
                              kernel_test::uniform(rng, n, -1, 1), loss, 1e-3, 1e-8, 1e-10);
  cgp_cuda_test::check("block_sum d_partial: the seeds of the overwritten partials used up",
                       once.dpartial == Vec(blocks, 0.0));
  // To rounding: nvcc may contract the gradient's forward sweep and the primal differently.
  cgp_cuda_test::check_close("block_sum_grad leaves the primal's partials", once.partial,
                             primal(x), 1e-12);

  const Result twice = gradient(2), again = gradient(1);
  kernel_test::check_accumulates("block_sum d_x", once.dx, twice.dx, true);
  kernel_test::check_repeats("block_sum d_x", once.dx, again.dx, true);
  cgp_cuda_test::dump_bits(opt.dump, once.dx);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
