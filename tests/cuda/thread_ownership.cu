// Adjoints every thread adds into, and adjoints that only look like a
// thread's own: a by-value scalar and struct read by every thread of several
// blocks (their adjoints summed over each warp, then added atomically), an
// input read by every threadIdx.y of a 2-D block (atomic: x[i] is not the
// thread's own when threads differ in y), a grid-stride loop (its elements
// are the thread's own), a pixel under a guard, a helper given a __shared__
// array (it adds atomically, and so does the kernel). Checked against finite
// differences under the host emulation, plainly and under ThreadSanitizer
// (a plain += where threads meet is a data race it reports), and the check
// at entry that stops a gradient launched in a shape its kernel never reads.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation %t/thread_ownership.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu
// RUN: %cxx %cxxflags %tsan %cuda-emulation %t/thread_ownership.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --gradients-only
// RUN: %not --crash %t/emu --wrong-launch > %t/wrong.txt 2>&1
// RUN: FileCheck %s --check-prefix=WRONG --input-file=%t/wrong.txt
// RUN: %nvcc-compile %t/thread_ownership.cgp.cu
// RUN: %not --crash %t/emu --block-too-large > %t/large.txt 2>&1
// RUN: FileCheck %s --check-prefix=LARGE --input-file=%t/large.txt
// WRONG: cgp-ad: the gradient of 'scaled' was launched with blockDim.y = 2, but 'scaled' never reads threadIdx.y
// LARGE: cgp-ad: the gradient of 'fixed_block' was launched with blockDim.x = 64, but the elements its threads add into are each one thread's own only for blocks of at most 32 threads in x
#include <cgp/cgp.h>

CGP_GRAD(x, scale, y)
__global__ void scaled(const double *x, double scale, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = scale * sin(x[i]);
}

struct Affine {
  double a, b;
};
CGP_GRAD(x, p, y)
__global__ void affine(const double *x, Affine p, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = p.a * x[i] * x[i] + p.b;
}

// Every threadIdx.y of a block reads x[i].
CGP_GRAD(x, w, out)
__global__ void outer(const double *x, const double *w, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = threadIdx.y;
  if (i < n)
    out[j * n + i] = w[j] * x[i];
}

CGP_GRAD(x, y)
__global__ void grid_stride(const double *x, double *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = x[i] * exp(x[i]);
}

CGP_GRAD(img, out)
__global__ void pixels(const double *img, double *out, int W, int H) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H)
    return;
  int idx = y * W + x;
  out[idx] = img[idx] * cos(img[idx]);
}

// A helper given a __shared__ array adds into its adjoint atomically, and
// so does the kernel where it adds into the same array.
__device__ double pair(const double *t) { return t[threadIdx.x] * t[(threadIdx.x + 1) % 32]; }
CGP_GRAD(x, y)
__global__ void pairs(const double *x, double *y) {
  __shared__ double tile[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = x[i];
  __syncthreads();
  y[i] = pair(tile) + tile[threadIdx.x];
}

// A block size known when compiling: blockIdx.x * B + threadIdx.x is the
// thread's own for blocks of at most B threads.
constexpr int B = 32;
CGP_GRAD(x, y)
__global__ void fixed_block(const double *x, double *y, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i]) * x[i];
}

#ifndef __CGP_AD__
#include "thread_ownership.cgp.h"
#include <cuda_check.h>

#include <cstring>
#include <random>

using cgp_cuda_test::DeviceArray;
using Vec = std::vector<double>;

namespace {

// --gradients-only (the ThreadSanitizer run): the gradient launches alone.
bool gradientsOnly = false;
std::mt19937 rng(5);
Vec randomVec(int n, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> u(lo, hi);
  Vec v(n);
  for (double &e : v) e = u(rng);
  return v;
}
double dot(const Vec &a, const Vec &b) {
  double s = 0;
  for (size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

void checkScaled() {
  const int n = 100, blocks = 4, threads = 32;
  Vec x = randomVec(n), seed = randomVec(n);
  double scale = 0.7;
  auto loss = [&](const Vec &xv, double s) {
    DeviceArray<double> dx(xv), dy(n);
    CGP_LAUNCH(scaled, blocks, threads, dx.get(), s, dy.get(), n);
    return dot(seed, dy.download());
  };
  DeviceArray<double> dx(x), dy(n), gx(n), gscale(1), gy(seed);
  CGP_LAUNCH(scaled_grad, blocks, threads, dx.get(), scale, dy.get(), n, gx.get(), gscale.get(),
             gy.get());
  CGP_CUDA_SYNC_CHECK();
  if (gradientsOnly)
    return;
  Vec fdx(n);
  for (int k = 0; k < n; ++k)
    fdx[k] = cgp_cuda_test::central_difference([&](const Vec &v) { return loss(v, scale); }, x, k);
  double fds = cgp_cuda_test::central_difference(
      [&](const Vec &v) { return loss(x, v[0]); }, Vec{scale}, 0);
  cgp_cuda_test::check_close("scaled d_x", gx.download(), fdx, 1e-8, 1e-10);
  cgp_cuda_test::check_close("scaled d_scale (every thread of 4 blocks)", gscale.download()[0], fds,
                             1e-8, 1e-10);
}

void checkAffine() {
  const int n = 90, blocks = 3, threads = 32;
  Vec x = randomVec(n), seed = randomVec(n);
  Affine p{0.4, -1.2};
  auto loss = [&](const Vec &xv, Affine q) {
    DeviceArray<double> dx(xv), dy(n);
    CGP_LAUNCH(affine, blocks, threads, dx.get(), q, dy.get(), n);
    return dot(seed, dy.download());
  };
  Affine *dp = nullptr;
  CGP_CUDA_CHECK(cudaMalloc(&dp, sizeof(Affine)));
  CGP_CUDA_CHECK(cudaMemset(dp, 0, sizeof(Affine)));
  DeviceArray<double> dx(x), dy(n), gx(n), gy(seed);
  CGP_LAUNCH(affine_grad, blocks, threads, dx.get(), p, dy.get(), n, gx.get(), dp, gy.get());
  CGP_CUDA_SYNC_CHECK();
  Affine got{};
  CGP_CUDA_CHECK(cudaMemcpy(&got, dp, sizeof(Affine), cudaMemcpyDeviceToHost));
  CGP_CUDA_CHECK(cudaFree(dp));
  if (gradientsOnly)
    return;
  Vec pv{p.a, p.b};
  auto lossP = [&](const Vec &v) { return loss(x, Affine{v[0], v[1]}); };
  cgp_cuda_test::check_close("affine d_p.a", got.a, cgp_cuda_test::central_difference(lossP, pv, 0),
                             1e-8, 1e-10);
  cgp_cuda_test::check_close("affine d_p.b", got.b, cgp_cuda_test::central_difference(lossP, pv, 1),
                             1e-8, 1e-10);
  Vec fdx(n);
  for (int k = 0; k < n; ++k)
    fdx[k] = cgp_cuda_test::central_difference([&](const Vec &v) { return loss(v, p); }, x, k);
  cgp_cuda_test::check_close("affine d_x", gx.download(), fdx, 1e-8, 1e-10);
}

void checkOuter() {
  const int n = 40, rows = 4;
  const dim3 block(16, rows);
  const int blocks = (n + 15) / 16;
  Vec x = randomVec(n), w = randomVec(rows), seed = randomVec(rows * n);
  auto loss = [&](const Vec &xv, const Vec &wv) {
    DeviceArray<double> dx(xv), dw(wv), dout(rows * n);
    CGP_LAUNCH(outer, blocks, block, dx.get(), dw.get(), dout.get(), n);
    return dot(seed, dout.download());
  };
  DeviceArray<double> dx(x), dw(w), dout(rows * n), gx(n), gw(rows), gout(seed);
  CGP_LAUNCH(outer_grad, blocks, block, dx.get(), dw.get(), dout.get(), n, gx.get(), gw.get(),
             gout.get());
  CGP_CUDA_SYNC_CHECK();
  if (gradientsOnly)
    return;
  Vec fdx(n), fdw(rows);
  for (int k = 0; k < n; ++k)
    fdx[k] = cgp_cuda_test::central_difference([&](const Vec &v) { return loss(v, w); }, x, k);
  for (int k = 0; k < rows; ++k)
    fdw[k] = cgp_cuda_test::central_difference([&](const Vec &v) { return loss(x, v); }, w, k);
  cgp_cuda_test::check_close("outer d_x (read by 4 threads of a block)", gx.download(), fdx, 1e-8,
                             1e-10);
  cgp_cuda_test::check_close("outer d_w", gw.download(), fdw, 1e-8, 1e-10);
}

void checkGridStride() {
  const int n = 300, blocks = 3, threads = 32; // each thread takes 3 or 4 elements
  Vec x = randomVec(n), seed = randomVec(n);
  auto loss = [&](const Vec &xv) {
    DeviceArray<double> dx(xv), dy(n);
    CGP_LAUNCH(grid_stride, blocks, threads, dx.get(), dy.get(), n);
    return dot(seed, dy.download());
  };
  DeviceArray<double> dx(x), dy(n), gx(n), gy(seed);
  CGP_LAUNCH(grid_stride_grad, blocks, threads, dx.get(), dy.get(), n, gx.get(), gy.get());
  CGP_CUDA_SYNC_CHECK();
  if (gradientsOnly)
    return;
  cgp_cuda_test::check_close("grid_stride d_x", gx.download(), cgp_cuda_test::fd_gradient(loss, x),
                             1e-8, 1e-10);
  cgp_cuda_test::check("grid_stride d_y: the adjoint of its entry values (overwritten)",
                       gy.download() == Vec(n, 0.0));
}

void checkPixels() {
  const int W = 20, H = 9;
  const dim3 block(8, 4), grid((W + 7) / 8, (H + 3) / 4);
  Vec img = randomVec(W * H), seed = randomVec(W * H);
  auto loss = [&](const Vec &v) {
    DeviceArray<double> di(v), dout(W * H);
    CGP_LAUNCH(pixels, grid, block, di.get(), dout.get(), W, H);
    return dot(seed, dout.download());
  };
  DeviceArray<double> di(img), dout(W * H), gi(W * H), gout(seed);
  CGP_LAUNCH(pixels_grad, grid, block, di.get(), dout.get(), W, H, gi.get(), gout.get());
  CGP_CUDA_SYNC_CHECK();
  if (gradientsOnly)
    return;
  cgp_cuda_test::check_close("pixels d_img", gi.download(), cgp_cuda_test::fd_gradient(loss, img),
                             1e-8, 1e-10);
}

void checkPairs() {
  const int blocks = 3, n = 32 * blocks;
  Vec x = randomVec(n), seed = randomVec(n);
  auto loss = [&](const Vec &v) {
    DeviceArray<double> dx(v), dy(n);
    CGP_LAUNCH(pairs, blocks, 32, dx.get(), dy.get());
    return dot(seed, dy.download());
  };
  DeviceArray<double> dx(x), dy(n), gx(n), gy(seed);
  CGP_LAUNCH(pairs_grad, blocks, 32, dx.get(), dy.get(), gx.get(), gy.get());
  CGP_CUDA_SYNC_CHECK();
  if (gradientsOnly)
    return;
  cgp_cuda_test::check_close("pairs d_x (a helper adds into the __shared__ adjoint)",
                             gx.download(), cgp_cuda_test::fd_gradient(loss, x), 1e-8, 1e-10);
}

void checkFixedBlock() {
  const int blocks = 3, n = 80;
  Vec x = randomVec(n), seed = randomVec(n);
  auto loss = [&](const Vec &v) {
    DeviceArray<double> dx(v), dy(n);
    CGP_LAUNCH(fixed_block, blocks, B, dx.get(), dy.get(), n);
    return dot(seed, dy.download());
  };
  DeviceArray<double> dx(x), dy(n), gx(n), gy(seed);
  CGP_LAUNCH(fixed_block_grad, blocks, B, dx.get(), dy.get(), n, gx.get(), gy.get());
  CGP_CUDA_SYNC_CHECK();
  if (gradientsOnly)
    return;
  cgp_cuda_test::check_close("fixed_block d_x (blocks of B threads)", gx.download(),
                             cgp_cuda_test::fd_gradient(loss, x), 1e-8, 1e-10);
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--wrong-launch") == 0) {
    // `scaled` reads only threadIdx.x and blockIdx.x: a 2-D block runs each
    // of its threads twice, which its gradient refuses.
    const int n = 64;
    DeviceArray<double> dx(Vec(n, 0.5)), dy(n), gx(n), gs(1), gy(Vec(n, 1.0));
    CGP_LAUNCH(scaled_grad, 2, dim3(32, 2), dx.get(), 1.0, dy.get(), n, gx.get(), gs.get(),
               gy.get());
    CGP_CUDA_SYNC_CHECK();
    std::printf("the gradient ran\n");
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--block-too-large") == 0) {
    // Blocks of 2 * B threads: blockIdx.x * B + threadIdx.x meets itself.
    const int n = 128;
    DeviceArray<double> dx(Vec(n, 0.5)), dy(n), gx(n), gy(Vec(n, 1.0));
    CGP_LAUNCH(fixed_block_grad, 2, 2 * B, dx.get(), dy.get(), n, gx.get(), gy.get());
    CGP_CUDA_SYNC_CHECK();
    std::printf("the gradient ran\n");
    return 0;
  }
  gradientsOnly = argc > 1 && std::strcmp(argv[1], "--gradients-only") == 0;
  checkScaled();
  checkAffine();
  checkOuter();
  checkGridStride();
  checkPixels();
  checkPairs();
  checkFixedBlock();
  return cgp_cuda_test::finish();
}
#endif
