// A 2-D grid over an image (blockIdx.x/y, threadIdx.x/y, pixel index y * width + x) whose
// threads call a __device__ solver: a few Newton iterations per pixel for u + k sin(u) = b,
// with b the pixel's value and k a gain that varies along the rows (k[0] + k[1] y / height),
// shared by all pixels. Gradients with respect to img and k (in/out seed d_out) against
// finite differences, under the host emulation of CUDA (3 x 2 blocks of 8 x 8 threads, the
// edge blocks part empty) and ThreadSanitizer. d_img is each thread's own: its bits are
// compared across runs, accumulation and strategies; d_k, which every thread adds into, is
// summed in the order the threads come, and compared to rounding.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all %t/budget
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/budget --memory-budget=64 -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/pixel_solve.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/pixel_solve.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/budget/pixel_solve.cgp.cu -o %t/emu-budget -pthread %ldflags
// RUN: %t/emu-budget %t/budget.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: cmp %t/budget.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/pixel_solve.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/pixel_solve.cgp.cu -I%S
// RUN: %nvcc-compile %t/budget/pixel_solve.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// TIME: TIME pixel_solve_grad
// COUNTS: COUNTS pixel_solve 384 0 0 0 0 0 0{{$}}
// COUNTS: COUNTS pixel_solve_grad 384
#include <cgp/cgp.h>

// The root u of u + k sin(u) = b, |k| < 1, by Newton's method from u = b.
__device__ double newton_root(double b, double k) {
  double u = b;
  for (int it = 0; it < 6; ++it) {
    double f = u + k * sin(u) - b;
    double df = 1.0 + k * cos(u);
    u -= f / df;
  }
  return u;
}

CGP_GRAD(img, k, out)
__global__ void pixel_solve(const double *img, const double *k, double *out, int width,
                            int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  int p = y * width + x;
  out[p] = newton_root(img[p], k[0] + k[1] * y / height);
}

#ifndef __CGP_AD__
#include "pixel_solve.cgp.h"
#include "kernel_test.h"

using cgp_cuda_test::DeviceArray;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

/// --time: a 4096 x 4096 image on a GPU (64 x 32 under the emulation), blocks of 16 x 16.
void timeKernels() {
#ifdef __CUDACC__
  const int width = 4096, height = 4096, runs = 20;
#else
  const int width = 64, height = 32, runs = 3;
#endif
  const dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  const std::size_t pixels = std::size_t(width) * height;
  std::printf("timing on a %d x %d image (%u x %u blocks of 16 x 16), medians of %d launches\n",
              width, height, grid.x, grid.y, runs);
  std::mt19937 rng(17);
  const Vec seed = kernel_test::uniform(rng, pixels, 0.5, 1.5);
  DeviceArray<double> img(kernel_test::uniform(rng, pixels, -3, 3)), k(Vec{0.6, 0.3}),
      out(pixels), gimg(pixels), gk(2), gout(seed);
  const double primalMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(pixel_solve, grid, block, img.get(), k.get(), out.get(), width, height);
  });
  // Each launch uses up the seeds of out: put them back.
  const double gradMs = cgp_cuda_test::median_ms(runs, [&] { gout.upload(seed); }, [&] {
    CGP_LAUNCH(pixel_solve_grad, grid, block, img.get(), k.get(), out.get(), width, height,
               gimg.get(), gk.get(), gout.get());
  });
  cgp_cuda_test::print_time("pixel_solve_grad", primalMs, gradMs);
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  const int width = 20, height = 12, pixels = width * height;
  const dim3 block(8, 8), grid((width + 7) / 8, (height + 7) / 8); // 3 x 2 blocks
  std::mt19937 rng(21);
  const Vec img = kernel_test::uniform(rng, pixels, -3, 3), k{0.5, 0.3},
            seed = kernel_test::uniform(rng, pixels, 0.5, 1.5);

  struct Result {
    Vec dimg, dk, dout, out;
  };
  // `launches` gradient launches into zeroed d_img, d_k, each with the seeds in d_out.
  auto gradient = [&](int launches) {
    DeviceArray<double> dimg(img), dk(k), out(pixels), gimg(pixels), gk(2), gout(pixels);
    for (int l = 0; l < launches; ++l) {
      gout.upload(seed);
      CGP_LAUNCH(pixel_solve_grad, grid, block, dimg.get(), dk.get(), out.get(), width, height,
                 gimg.get(), gk.get(), gout.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{gimg.download(), gk.download(), gout.download(), out.download()};
  };
  auto primal = [&](const Vec &imgv, const Vec &kv) {
    DeviceArray<double> dimg(imgv), dk(kv), out(pixels);
    CGP_LAUNCH(pixel_solve, grid, block, dimg.get(), dk.get(), out.get(), width, height);
    CGP_CUDA_SYNC_CHECK();
    return out.download();
  };

  if (opt.mode == Mode::Races) {
    gradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    primal(img, k);
    kernel_test::print_counts("pixel_solve");
    gradient(1);
    kernel_test::print_counts("pixel_solve_grad");
    return 0;
  }

  auto loss = [&](const Vec &imgv, const Vec &kv) {
    const Vec out = primal(imgv, kv);
    double L = 0;
    for (int q = 0; q < pixels; ++q)
      L += seed[q] * out[q];
    return L;
  };
  const Result once = gradient(1);
  // Pixels in each block, the last row and column included.
  kernel_test::check_gradient("pixel_solve d_img", img, once.dimg,
                              {0, 7, 8, 19, 8 * width, 9 * width + 17, std::size_t(pixels - 1)},
                              kernel_test::uniform(rng, pixels, -1, 1),
                              [&](const Vec &v) { return loss(v, k); }, 1e-3, 1e-7, 1e-9);
  cgp_cuda_test::check_close(
      "pixel_solve d_k against finite differences", once.dk,
      cgp_cuda_test::fd_gradient([&](const Vec &v) { return loss(img, v); }, k, 1e-3), 1e-7,
      1e-9);
  cgp_cuda_test::check("pixel_solve d_out: the seeds of the overwritten out used up",
                       once.dout == Vec(pixels, 0.0));
  // To rounding: nvcc may contract the gradient's forward sweep and the primal differently.
  cgp_cuda_test::check_close("pixel_solve_grad leaves the primal's out", once.out, primal(img, k),
                             1e-12);

  const Result twice = gradient(2), again = gradient(1);
  kernel_test::check_accumulates("pixel_solve d_img", once.dimg, twice.dimg, true);
  kernel_test::check_accumulates("pixel_solve d_k", once.dk, twice.dk, false);
  kernel_test::check_repeats("pixel_solve d_img", once.dimg, again.dimg, true);
  kernel_test::check_repeats("pixel_solve d_k", once.dk, again.dk, false);
  cgp_cuda_test::dump_bits(opt.dump, once.dimg);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
