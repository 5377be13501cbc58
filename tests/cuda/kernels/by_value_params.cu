// Parameters passed by value and differentiated: a scalar, y[i] = scale * x[i] with
// CGP_GRAD(x, scale, y), and a struct of two doubles, y[i] = p.gain * x[i] + p.bias with
// CGP_GRAD(x, p, y). Every thread reads the by-value parameter, so every thread adds into
// its adjoint (d_scale, a double*; d_p, an Affine*): those additions must not race, within a
// block or across blocks. Gradients against finite differences, under the host emulation of
// CUDA (4 blocks of 64 threads, the last one part empty) and ThreadSanitizer. The data are
// multiples of 1/16, so every sum is exact and the bits are compared across runs,
// accumulation and strategies.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/by_value_params.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/by_value_params.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/by_value_params.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/by_value_params.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// (No --memory-budget build: the kernels have no loop and tape one branch.)
//
// TIME: TIME scale_grad
// TIME: TIME affine_grad
// COUNTS: COUNTS scale 256 0 0 0 0 0 0{{$}}
// COUNTS: COUNTS scale_grad 256
// COUNTS: COUNTS affine 256 0 0 0 0 0 0{{$}}
// COUNTS: COUNTS affine_grad 256
#include <cgp/cgp.h>

CGP_GRAD(x, scale, y)
__global__ void scale(const double *x, double scale, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = scale * x[i];
}

struct Affine {
  double gain, bias;
};

CGP_GRAD(x, p, y)
__global__ void affine(const double *x, Affine p, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = p.gain * x[i] + p.bias;
}

#ifndef __CGP_AD__
#include "by_value_params.cgp.h"
#include "kernel_test.h"

using cgp_cuda_test::DeviceArray;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

/// --time: 2^24 elements on a GPU (2^10 under the emulation), blocks of 256.
void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 24, runs = 20;
#else
  const int n = 1 << 10, runs = 3;
#endif
  const int threads = 256, blocks = (n + threads - 1) / threads;
  std::printf("timing on %d elements (%d blocks of %d), medians of %d launches\n", n, blocks,
              threads, runs);
  std::mt19937 rng(17);
  const Vec seed = kernel_test::uniform(rng, n, 0.5, 1.5);
  DeviceArray<double> x(kernel_test::uniform(rng, n, -1, 1)), y(n), gx(n), gy(seed);
  DeviceArray<double> gscale(1);
  DeviceArray<Affine> gp(1);
  const double scalePrimalMs = cgp_cuda_test::median_ms(
      runs, [] {}, [&] { CGP_LAUNCH(scale, blocks, threads, x.get(), 1.5, y.get(), n); });
  // Each launch uses up the seeds of y: put them back.
  const double scaleGradMs = cgp_cuda_test::median_ms(runs, [&] { gy.upload(seed); }, [&] {
    CGP_LAUNCH(scale_grad, blocks, threads, x.get(), 1.5, y.get(), n, gx.get(), gscale.get(),
               gy.get());
  });
  cgp_cuda_test::print_time("scale_grad", scalePrimalMs, scaleGradMs);
  const Affine p{1.5, -0.25};
  const double affinePrimalMs = cgp_cuda_test::median_ms(
      runs, [] {}, [&] { CGP_LAUNCH(affine, blocks, threads, x.get(), p, y.get(), n); });
  const double affineGradMs = cgp_cuda_test::median_ms(runs, [&] { gy.upload(seed); }, [&] {
    CGP_LAUNCH(affine_grad, blocks, threads, x.get(), p, y.get(), n, gx.get(), gp.get(),
               gy.get());
  });
  cgp_cuda_test::print_time("affine_grad", affinePrimalMs, affineGradMs);
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  const int n = 200, threads = 64, blocks = (n + threads - 1) / threads; // 4 blocks
  std::mt19937 rng(43);
  const Vec x = kernel_test::dyadic(rng, n), seed = kernel_test::dyadic(rng, n);
  const double s0 = 0.75;
  const Affine p0{1.25, -0.5};

  struct Result {
    Vec dx, dparam, dy, y; // dparam: d_scale, or d_p's gain and bias
  };
  // `launches` gradient launches of scale_grad into zeroed d_x, d_scale, each with the seeds
  // in d_y.
  auto scaleGradient = [&](int launches) {
    DeviceArray<double> dx(x), y(n), gx(n), gscale(1), gy(n);
    for (int l = 0; l < launches; ++l) {
      gy.upload(seed);
      CGP_LAUNCH(scale_grad, blocks, threads, dx.get(), s0, y.get(), n, gx.get(), gscale.get(),
                 gy.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{gx.download(), gscale.download(), gy.download(), y.download()};
  };
  // The same for affine_grad, into zeroed d_x and d_p.
  auto affineGradient = [&](int launches) {
    DeviceArray<double> dx(x), y(n), gx(n), gy(n);
    DeviceArray<Affine> gp(std::vector<Affine>{Affine{0.0, 0.0}});
    for (int l = 0; l < launches; ++l) {
      gy.upload(seed);
      CGP_LAUNCH(affine_grad, blocks, threads, dx.get(), p0, y.get(), n, gx.get(), gp.get(),
                 gy.get());
      CGP_CUDA_SYNC_CHECK();
    }
    const Affine dp = gp.download()[0];
    return Result{gx.download(), Vec{dp.gain, dp.bias}, gy.download(), y.download()};
  };
  auto scalePrimal = [&](const Vec &xv, double s) {
    DeviceArray<double> dx(xv), y(n);
    CGP_LAUNCH(scale, blocks, threads, dx.get(), s, y.get(), n);
    CGP_CUDA_SYNC_CHECK();
    return y.download();
  };
  auto affinePrimal = [&](const Vec &xv, const Affine &p) {
    DeviceArray<double> dx(xv), y(n);
    CGP_LAUNCH(affine, blocks, threads, dx.get(), p, y.get(), n);
    CGP_CUDA_SYNC_CHECK();
    return y.download();
  };

  if (opt.mode == Mode::Races) {
    scaleGradient(2);
    affineGradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    scalePrimal(x, s0);
    kernel_test::print_counts("scale");
    scaleGradient(1);
    kernel_test::print_counts("scale_grad");
    affinePrimal(x, p0);
    kernel_test::print_counts("affine");
    affineGradient(1);
    kernel_test::print_counts("affine_grad");
    return 0;
  }

  auto dot = [&](const Vec &y) {
    double L = 0;
    for (int k = 0; k < n; ++k)
      L += seed[k] * y[k];
    return L;
  };
  const std::vector<std::size_t> entries{0, 63, 64, 150, 199};
  const double h = 1.0 / 64;

  const Result scaleOnce = scaleGradient(1);
  kernel_test::check_gradient("scale d_x", x, scaleOnce.dx, entries, kernel_test::dyadic(rng, n),
                              [&](const Vec &v) { return dot(scalePrimal(v, s0)); }, h, 1e-12,
                              1e-12);
  cgp_cuda_test::check_close("scale d_scale against finite differences", scaleOnce.dparam[0],
                             cgp_cuda_test::central_difference(
                                 [&](const Vec &v) { return dot(scalePrimal(x, v[0])); },
                                 Vec{s0}, 0, h),
                             1e-12, 1e-12);
  cgp_cuda_test::check("scale d_y: the seeds of the overwritten y used up",
                       scaleOnce.dy == Vec(n, 0.0));
  cgp_cuda_test::check("scale_grad leaves the primal's y", scaleOnce.y == scalePrimal(x, s0));

  const Result affineOnce = affineGradient(1);
  kernel_test::check_gradient("affine d_x", x, affineOnce.dx, entries,
                              kernel_test::dyadic(rng, n),
                              [&](const Vec &v) { return dot(affinePrimal(v, p0)); }, h, 1e-12,
                              1e-12);
  cgp_cuda_test::check_close(
      "affine d_p (gain, bias) against finite differences", affineOnce.dparam,
      cgp_cuda_test::fd_gradient(
          [&](const Vec &v) { return dot(affinePrimal(x, Affine{v[0], v[1]})); },
          Vec{p0.gain, p0.bias}, h),
      1e-12, 1e-12);
  cgp_cuda_test::check("affine d_y: the seeds of the overwritten y used up",
                       affineOnce.dy == Vec(n, 0.0));
  cgp_cuda_test::check("affine_grad leaves the primal's y", affineOnce.y == affinePrimal(x, p0));

  const Result scaleTwice = scaleGradient(2), scaleAgain = scaleGradient(1);
  const Result affineTwice = affineGradient(2), affineAgain = affineGradient(1);
  kernel_test::check_accumulates("scale d_x", scaleOnce.dx, scaleTwice.dx, true);
  kernel_test::check_accumulates("scale d_scale", scaleOnce.dparam, scaleTwice.dparam, true);
  kernel_test::check_accumulates("affine d_x", affineOnce.dx, affineTwice.dx, true);
  kernel_test::check_accumulates("affine d_p", affineOnce.dparam, affineTwice.dparam, true);
  kernel_test::check_repeats("scale d_scale", scaleOnce.dparam, scaleAgain.dparam, true);
  kernel_test::check_repeats("affine d_p", affineOnce.dparam, affineAgain.dparam, true);

  Vec bits = scaleOnce.dx;
  for (const Vec *v : {&scaleOnce.dparam, &affineOnce.dx, &affineOnce.dparam})
    bits.insert(bits.end(), v->begin(), v->end());
  cgp_cuda_test::dump_bits(opt.dump, bits);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
