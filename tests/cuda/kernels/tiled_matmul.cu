// Tiled matrix product in float, C = A * B, as the CUDA programming guide teaches it: each
// block computes a TILE x TILE tile of C, loading a tile of A and a tile of B into __shared__
// memory per step along K, with __syncthreads() between the loads and the products and
// after them. M and N need not be multiples of the tile (the edge tiles load zeros); K is.
// Gradients with respect to A and B (in/out seed d_C) against finite differences, under
// the host emulation of CUDA (2 x 2 blocks of 16 x 16 threads) and ThreadSanitizer; the data
// are multiples of 1/16, so every sum is exact and the gradient's bits are compared across
// runs, accumulation and strategies.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all %t/budget
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/budget --memory-budget=256 -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/cgp/tiled_matmul.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %t/emu --time | FileCheck %s --check-prefix=TIME
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/store-all/tiled_matmul.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: %cxx %cxxflags %cuda-emulation -I%S %t/budget/tiled_matmul.cgp.cu -o %t/emu-budget -pthread %ldflags
// RUN: %t/emu-budget %t/budget.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: cmp %t/budget.dump %t/store-all.dump
// RUN: %cxx %cxxflags %tsan %cuda-emulation -I%S %t/cgp/tiled_matmul.cgp.cu -o %t/emu-tsan -pthread %ldflags
// RUN: %t/emu-tsan --races
// RUN: %nvcc-compile %t/cgp/tiled_matmul.cgp.cu -I%S
// RUN: %nvcc-compile %t/budget/tiled_matmul.cgp.cu -I%S
// RUN: %t/emu --counts | FileCheck %s --check-prefix=COUNTS
//
// TIME: TIME matmul_tiled_grad
// COUNTS: COUNTS matmul_tiled 1024 0 0 0 0 0 4096{{$}}
// COUNTS: COUNTS matmul_tiled_grad 1024
#include <cgp/cgp.h>

constexpr int TILE = 16;

CGP_GRAD(A, B, C)
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[threadIdx.y][threadIdx.x] = row < M ? A[row * K + t + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = col < N ? B[(t + threadIdx.y) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}

#ifndef __CGP_AD__
#include "tiled_matmul.cgp.h"
#include "kernel_test.h"

#include <cgp/device.h> // cgp::dev::reserveTapes (--time)

using cgp_cuda_test::DeviceArray;
using kernel_test::as;
using kernel_test::download;
using kernel_test::Mode;
using kernel_test::Vec;

namespace {

struct Problem {
  int M, N, K;
  dim3 grid() const { return dim3((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); }
  dim3 block() const { return dim3(TILE, TILE); }
};

/// --time: a 1024 x 1024 x 1024 product on a GPU (32 x 32 x 32 under the emulation).
void timeKernels() {
#ifdef __CUDACC__
  const Problem p{1024, 1024, 1024};
  const int runs = 20;
  // The gradient tapes two floats per step along K (--explain): 512 bytes at K = 1024, with
  // its counters beyond the 512 bytes of local memory. A pool of 1 KiB per thread holds it.
  CGP_CUDA_CHECK(cgp::dev::reserveTapes(1024, std::size_t(p.M) * p.N));
#else
  const Problem p{32, 32, 32};
  const int runs = 3;
#endif
  std::printf("timing C = A B of %d x %d x %d, medians of %d launches\n", p.M, p.N, p.K, runs);
  std::mt19937 rng(17);
  const std::vector<float> seed = as<float>(kernel_test::uniform(rng, std::size_t(p.M) * p.N, -1, 1));
  DeviceArray<float> a(as<float>(kernel_test::uniform(rng, std::size_t(p.M) * p.K, -1, 1))),
      b(as<float>(kernel_test::uniform(rng, std::size_t(p.K) * p.N, -1, 1))),
      c(std::size_t(p.M) * p.N), ga(a.size()), gb(b.size()), gc(seed);
  const double primalMs = cgp_cuda_test::median_ms(runs, [] {}, [&] {
    CGP_LAUNCH(matmul_tiled, p.grid(), p.block(), a.get(), b.get(), c.get(), p.M, p.N, p.K);
  });
  // Each launch uses up the seeds of C: put them back.
  const double gradMs = cgp_cuda_test::median_ms(runs, [&] { gc.upload(seed); }, [&] {
    CGP_LAUNCH(matmul_tiled_grad, p.grid(), p.block(), a.get(), b.get(), c.get(), p.M, p.N,
               p.K, ga.get(), gb.get(), gc.get());
  });
  cgp_cuda_test::print_time("matmul_tiled_grad", primalMs, gradMs);
  CGP_CUDA_CHECK(cgp::dev::reserveTapes(0, 0));
}

} // namespace

int main(int argc, char **argv) {
  const kernel_test::Options opt = kernel_test::parse(argc, argv);
  // 2 x 2 blocks, the last row and column of tiles partly outside C; two steps along K.
  const Problem p{24, 20, 32};
  std::mt19937 rng(3);
  const Vec A = kernel_test::dyadic(rng, std::size_t(p.M) * p.K),
            B = kernel_test::dyadic(rng, std::size_t(p.K) * p.N),
            seed = kernel_test::dyadic(rng, std::size_t(p.M) * p.N);

  struct Result {
    Vec dA, dB, dC, C;
  };
  // `launches` gradient launches into zeroed d_A, d_B, each with the seeds in d_C.
  auto gradient = [&](int launches) {
    DeviceArray<float> a(as<float>(A)), b(as<float>(B)), c(seed.size()), ga(A.size()),
        gb(B.size()), gc(seed.size());
    for (int l = 0; l < launches; ++l) {
      gc.upload(as<float>(seed));
      CGP_LAUNCH(matmul_tiled_grad, p.grid(), p.block(), a.get(), b.get(), c.get(), p.M, p.N, p.K,
                 ga.get(), gb.get(), gc.get());
      CGP_CUDA_SYNC_CHECK();
    }
    return Result{download(ga), download(gb), download(gc), download(c)};
  };
  auto primal = [&](const Vec &Av, const Vec &Bv) {
    DeviceArray<float> a(as<float>(Av)), b(as<float>(Bv)), c(seed.size());
    CGP_LAUNCH(matmul_tiled, p.grid(), p.block(), a.get(), b.get(), c.get(), p.M, p.N, p.K);
    CGP_CUDA_SYNC_CHECK();
    return download(c);
  };

  if (opt.mode == Mode::Races) {
    gradient(2);
    return cgp_cuda_test::finish();
  }
  if (opt.mode == Mode::Counts) {
    primal(A, B);
    kernel_test::print_counts("matmul_tiled");
    gradient(1);
    kernel_test::print_counts("matmul_tiled_grad");
    return 0;
  }

  // L = sum seed . C. The steps 1/64 and 1/128 keep A +- h exact in float, so the
  // differences are exact too.
  auto loss = [&](const Vec &Av, const Vec &Bv) {
    const Vec C = primal(Av, Bv);
    double L = 0;
    for (std::size_t k = 0; k < C.size(); ++k)
      L += seed[k] * C[k];
    return L;
  };
  const Result once = gradient(1);
  // Entries in each block row and column of tiles, the partial ones included.
  const std::vector<std::size_t> inA{0, 17, std::size_t(16 * p.K + 5), std::size_t(p.M * p.K - 1)},
      inB{0, 3, std::size_t(p.N + 17), std::size_t(p.K * p.N - 1)};
  kernel_test::check_gradient("matmul_tiled d_A", A, once.dA, inA,
                              kernel_test::dyadic(rng, A.size()),
                              [&](const Vec &v) { return loss(v, B); }, 1.0 / 64, 1e-6, 1e-6);
  kernel_test::check_gradient("matmul_tiled d_B", B, once.dB, inB,
                              kernel_test::dyadic(rng, B.size()),
                              [&](const Vec &v) { return loss(A, v); }, 1.0 / 64, 1e-6, 1e-6);
  cgp_cuda_test::check("matmul_tiled d_C: the seeds of the overwritten C used up",
                       once.dC == Vec(seed.size(), 0.0));
  cgp_cuda_test::check("matmul_tiled_grad leaves the primal's C", once.C == primal(A, B));

  const Result twice = gradient(2), again = gradient(1);
  kernel_test::check_accumulates("matmul_tiled d_A", once.dA, twice.dA, true);
  kernel_test::check_accumulates("matmul_tiled d_B", once.dB, twice.dB, true);
  kernel_test::check_repeats("matmul_tiled d_A", once.dA, again.dA, true);
  kernel_test::check_repeats("matmul_tiled d_B", once.dB, again.dB, true);

  Vec bits = once.dA;
  bits.insert(bits.end(), once.dB.begin(), once.dB.end());
  cgp_cuda_test::dump_bits(opt.dump, bits);
  if (opt.mode == Mode::Time)
    timeKernels();
  return cgp_cuda_test::finish();
}
#endif
