// Gradients of CUDA kernels run under the host emulation of CUDA (each
// block's threads are real threads) and checked against finite differences:
//  - rnn_batch: a batch of variable-length sequences, one per thread, a
//    small recurrent cell in a __device__ helper, weights shared by every
//    thread (their adjoints are summed per warp and added atomically), an
//    early return of the threads past the batch, and the user's own
//    atomicAdd into a total;
//  - gather: threads read the same inputs (their adjoints are added with
//    atomicAdd; a plain += would be a data race, which ThreadSanitizer
//    reports in the second build);
//  - row_norms: every adjoint is the thread's own (plain +=), so the
//    gradient is the same to the last bit under every strategy.
//
// Arguments: none; a file to dump row_norms' gradient into; `--races` (only
// the gradient kernels, for ThreadSanitizer); `--time` (after the checks,
// each derivative kernel timed against its primal on a bigger batch, one
// `TIME kernel primal_ms derivative_ms ratio` line each, which
// tests/cuda/run_on_gpu.sh collects on a GPU; a small batch under the
// emulation).
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation %t/cgp/rnn_batch.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %cxx %cxxflags %cuda-emulation %t/store-all/rnn_batch.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation %t/cgp/rnn_batch.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/rnn_batch.cgp.cu
#include <cgp/cgp.h>

constexpr int H = 3; // hidden units

__device__ double cell(double wx, double acc) { return tanh(wx + acc); }

CGP_GRAD(x, W, U, out)
CGP_JVP(x, W, U, out)
__global__ void rnn_batch(const double *x, const int *len, const double *W, const double *U,
                          double *out, int n, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double h[H] = {0, 0, 0};
  for (int t = 0; t < len[i]; ++t) {
    double next[H];
    for (int r = 0; r < H; ++r) {
      double acc = 0;
      for (int c = 0; c < H; ++c)
        acc += W[r * H + c] * h[c];
      next[r] = cell(U[r] * x[i * T + t], acc);
    }
    for (int r = 0; r < H; ++r)
      h[r] = next[r];
  }
  double y = h[0] * h[0] + h[1] * h[2];
  out[i] = y;
  atomicAdd(&out[n], y);
}

CGP_GRAD(x, y)
__global__ void gather(const double *x, const int *idx, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[idx[i]]) * x[idx[i]];
}

CGP_GRAD(x, out)
__global__ void row_norms(const double *x, double *out, int n, int T) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i >= n)
    return;
  double s = 0;
  for (int t = 0; t < T; ++t)
    s += x[i * T + t] * x[i * T + t] * (1.0 + 0.1 * t);
  out[i] = sqrt(s);
}

#ifndef __CGP_AD__
#include "rnn_batch.cgp.h"
#include <cgp/device.h> // cgp::dev::reserveHeap (--time)
#include <cuda_check.h>

#include <cstdint>
#include <cstring>
#include <random>

using cgp_cuda_test::DeviceArray;
using Vec = std::vector<double>;

namespace {

std::mt19937 rng(7);
Vec uniform(std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Vec v(n);
  for (double &e : v)
    e = u(rng);
  return v;
}

/// Under ThreadSanitizer (`--races`) the program only runs the gradient
/// kernels: what it looks for is a data race, and finite differences would
/// launch the primal a thousand times.
bool racesOnly = false;

/// Every stride-th entry of a gradient against a finite difference.
template <class Loss>
void checkGradient(const std::string &name, const Vec &at, const Vec &grad, Loss loss,
                   std::size_t stride) {
  if (racesOnly)
    return;
  Vec fd(at.size()), got(at.size());
  for (std::size_t k = 0; k < at.size(); k += stride) {
    fd[k] = cgp_cuda_test::central_difference(loss, at, k, 1e-4);
    got[k] = grad[k];
  }
  cgp_cuda_test::check_close(name + " against finite differences", got, fd, 1e-6, 1e-9);
}

/// --time: each derivative kernel against its primal, median of repeated
/// launches, on a batch big enough for a GPU (small under the emulation).
void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 16, T = 64, runs = 20;
  // rnn_batch_grad tapes about T x (H + 3) doubles per thread (--explain),
  // more than the default 8 MiB device heap holds for this many threads.
  CGP_CUDA_CHECK(cgp::dev::reserveHeap(std::size_t(T) * (2 * H + 2) * sizeof(double), n));
#else
  const int n = 256, T = 8, runs = 3;
#endif
  const int threads = 128, blocks = (n + threads - 1) / threads;
  std::printf("timing on %d threads (%d blocks of %d), sequences of 1..%d steps, medians of %d "
              "launches\n",
              n, blocks, threads, T, runs);
  std::vector<int> len(n);
  for (int i = 0; i < n; ++i)
    len[i] = 1 + (i * 7) % T;
  Vec x = uniform(std::size_t(n) * T, -1, 1), W = uniform(H * H, -0.5, 0.5),
      U = uniform(H, -1, 1), seed = uniform(n + 1, 0.5, 1.5);
  DeviceArray<int> dlen(len);
  DeviceArray<double> dx(x), dW(W), dU(U), dout(n + 1), gx(x.size()), gW(W.size()), gU(U.size()),
      gout(seed), tx(x), tW(W), tU(U), tout(n + 1);
  auto nothing = [] {};
  auto rnn = [&] {
    CGP_LAUNCH(rnn_batch, blocks, threads, dx.get(), dlen.get(), dW.get(), dU.get(), dout.get(),
               n, T);
  };
  const double rnnMs = cgp_cuda_test::median_ms(runs, nothing, rnn);
  // The gradient uses up the seeds of the outputs it overwrites: put them back.
  const double gradMs = cgp_cuda_test::median_ms(runs, [&] { gout.upload(seed); }, [&] {
    CGP_LAUNCH(rnn_batch_grad, blocks, threads, dx.get(), dlen.get(), dW.get(), dU.get(),
               dout.get(), n, T, gx.get(), gW.get(), gU.get(), gout.get());
  });
  cgp_cuda_test::print_time("rnn_batch_grad", rnnMs, gradMs);
  const double jvpMs = cgp_cuda_test::median_ms(runs, nothing, [&] {
    CGP_LAUNCH(rnn_batch_jvp, blocks, threads, dx.get(), dlen.get(), dW.get(), dU.get(),
               dout.get(), n, T, tx.get(), tW.get(), tU.get(), tout.get());
  });
  cgp_cuda_test::print_time("rnn_batch_jvp", rnnMs, jvpMs);

  // gather: n threads read m inputs, several threads each.
  const int m = n / 8 + 1;
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i)
    idx[i] = int((i * 7919LL) % m);
  DeviceArray<int> didx(idx);
  DeviceArray<double> gxs(uniform(m, -1, 1)), gys(n), ggx(m), ggy(uniform(n, 0.5, 1.5));
  const double gatherMs = cgp_cuda_test::median_ms(runs, nothing, [&] {
    CGP_LAUNCH(gather, blocks, threads, gxs.get(), didx.get(), gys.get(), n);
  });
  const double gatherGradMs = cgp_cuda_test::median_ms(runs, nothing, [&] {
    CGP_LAUNCH(gather_grad, blocks, threads, gxs.get(), didx.get(), gys.get(), n, ggx.get(),
               ggy.get());
  });
  cgp_cuda_test::print_time("gather_grad", gatherMs, gatherGradMs);

  // row_norms: a row of T per thread, thread-own adjoints.
  DeviceArray<double> rx(uniform(std::size_t(n) * T, 0.2, 1.0)), rout(n), rgx(std::size_t(n) * T),
      rgout(uniform(n, 0.5, 1.5));
  const double rowMs = cgp_cuda_test::median_ms(runs, nothing, [&] {
    CGP_LAUNCH(row_norms, blocks, threads, rx.get(), rout.get(), n, T);
  });
  const double rowGradMs = cgp_cuda_test::median_ms(runs, nothing, [&] {
    CGP_LAUNCH(row_norms_grad, blocks, threads, rx.get(), rout.get(), n, T, rgx.get(), rgout.get());
  });
  cgp_cuda_test::print_time("row_norms_grad", rowMs, rowGradMs);
}

} // namespace

int main(int argc, char **argv) {
  const char *arg = argc > 1 ? argv[1] : "";
  racesOnly = std::strcmp(arg, "--races") == 0;
  const bool timing = std::strcmp(arg, "--time") == 0;
  const char *dumpPath = argc > 1 && arg[0] != '-' ? arg : nullptr;
  const int n = 40, T = 4, threads = 32, blocks = (n + threads - 1) / threads;
  std::vector<int> len(n);
  for (int i = 0; i < n; ++i)
    len[i] = 1 + i % T; // variable lengths, 1 to T
  Vec x = uniform(n * T, -1, 1), W = uniform(H * H, -0.5, 0.5), U = uniform(H, -1, 1);
  Vec seed = uniform(n + 1, 0.5, 1.5);
  DeviceArray<int> dlen(len);

  // rnn_batch: L = sum_i seed_i out_i + seed_n total.
  auto rnnLoss = [&](const Vec &xv, const Vec &Wv, const Vec &Uv) {
    DeviceArray<double> dx(xv), dW(Wv), dU(Uv), dout(n + 1);
    CGP_LAUNCH(rnn_batch, blocks, threads, dx.get(), dlen.get(), dW.get(), dU.get(), dout.get(),
               n, T);
    Vec out = dout.download();
    double L = 0;
    for (int i = 0; i <= n; ++i)
      L += seed[i] * out[i];
    return L;
  };
  {
    DeviceArray<double> dx(x), dW(W), dU(U), dout(n + 1);
    DeviceArray<double> gx(x.size()), gW(W.size()), gU(U.size()), gout(seed);
    CGP_LAUNCH(rnn_batch_grad, blocks, threads, dx.get(), dlen.get(), dW.get(), dU.get(),
               dout.get(), n, T, gx.get(), gW.get(), gU.get(), gout.get());
    CGP_CUDA_SYNC_CHECK();
    checkGradient("rnn_batch d_x", x, gx.download(),
                  [&](const Vec &v) { return rnnLoss(v, W, U); }, 3);
    checkGradient("rnn_batch d_W", W, gW.download(),
                  [&](const Vec &v) { return rnnLoss(x, v, U); }, 1);
    checkGradient("rnn_batch d_U", U, gU.download(),
                  [&](const Vec &v) { return rnnLoss(x, W, v); }, 1);
    Vec out = dout.download(), expected(n + 1);
    DeviceArray<double> pout(n + 1);
    CGP_LAUNCH(rnn_batch, blocks, threads, dx.get(), dlen.get(), dW.get(), dU.get(), pout.get(),
               n, T);
    cgp_cuda_test::check_close("rnn_batch_grad leaves the primal's outputs", out,
                               pout.download(), 1e-12);
    // The seeds of out[i] are used up (out[i] was overwritten); the total's stays.
    Vec left = gout.download();
    bool zeroed = true;
    for (int i = 0; i < n; ++i)
      zeroed = zeroed && left[i] == 0.0;
    cgp_cuda_test::check("rnn_batch d_out: overwritten outputs' seeds used up", zeroed);
    cgp_cuda_test::check_close("rnn_batch d_out: the total's seed stays", left[n], seed[n]);
  }
  if (!racesOnly) {
    // Forward mode against finite differences along a random direction.
    Vec tx = uniform(x.size(), -1, 1), tW = uniform(W.size(), -1, 1), tU = uniform(U.size(), -1, 1);
    DeviceArray<double> dx(x), dW(W), dU(U), dout(n + 1), ttx(tx), ttW(tW), ttU(tU), tout(n + 1);
    CGP_LAUNCH(rnn_batch_jvp, blocks, threads, dx.get(), dlen.get(), dW.get(), dU.get(),
               dout.get(), n, T, ttx.get(), ttW.get(), ttU.get(), tout.get());
    Vec to = tout.download();
    double tL = 0;
    for (int i = 0; i <= n; ++i)
      tL += seed[i] * to[i];
    double fd = cgp_cuda_test::central_difference(
        [&](const Vec &e) {
          Vec xe = x, We = W, Ue = U;
          for (std::size_t k = 0; k < x.size(); ++k) xe[k] += e[0] * tx[k];
          for (std::size_t k = 0; k < W.size(); ++k) We[k] += e[0] * tW[k];
          for (std::size_t k = 0; k < U.size(); ++k) Ue[k] += e[0] * tU[k];
          return rnnLoss(xe, We, Ue);
        },
        Vec{0.0}, 0, 1e-4);
    cgp_cuda_test::check_close("rnn_batch_jvp against finite differences", tL, fd, 1e-6, 1e-9);
  }

  // gather: several threads read each x[k].
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i)
    idx[i] = (i * 7) % 9;
  DeviceArray<int> didx(idx);
  Vec xs = uniform(9, -1, 1), ys = uniform(n, 0.5, 1.5);
  auto gatherLoss = [&](const Vec &v) {
    DeviceArray<double> dx(v), dy(n);
    CGP_LAUNCH(gather, blocks, threads, dx.get(), didx.get(), dy.get(), n);
    Vec y = dy.download();
    double L = 0;
    for (int i = 0; i < n; ++i)
      L += ys[i] * y[i];
    return L;
  };
  {
    DeviceArray<double> dx(xs), dy(n), gx(xs.size()), gy(ys);
    CGP_LAUNCH(gather_grad, blocks, threads, dx.get(), didx.get(), dy.get(), n, gx.get(), gy.get());
    CGP_CUDA_SYNC_CHECK();
    checkGradient("gather d_x", xs, gx.download(), gatherLoss, 1);
  }

  // row_norms: thread-own adjoints only; its gradient is dumped to compare strategies.
  Vec xr = uniform(n * T, 0.2, 1.0), sr = uniform(n, 0.5, 1.5);
  auto rowLoss = [&](const Vec &v) {
    DeviceArray<double> dx(v), dout(n);
    CGP_LAUNCH(row_norms, blocks, threads, dx.get(), dout.get(), n, T);
    Vec out = dout.download();
    double L = 0;
    for (int i = 0; i < n; ++i)
      L += sr[i] * out[i];
    return L;
  };
  {
    DeviceArray<double> dx(xr), dout(n), gx(xr.size()), gout(sr);
    CGP_LAUNCH(row_norms_grad, blocks, threads, dx.get(), dout.get(), n, T, gx.get(), gout.get());
    CGP_CUDA_SYNC_CHECK();
    Vec g = gx.download();
    checkGradient("row_norms d_x", xr, g, rowLoss, 3);
    cgp_cuda_test::dump_bits(dumpPath, g);
  }
  if (timing)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
