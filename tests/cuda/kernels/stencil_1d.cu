// 1-D stencil with a __shared__ halo: each block loads its inputs and RADIUS more on each
// side into a tile (indices clamped to the ends of x with CUDA's integer min and max), waits
// at __syncthreads(), and each thread sums the 2 * RADIUS + 1 filter taps w[k] (read by all
// threads) times its window of the tile. Gradients with respect to x and w (in/out seed
// d_out) against finite differences, under the host emulation of CUDA (4 blocks of 64
// threads, the last one part empty) and ThreadSanitizer. The data are multiples of 1/16, so
// every sum is exact and the bits are compared across runs, accumulation and strategies.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all %t/budget
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/budget --memory-budget=64 -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/stencil_1d.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/stencil_1d.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/budget/stencil_1d.cgp.cu -o %t/emu-budget -pthread %ldflags
// RUN: %t/emu-budget %t/budget.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: cmp %t/budget.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/stencil_1d.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/stencil_1d.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// TIME: TIME stencil_1d_grad
// COUNTS: COUNTS stencil_1d 256 0 0 0 0 0 256{{$}}
// COUNTS: COUNTS stencil_1d_grad 256
#include <cgp/cgp.h>

constexpr int RADIUS = 3; // taps on each side
constexpr int BLOCK = 64; // threads per block

CGP_GRAD(x, w, out)
__global__ void stencil_1d(const double *x, const double *w, double *out, int n) {
  __shared__ double tile[BLOCK + 2 * RADIUS];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  tile[t + RADIUS] = x[min(i, n - 1)];
  if (t < RADIUS) {
    tile[t] = x[max(i - RADIUS, 0)];
    tile[t + BLOCK + RADIUS] = x[min(i + BLOCK, n - 1)];
  }
  __syncthreads();
  if (i < n) {
    double s = 0.0;
    for (int k = 0; k <= 2 * RADIUS; ++k)
      s += w[k] * tile[t + k];
    out[i] = s;
  }
}

#ifndef __CGP_AD__
#include "stencil_1d.cgp.h"
#include "kernel_test.h"

using cgp_cuda_test::DeviceArray;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

constexpr int TAPS = 2 * RADIUS + 1;

/// --time: 2^24 points on a GPU (2^10 under the emulation).
void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 24, runs = 20;
#else
  const int n = 1 << 10, runs = 3;
#endif
  const int blocks = (n + BLOCK - 1) / BLOCK;
  std::printf("timing on %d points (%d blocks of %d), medians of %d launches\n", n, blocks, BLOCK,
              runs);
  std::mt19937 rng(17);
  const Vec seed = kernel_test::uniform(rng, n, 0.5, 1.5);
  DeviceArray<double> x(kernel_test::uniform(rng, n, -1, 1)),
      w(kernel_test::uniform(rng, TAPS, -1, 1)), out(n), gx(n), gw(TAPS), gout(seed);
  const double primalMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(stencil_1d, blocks, BLOCK, x.get(), w.get(), out.get(), n);
  });
  // Each launch uses up the seeds of out: put them back.
  const double gradMs = cgp_cuda_test::median_ms(runs, [&] { gout.upload(seed); }, [&] {
    CGP_LAUNCH(stencil_1d_grad, blocks, BLOCK, x.get(), w.get(), out.get(), n, gx.get(),
               gw.get(), gout.get());
  });
  cgp_cuda_test::print_time("stencil_1d_grad", primalMs, gradMs);
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  const int n = 200, blocks = (n + BLOCK - 1) / BLOCK; // 4 blocks, the last with 8 points
  std::mt19937 rng(9);
  const Vec x = kernel_test::dyadic(rng, n), w = kernel_test::dyadic(rng, TAPS),
            seed = kernel_test::dyadic(rng, n);

  struct Result {
    Vec dx, dw, dout, out;
  };
  // `launches` gradient launches into zeroed d_x, d_w, each with the seeds in d_out.
  auto gradient = [&](int launches) {
    DeviceArray<double> dx(x), dw(w), out(n), gx(n), gw(TAPS), gout(n);
    for (int l = 0; l < launches; ++l) {
      gout.upload(seed);
      CGP_LAUNCH(stencil_1d_grad, blocks, BLOCK, dx.get(), dw.get(), out.get(), n, gx.get(),
                 gw.get(), gout.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{gx.download(), gw.download(), gout.download(), out.download()};
  };
  auto primal = [&](const Vec &xv, const Vec &wv) {
    DeviceArray<double> dx(xv), dw(wv), out(n);
    CGP_LAUNCH(stencil_1d, blocks, BLOCK, dx.get(), dw.get(), out.get(), n);
    CGP_CUDA_SYNC_CHECK();
    return out.download();
  };

  if (opt.mode == Mode::Races) {
    gradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    primal(x, w);
    kernel_test::print_counts("stencil_1d");
    gradient(1);
    kernel_test::print_counts("stencil_1d_grad");
    return 0;
  }

  auto loss = [&](const Vec &xv, const Vec &wv) {
    const Vec out = primal(xv, wv);
    double L = 0;
    for (int k = 0; k < n; ++k)
      L += seed[k] * out[k];
    return L;
  };
  const Result once = gradient(1);
  // The ends of x (read by the clamped halo several times), block edges, the middle.
  kernel_test::check_gradient("stencil_1d d_x", x, once.dx, {0, 1, 63, 64, 66, 130, 197, 199},
                              kernel_test::dyadic(rng, n), [&](const Vec &v) { return loss(v, w); },
                              1.0 / 64, 1e-12, 1e-12);
  cgp_cuda_test::check_close(
      "stencil_1d d_w against finite differences", once.dw,
      cgp_cuda_test::fd_gradient([&](const Vec &v) { return loss(x, v); }, w, 1.0 / 64), 1e-12,
      1e-12);
  cgp_cuda_test::check("stencil_1d d_out: the seeds of the overwritten out used up",
                       once.dout == Vec(n, 0.0));
  cgp_cuda_test::check("stencil_1d_grad leaves the primal's out", once.out == primal(x, w));

  const Result twice = gradient(2), again = gradient(1);
  kernel_test::check_accumulates("stencil_1d d_x", once.dx, twice.dx, true);
  kernel_test::check_accumulates("stencil_1d d_w", once.dw, twice.dw, true);
  kernel_test::check_repeats("stencil_1d d_x", once.dx, again.dx, true);
  kernel_test::check_repeats("stencil_1d d_w", once.dw, again.dw, true);

  Vec bits = once.dx;
  bits.insert(bits.end(), once.dw.begin(), once.dw.end());
  cgp_cuda_test::dump_bits(opt.dump, bits);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
