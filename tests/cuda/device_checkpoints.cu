// Loop checkpoints on the device: each thread runs a long recurrence of its
// own length and reverses it from snapshots of the loop's state instead of
// taping every iteration, under the default plan (the device's replay
// allowance: tapes over 512 bytes per thread are traded for replays) and
// under a memory budget per thread (binomial checkpointing with segments).
// The gradients are checked against finite differences under the
// emulation, and the thread-own adjoint d_x is the same to the last bit
// under every plan (d_w, which every thread adds into, is summed with
// atomics: its last bits follow the order of the threads). Tape pools
// (cgp::dev::reserveTapes) give the same bits.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/budget %t/store-all
// RUN: %cgpad %s -o %t/cgp --explain -- --cuda-gpu-arch=sm_90 | FileCheck %s --check-prefix=PLAN
// RUN: %cgpad %s -o %t/budget --memory-budget=300 --explain -- --cuda-gpu-arch=sm_90 | FileCheck %s --check-prefix=BUDGET
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: FileCheck %s --check-prefix=CODE < %t/cgp/device_checkpoints.cgp.cu
// RUN: FileCheck %s --check-prefix=BUDGET-CODE < %t/budget/device_checkpoints.cgp.cu
// RUN: FileCheck %s --check-prefix=STORE < %t/store-all/device_checkpoints.cgp.cu
// RUN: %cxx %cxxflags %cuda-emulation %t/cgp/device_checkpoints.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation %t/budget/device_checkpoints.cgp.cu -o %t/emu-budget -pthread %ldflags
// RUN: %t/emu-budget %t/budget.dump
// RUN: %cxx %cxxflags %cuda-emulation %t/store-all/device_checkpoints.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: cmp %t/budget.dump %t/store-all.dump
// RUN: %nvcc-compile %t/cgp/device_checkpoints.cgp.cu
// RUN: %nvcc-compile %t/budget/device_checkpoints.cgp.cu
//
// PLAN: loop over t (line {{[0-9]+}}, trip count known at run time; 100 assumed): tape the last iterations, run the first 100.0% again from snapshots (the replay allowance)
// PLAN-NEXT: no --memory-budget: on the device the plan's replay allowance (the primal's time) pays for running 100.0% of its iterations again
// PLAN: loop over k (line {{[0-9]+}}, 2 iterations): tape every iteration
// PLAN-NEXT: cannot be checkpointed: on the device, only a kernel's outermost loops keep snapshots
// BUDGET: its loops that keep snapshots plan in each thread, for the trip count it meets, within --memory-budget=300 bytes per thread
// BUDGET: loop over t (line {{[0-9]+}}, {{.*}}): tape every iteration if that fits the memory budget, else binomial checkpointing of its state
// BUDGET-NEXT: chosen at run time; state: h, energy
// CODE: {{^}}#include <cgp/device_checkpoint.h>
// CODE: unsigned char cgp_tape_space[cgp::dev::kLocalTapeBytes];
// CODE-NEXT: cgp::dev::Tape cgp_tape(cgp_tape_space, sizeof cgp_tape_space);
// CODE-NEXT: cgp::dev::LoopSite t_site;
// CODE-NEXT: cgp::dev::LoopCheckpoints t_checkpoints;
// CODE: loop over t: in each thread, tape every iteration if that holds at most 512 bytes
// CODE: cgp::dev::planLoopReversal(cgp_tape, t_site, t_steps,
// CODE: t_checkpoints.put(h);
// CODE: t_checkpoints.finish();
// BUDGET-CODE: {{^}}#include <cgp/device_checkpoint.h>
// BUDGET-CODE: unsigned char cgp_tape_space[304];
// TIME: TIME leaky_grad
// STORE: {{^}}#include <cgp/device.h>
// STORE-NOT: dev::LoopCheckpoints
#include <cgp/cgp.h>

constexpr int K = 2; // state per thread

CGP_GRAD(x, w, out)
__global__ void leaky(const double *x, const int *len, const double *w, double *out, int n,
                      int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double h[K] = {0.5, -0.25};
  double energy = 0;
  for (int t = 0; t < len[i]; ++t) {
    double drive = w[2] * x[i * T + t];
    for (int k = 0; k < K; ++k)
      h[k] = tanh(w[k] * h[k] + drive + 0.3 * h[(k + 1) % K]);
    energy += h[0] * h[1];
  }
  out[i] = energy + h[0];
}

#ifndef __CGP_AD__
#include "device_checkpoints.cgp.h"
#include <cgp/device.h> // cgp::dev::reserveTapes
#include <cuda_check.h>

#include <cstring>
#include <random>

using cgp_cuda_test::DeviceArray;
using Vec = std::vector<double>;

/// --time: the gradient against the primal, median of repeated launches, on
/// a batch big enough for a GPU (small under the emulation).
static void timeKernels() {
#ifdef __CUDACC__
  const int n = 1 << 16, T = 256, runs = 20;
  // Each thread's tape holds a few snapshots and a segment of iterations
  // (about 2 KiB at T = 256): a slice of 4 KiB per thread holds it.
  CGP_CUDA_CHECK(cgp::dev::reserveTapes(4096, n));
#else
  const int n = 64, T = 64, runs = 3;
#endif
  const int threads = 128, blocks = (n + threads - 1) / threads;
  std::printf("timing on %d threads, loops of up to %d steps, medians of %d launches\n", n, T,
              runs);
  std::vector<int> len(n);
  for (int i = 0; i < n; ++i)
    len[i] = T / 2 + (i * 7) % (T / 2);
  std::vector<double> x(std::size_t(n) * T), w{0.4, -0.3, 0.5}, seed(n, 1.0);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = 0.001 * double(k % 1000) - 0.5;
  DeviceArray<int> dlen(len);
  DeviceArray<double> dx(x), dw(w), dout(n), gx(x.size()), gw(w.size()), gout(seed);
  const double primalMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(leaky, blocks, threads, dx.get(), dlen.get(), dw.get(), dout.get(), n, T);
  });
  // The gradient uses up the seeds of the outputs it overwrites: put them back.
  const double gradMs = cgp_cuda_test::median_ms(runs, [&] { gout.upload(seed); }, [&] {
    CGP_LAUNCH(leaky_grad, blocks, threads, dx.get(), dlen.get(), dw.get(), dout.get(), n, T,
               gx.get(), gw.get(), gout.get());
  });
  cgp_cuda_test::print_time("leaky_grad", primalMs, gradMs);
}

int main(int argc, char **argv) {
  const char *arg = argc > 1 ? argv[1] : "";
  const char *dumpPath = arg[0] != '\0' && arg[0] != '-' ? arg : nullptr;
  const int n = 40, T = 90, threads = 32, blocks = (n + threads - 1) / threads;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  auto uniform = [&](std::size_t size, double scale) {
    Vec v(size);
    for (double &e : v)
      e = scale * u(rng);
    return v;
  };
  std::vector<int> len(n);
  for (int i = 0; i < n; ++i)
    len[i] = i % 5 == 0 ? 1 : 30 + (i * 7) % (T - 30); // 1, and 30 to T - 1 steps
  Vec x = uniform(std::size_t(n) * T, 1.0), w = uniform(3, 0.7), seed = uniform(n, 1.0);
  DeviceArray<int> dlen(len);
  auto loss = [&](const Vec &xv, const Vec &wv) {
    DeviceArray<double> dx(xv), dw(wv), dout(n);
    CGP_LAUNCH(leaky, blocks, threads, dx.get(), dlen.get(), dw.get(), dout.get(), n, T);
    Vec out = dout.download();
    double L = 0;
    for (int i = 0; i < n; ++i)
      L += seed[i] * out[i];
    return L;
  };
  DeviceArray<double> dx(x), dw(w), dout(n), gx(x.size()), gw(w.size()), gout(seed);
  CGP_LAUNCH(leaky_grad, blocks, threads, dx.get(), dlen.get(), dw.get(), dout.get(), n, T,
             gx.get(), gw.get(), gout.get());
  CGP_CUDA_SYNC_CHECK();
  Vec g = gx.download(), fd(x.size()), got(x.size());
  for (std::size_t k = 0; k < x.size(); k += 17) {
    fd[k] = cgp_cuda_test::central_difference([&](const Vec &v) { return loss(v, w); }, x, k,
                                              1e-4);
    got[k] = g[k];
  }
  cgp_cuda_test::check_close("leaky d_x against finite differences", got, fd, 1e-6, 1e-9);
  // With tape pools (cgp::dev::reserveTapes): slices too small for the
  // longest tapes (which move on to the device heap), then slices that hold
  // every tape: the same bits.
  for (std::size_t slice : {std::size_t(600), std::size_t(8192)}) {
    CGP_CUDA_CHECK(cgp::dev::reserveTapes(slice, std::size_t(blocks) * threads));
    DeviceArray<double> px(x.size()), pw(w.size()), pout(seed);
    CGP_LAUNCH(leaky_grad, blocks, threads, dx.get(), dlen.get(), dw.get(), dout.get(), n, T,
               px.get(), pw.get(), pout.get());
    CGP_CUDA_SYNC_CHECK();
    cgp_cuda_test::check("leaky d_x with tape slices of " + std::to_string(slice) +
                             " bytes: the same bits",
                         px.download() == g);
  }
  CGP_CUDA_CHECK(cgp::dev::reserveTapes(0, 0));
  cgp_cuda_test::check_close("leaky d_w against finite differences", gw.download(),
                             cgp_cuda_test::fd_gradient([&](const Vec &v) { return loss(x, v); },
                                                        w, 1e-4),
                             1e-6, 1e-9);
  cgp_cuda_test::dump_bits(dumpPath, g);
  if (std::strcmp(arg, "--time") == 0)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
