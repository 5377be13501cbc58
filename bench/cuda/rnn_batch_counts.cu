// rnn_batch_counts.cu - the --counts mode of the kernel-shape tests for the CUDA sample's
// kernel (samples/cuda/rnn_batch.cu, whose own main.cu checks and times it): launches
// rnn_batch and the generated rnn_batch_grad once each on a small batch under the host
// emulation of CUDA and prints their COUNTS lines (tests/cuda/kernels/kernel_test.h) for
// bench/cuda/run.py. Built with the sample's generated unit:
//
//   cgp-ad samples/cuda/rnn_batch.cu -o GEN
//   c++ -std=c++17 -x c++ -include tests/cuda/emu/cuda_emulation.h -I tests/cuda/harness \
//       -I tests/cuda/kernels -I GEN -I PREFIX/include GEN/rnn_batch.cgp.cu \
//       bench/cuda/rnn_batch_counts.cu -pthread -L PREFIX/lib -lcgp_rt
#include "rnn_batch.cgp.h"
#include "kernel_test.h"

#include <cstdio>
#include <random>
#include <vector>

// The sample's kernel and sizes, as samples/cuda/main.cu declares them.
constexpr int H = 8, D = 2;
__global__ void rnn_batch(const double *W, const double *U, const double *b, const double *v,
                          const double *a, const double *x, const int *len,
                          const double *target, double *total, int n);

int main() {
  // 96 sequences of 1 to 6 steps, 3 blocks of 32 threads.
  const int n = 96, maxSteps = 6, threads = 32, blocks = (n + threads - 1) / threads;
  std::mt19937 rng(11);
  using kernel_test::Vec;
  std::vector<int> len(n);
  for (int i = 0; i < n; ++i)
    len[i] = 1 + i % maxSteps;
  cgp_cuda_test::DeviceArray<int> dlen(len);
  cgp_cuda_test::DeviceArray<double> W(kernel_test::uniform(rng, H * H, -0.2, 0.2)),
      U(kernel_test::uniform(rng, H * D, -0.8, 0.8)), b(kernel_test::uniform(rng, H, -0.1, 0.1)),
      v(kernel_test::uniform(rng, H, -1, 1)), a(Vec{0.0}),
      x(kernel_test::uniform(rng, std::size_t(maxSteps) * n * D, -1, 1)),
      target(kernel_test::uniform(rng, n, -1, 1)), total(Vec{0.0});
  cgp_cuda_test::DeviceArray<double> gW(H * H), gU(H * D), gb(H), gv(H), ga(1), gtotal(Vec{1.0});
  CGP_LAUNCH(rnn_batch, blocks, threads, W.get(), U.get(), b.get(), v.get(), a.get(), x.get(),
             dlen.get(), target.get(), total.get(), n);
  CGP_CUDA_SYNC_CHECK();
  kernel_test::print_counts("rnn_batch");
  total.upload(Vec{0.0});
  CGP_LAUNCH(rnn_batch_grad, blocks, threads, W.get(), U.get(), b.get(), v.get(), a.get(),
             x.get(), dlen.get(), target.get(), total.get(), n, gW.get(), gU.get(), gb.get(),
             gv.get(), ga.get(), gtotal.get());
  CGP_CUDA_SYNC_CHECK();
  kernel_test::print_counts("rnn_batch_grad");
  return 0;
}
