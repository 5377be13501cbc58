// Scatter with data-dependent indices: y[idx[i]] += a[i] * x[i], with atomicAdd because
// several i share an index (within a warp, across warps and across blocks). Gradients with
// respect to a, x and y (y is read and written: d_y holds its seed on entry and the adjoint
// of y's entry values on exit, the same seed) against finite differences, under the host
// emulation of CUDA (3 blocks of 64 threads, the last one part empty) and ThreadSanitizer.
// The bits are compared across runs, accumulation and strategies.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/scatter_add.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/scatter_add.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/scatter_add.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/scatter_add.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// (No --memory-budget build: the kernel has no loop and tapes one branch.)
//
// TIME: TIME scatter_add_grad
// COUNTS: COUNTS scatter_add 192 150 150 0 0 0 0{{$}}
// COUNTS: COUNTS scatter_add_grad 192
#include <cgp/cgp.h>

CGP_GRAD(a, x, y)
__global__ void scatter_add(const double *a, const double *x, const int *idx, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&y[idx[i]], a[i] * x[i]);
}

#ifndef __CGP_AD__
#include "scatter_add.cgp.h"
#include "kernel_test.h"

using cgp_cuda_test::DeviceArray;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

/// Indices into m bins with collisions everywhere: i and i + m share a bin, and so do
/// neighbours (i / 3), across warps and blocks.
std::vector<int> bins(int n, int m) {
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i)
    idx[i] = (i / 3 * 7) % m;
  return idx;
}

/// --time: 2^24 products into 2^16 bins on a GPU (2^10 into 2^6 under the emulation).
void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 24, m = 1 << 16, runs = 20;
#else
  const int n = 1 << 10, m = 1 << 6, runs = 3;
#endif
  const int threads = 256, blocks = (n + threads - 1) / threads;
  std::printf("timing on %d products into %d bins (%d blocks of %d), medians of %d launches\n",
              n, m, blocks, threads, runs);
  std::mt19937 rng(17);
  DeviceArray<int> idx(bins(n, m));
  DeviceArray<double> a(kernel_test::uniform(rng, n, -1, 1)), x(kernel_test::uniform(rng, n, -1, 1)),
      y(m), ga(n), gx(n), gy(kernel_test::uniform(rng, m, 0.5, 1.5));
  const double primalMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(scatter_add, blocks, threads, a.get(), x.get(), idx.get(), y.get(), n);
  });
  const double gradMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(scatter_add_grad, blocks, threads, a.get(), x.get(), idx.get(), y.get(), n,
               ga.get(), gx.get(), gy.get());
  });
  cgp_cuda_test::print_time("scatter_add_grad", primalMs, gradMs);
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  const int n = 150, m = 20, threads = 64, blocks = (n + threads - 1) / threads; // 3 blocks
  std::mt19937 rng(13);
  const Vec a = kernel_test::dyadic(rng, n), x = kernel_test::dyadic(rng, n),
            y0 = kernel_test::dyadic(rng, m), seed = kernel_test::dyadic(rng, m);
  DeviceArray<int> idx(bins(n, m));

  struct Result {
    Vec da, dx, dy, y;
  };
  // `launches` gradient launches into zeroed d_a, d_x, each from y = y0 and with the seeds
  // in d_y.
  auto gradient = [&](int launches) {
    DeviceArray<double> da_(a), dx_(x), y(m), ga(n), gx(n), gy(m);
    for (int l = 0; l < launches; ++l) {
      y.upload(y0);
      gy.upload(seed);
      CGP_LAUNCH(scatter_add_grad, blocks, threads, da_.get(), dx_.get(), idx.get(), y.get(), n,
                 ga.get(), gx.get(), gy.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{ga.download(), gx.download(), gy.download(), y.download()};
  };
  auto primal = [&](const Vec &av, const Vec &xv, const Vec &yv) {
    DeviceArray<double> da_(av), dx_(xv), y(yv);
    CGP_LAUNCH(scatter_add, blocks, threads, da_.get(), dx_.get(), idx.get(), y.get(), n);
    CGP_CUDA_SYNC_CHECK();
    return y.download();
  };

  if (opt.mode == Mode::Races) {
    gradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    primal(a, x, y0);
    kernel_test::print_counts("scatter_add");
    gradient(1);
    kernel_test::print_counts("scatter_add_grad");
    return 0;
  }

  auto loss = [&](const Vec &av, const Vec &xv, const Vec &yv) {
    const Vec y = primal(av, xv, yv);
    double L = 0;
    for (int k = 0; k < m; ++k)
      L += seed[k] * y[k];
    return L;
  };
  const Result once = gradient(1);
  const std::vector<std::size_t> entries{0, 1, 2, 31, 32, 64, 100, 149};
  kernel_test::check_gradient("scatter_add d_a", a, once.da, entries, kernel_test::dyadic(rng, n),
                              [&](const Vec &v) { return loss(v, x, y0); }, 1.0 / 64, 1e-12,
                              1e-12);
  kernel_test::check_gradient("scatter_add d_x", x, once.dx, entries, kernel_test::dyadic(rng, n),
                              [&](const Vec &v) { return loss(a, v, y0); }, 1.0 / 64, 1e-12,
                              1e-12);
  cgp_cuda_test::check_close(
      "scatter_add d_y (the adjoint of y's entry values) against finite differences", once.dy,
      cgp_cuda_test::fd_gradient([&](const Vec &v) { return loss(a, x, v); }, y0, 1.0 / 64),
      1e-12, 1e-12);
  cgp_cuda_test::check("scatter_add_grad leaves the primal's y", once.y == primal(a, x, y0));

  const Result twice = gradient(2), again = gradient(1);
  kernel_test::check_accumulates("scatter_add d_a", once.da, twice.da, true);
  kernel_test::check_accumulates("scatter_add d_x", once.dx, twice.dx, true);
  kernel_test::check_repeats("scatter_add d_a", once.da, again.da, true);
  kernel_test::check_repeats("scatter_add d_x", once.dx, again.dx, true);
  kernel_test::check_repeats("scatter_add d_y", once.dy, again.dy, true);

  Vec bits = once.da;
  bits.insert(bits.end(), once.dx.begin(), once.dx.end());
  bits.insert(bits.end(), once.dy.begin(), once.dy.end());
  cgp_cuda_test::dump_bits(opt.dump, bits);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
