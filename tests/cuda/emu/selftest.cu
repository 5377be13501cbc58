// selftest.cu - exercises every feature of the CUDA host emulation
// (cuda_emulation.h). Compiles unchanged under nvcc; run-selftest.sh runs it
// under the emulation, plain and with ThreadSanitizer.
//
//   selftest              all checks; exit status 0 when all pass
//   selftest --race       a kernel with a data race within a block (for TSan
//                         to report)
//   selftest --bad-warp   a full-mask shuffle after lanes returned (the
//                         emulation must report it and abort)
//   selftest --deadlock   thread 0 waits in __syncthreads while its warp
//                         waits for it in a shuffle (reported, aborts)
#include "../harness/cuda_check.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

using cgp_cuda_test::DeviceArray;
using cgp_cuda_test::check;
using cgp_cuda_test::check_close;

namespace {

const unsigned kGrid = 4, kBlock = 64;

// Grid-stride loop: y = a*x + y.
__global__ void saxpy(int n, double a, const double* x, double* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// Block reduction in static shared memory; one partial sum per block.
__global__ void block_sum(const double* x, int n, double* partial) {
  __shared__ double s[64];
  double v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// The same with dynamic shared memory.
__global__ void block_sum_dynamic(const double* x, int n, double* partial) {
  CGP_DYNAMIC_SHARED(double, s);
  double v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += x[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// Warp sums by __shfl_down_sync, in segments of `width` lanes: lane 0 of each
// segment writes its segment's sum.
template <class T>
__global__ void warp_sum_down(const T* x, T* out, int width) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  T v = x[t];
  for (int d = width / 2; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d, width);
  out[t] = (threadIdx.x % width == 0) ? v : T(0);
}

// Butterfly: every lane gets the warp's sum; plus broadcast, up-shift scan.
__global__ void warp_misc(const int* x, int* total, int* bcast, int* scan, int* rotated) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  int v = x[t];
  for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
  total[t] = v;
  bcast[t] = __shfl_sync(0xffffffffu, x[t], 3);
  int s = x[t];
  for (unsigned d = 1; d < 32; d *= 2) {
    int o = __shfl_up_sync(0xffffffffu, s, d);
    if (lane >= d) s += o;
  }
  scan[t] = s;
  rotated[t] = __shfl_sync(0xffffffffu, x[t], static_cast<int>(lane) + 1);  // srcLane mod 32
}

// Votes.
__global__ void votes(unsigned* ballot, int* any, int* all, int* none, unsigned* active) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  ballot[t] = __ballot_sync(0xffffffffu, lane % 3 == 0);
  any[t] = __any_sync(0xffffffffu, lane == 7);
  all[t] = __all_sync(0xffffffffu, lane < 32);
  none[t] = __all_sync(0xffffffffu, lane != 5) + __any_sync(0xffffffffu, 0);
  __syncwarp();
  active[t] = __activemask() & (1u << lane);  // own bit: set on a GPU and in the emulation
#ifdef CGP_CUDA_EMULATION
  if (__activemask() != 1u << lane) active[t] = 0;  // the emulation: own bit only
#endif
  // Two half-warps with disjoint masks at the same time.
  const unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  if (__ballot_sync(half, 1) != half) ballot[t] = 0xdeadu;
}

// Threads >= active return at once; the others pass two barriers and read
// their neighbours' shared values.
__global__ void early_return(int active, int* out) {
  __shared__ int s[64];
  if (static_cast<int>(threadIdx.x) >= active) return;
  s[threadIdx.x] = static_cast<int>(threadIdx.x) * 10 + static_cast<int>(blockIdx.x);
  __syncthreads();
  int v = s[(threadIdx.x + 1) % active];
  __syncthreads();
  s[threadIdx.x] = v;
  __syncthreads();
  const int count = __syncthreads_count(1);
  const int all = __syncthreads_and(threadIdx.x < 64);
  const int any = __syncthreads_or(threadIdx.x == 3);
  const int none = __syncthreads_or(0);
  out[blockIdx.x * blockDim.x + threadIdx.x] =
      s[threadIdx.x] + count * 1000 + all * 100000 + any * 1000000 + none * 10000000;
}

// Every thread adds to one address; each thread also takes a ticket.
__global__ void atomics(double* d, float* f, int* i, unsigned* u, unsigned long long* ull,
                        int* ticket_seen, int* mx, int* mn, unsigned* cas_count, int* last) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicAdd(d, 0.5);
  atomicAdd(f, 0.25f);
  atomicAdd(u, 3u);
  atomicAdd(ull, 1ull << 33);
  const int ticket = atomicAdd(i, 1);  // the old value: a permutation of 0..n-1
  atomicAdd(&ticket_seen[ticket], 1);
  atomicMax(mx, t * 7 % 1000);
  atomicMin(mn, 1000 - t);
  unsigned old = atomicAdd(cas_count, 0u), assumed;
  do {
    assumed = old;
    old = atomicCAS(cas_count, assumed, assumed + 2);
  } while (old != assumed);
  atomicExch(last, t);
}

// 3-D blocks: every thread records its coordinates at its linear index.
__global__ void coords(unsigned* out) {
  const unsigned tin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned bin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned g = bin * blockDim.x * blockDim.y * blockDim.z + tin;
  out[4 * g + 0] = threadIdx.x + 100 * threadIdx.y + 10000 * threadIdx.z;
  out[4 * g + 1] = blockIdx.x + 100 * blockIdx.y + 10000 * blockIdx.z;
  out[4 * g + 2] = blockDim.x + 100 * blockDim.y + 10000 * blockDim.z;
  out[4 * g + 3] = gridDim.x + 100 * gridDim.y + 10000 * gridDim.z + 1000000 * warpSize;
}

// A kernel without parameters, and argument conversion (int -> long, float -> double).
__global__ void no_args() {}
__global__ void conversions(long n, double a, const double* x, double* y) { y[n] = a * x[n]; }

// Data race: plain += from every thread (only for --race).
__global__ void racy_sum(double* total) { *total += 1.0; }

// Lanes 16..31 return, then the rest shuffle with a full mask (for --bad-warp).
__global__ void bad_warp(int* out) {
  if (threadIdx.x >= 16) return;
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, static_cast<int>(threadIdx.x), 1);
}

// Thread 0 waits at the barrier, lanes 1..31 in a shuffle that needs lane 0
// (for --deadlock; on a GPU this hangs).
__global__ void deadlock(int* out) {
  if (threadIdx.x == 0) {
    __syncthreads();
    return;
  }
  if (threadIdx.x < 32) out[threadIdx.x] = __shfl_sync(0xffffffffu, 1, 0);
}

void test_saxpy() {
  const int n = 1000;
  std::vector<double> x(n), y(n), expect(n);
  for (int i = 0; i < n; ++i) {
    x[i] = i * 0.5;
    y[i] = 1.0 - i;
    expect[i] = 2.0 * x[i] + y[i];
  }
  DeviceArray<double> dx(x), dy(y);
  CGP_LAUNCH(saxpy, kGrid, kBlock, n, 2.0, dx.get(), dy.get());
  CGP_CUDA_SYNC_CHECK();
  check_close("grid-stride saxpy", dy.download(), expect, 0.0);
}

void test_block_sum() {
  const int n = 3000;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = 0.25 * (i % 17) - 1.0;  // sums exactly
  const double serial = std::accumulate(x.begin(), x.end(), 0.0);
  DeviceArray<double> dx(x), partial(kGrid);
  CGP_LAUNCH(block_sum, kGrid, kBlock, dx.get(), n, partial.get());
  CGP_CUDA_SYNC_CHECK();
  std::vector<double> p = partial.download();
  check_close("__shared__ block reduction", std::accumulate(p.begin(), p.end(), 0.0), serial, 0.0);

  DeviceArray<double> partial2(kGrid);
  CGP_LAUNCH_SHARED(block_sum_dynamic, kGrid, kBlock, kBlock * sizeof(double), dx.get(), n,
                    partial2.get());
  CGP_CUDA_SYNC_CHECK();
  p = partial2.download();
  check_close("dynamic shared block reduction", std::accumulate(p.begin(), p.end(), 0.0), serial,
              0.0);
}

template <class T>
void test_warp_sum(const char* name, int width) {
  const unsigned n = kGrid * kBlock;
  std::vector<T> x(n), expect(n, T(0));
  for (unsigned i = 0; i < n; ++i) x[i] = static_cast<T>(i % 13 + 1);
  for (unsigned i = 0; i < n; i += width)
    for (int k = 0; k < width; ++k) expect[i] += x[i + k];
  DeviceArray<T> dx(x), out(n);
  CGP_LAUNCH(warp_sum_down<T>, kGrid, kBlock, dx.get(), out.get(), width);
  CGP_CUDA_SYNC_CHECK();
  check_close(std::string("__shfl_down_sync sum ") + name + " width " + std::to_string(width),
              out.download(), expect, 0.0);
}

void test_warp_misc() {
  const unsigned n = kGrid * kBlock;
  std::vector<int> x(n);
  for (unsigned i = 0; i < n; ++i) x[i] = static_cast<int>(i * 7 % 11) - 3;
  std::vector<int> total(n), bcast(n), scan(n), rotated(n);
  for (unsigned w = 0; w < n; w += 32) {
    int sum = 0;
    for (unsigned l = 0; l < 32; ++l) {
      sum += x[w + l];
      scan[w + l] = sum;
      bcast[w + l] = x[w + 3];
      rotated[w + l] = x[w + (l + 1) % 32];
    }
    for (unsigned l = 0; l < 32; ++l) total[w + l] = sum;
  }
  DeviceArray<int> dx(x), dt(n), db(n), ds(n), dr(n);
  CGP_LAUNCH(warp_misc, kGrid, kBlock, dx.get(), dt.get(), db.get(), ds.get(), dr.get());
  CGP_CUDA_SYNC_CHECK();
  check_close("__shfl_xor_sync butterfly", dt.download(), total, 0.0);
  check_close("__shfl_sync broadcast", db.download(), bcast, 0.0);
  check_close("__shfl_up_sync scan", ds.download(), scan, 0.0);
  check_close("__shfl_sync srcLane modulo width", dr.download(), rotated, 0.0);
}

void test_votes() {
  const unsigned n = kGrid * kBlock;
  DeviceArray<unsigned> ballot(n);
  DeviceArray<int> any(n), all(n), none(n);
  DeviceArray<unsigned> active(n);
  CGP_LAUNCH(votes, kGrid, kBlock, ballot.get(), any.get(), all.get(), none.get(), active.get());
  CGP_CUDA_SYNC_CHECK();
  unsigned expect = 0;
  for (unsigned l = 0; l < 32; l += 3) expect |= 1u << l;
  check_close("__ballot_sync", ballot.download(), std::vector<unsigned>(n, expect), 0.0);
  check_close("__any_sync", any.download(), std::vector<int>(n, 1), 0.0);
  check_close("__all_sync", all.download(), std::vector<int>(n, 1), 0.0);
  check_close("__all_sync false, __any_sync none", none.download(), std::vector<int>(n, 0), 0.0);
  std::vector<unsigned> own(n);
  for (unsigned t = 0; t < n; ++t) own[t] = 1u << (t % 32);
  check_close("__activemask", active.download(), own, 0.0);
}

void test_early_return() {
  const int active = 40;
  const unsigned n = kGrid * kBlock;
  std::vector<int> init(n, -7), expect(n, -7);
  for (unsigned b = 0; b < kGrid; ++b)
    for (int t = 0; t < active; ++t)
      expect[b * kBlock + t] =
          ((t + 1) % active) * 10 + static_cast<int>(b) + active * 1000 + 100000 + 1000000;
  DeviceArray<int> out(init);
  CGP_LAUNCH(early_return, kGrid, kBlock, active, out.get());
  CGP_CUDA_SYNC_CHECK();
  check_close("early return before __syncthreads(_count/_and/_or)", out.download(), expect, 0.0);
}

void test_atomics() {
  const int n = static_cast<int>(kGrid * kBlock);
  DeviceArray<double> d(1);
  DeviceArray<float> f(1);
  DeviceArray<int> i(1), seen(n), mx(std::vector<int>{-5}), mn(std::vector<int>{5000});
  DeviceArray<unsigned> u(1), cas(1);
  DeviceArray<unsigned long long> ull(1);
  DeviceArray<int> last(std::vector<int>{-1});
  CGP_LAUNCH(atomics, kGrid, kBlock, d.get(), f.get(), i.get(), u.get(), ull.get(), seen.get(),
             mx.get(), mn.get(), cas.get(), last.get());
  CGP_CUDA_SYNC_CHECK();
  check_close("atomicAdd double", d.download()[0], 0.5 * n, 0.0);
  check_close("atomicAdd float", f.download()[0], 0.25 * n, 0.0);
  check_close("atomicAdd int", i.download()[0], n, 0.0);
  check_close("atomicAdd unsigned", u.download()[0], 3.0 * n, 0.0);
  check("atomicAdd unsigned long long", ull.download()[0] == (1ull << 33) * n);
  check_close("atomicAdd returns the old value", seen.download(), std::vector<int>(n, 1), 0.0);
  int expect_max = 0;
  for (int t = 0; t < n; ++t) expect_max = std::max(expect_max, t * 7 % 1000);
  check_close("atomicMax int", mx.download()[0], expect_max, 0.0);
  check_close("atomicMin int", mn.download()[0], 1000 - (n - 1), 0.0);
  check_close("atomicCAS loop", cas.download()[0], 2.0 * n, 0.0);
  const int l = last.download()[0];
  check("atomicExch", l >= 0 && l < n);
}

void test_coords() {
  const dim3 grid(2, 3, 1), block(8, 4, 2);
  const unsigned per_block = 64, nthreads = 6 * per_block;
  DeviceArray<unsigned> out(4 * nthreads);
  CGP_LAUNCH(coords, grid, block, out.get());
  CGP_CUDA_SYNC_CHECK();
  std::vector<unsigned> expect(4 * nthreads);
  for (unsigned bz = 0; bz < 1; ++bz)
    for (unsigned by = 0; by < 3; ++by)
      for (unsigned bx = 0; bx < 2; ++bx)
        for (unsigned tz = 0; tz < 2; ++tz)
          for (unsigned ty = 0; ty < 4; ++ty)
            for (unsigned tx = 0; tx < 8; ++tx) {
              const unsigned g = (bx + 2 * (by + 3 * bz)) * per_block + tx + 8 * (ty + 4 * tz);
              expect[4 * g + 0] = tx + 100 * ty + 10000 * tz;
              expect[4 * g + 1] = bx + 100 * by + 10000 * bz;
              expect[4 * g + 2] = 8 + 100 * 4 + 10000 * 2;
              expect[4 * g + 3] = 2 + 100 * 3 + 10000 * 1 + 1000000 * 32;
            }
  check_close("3-D threadIdx/blockIdx/blockDim/gridDim", out.download(), expect, 0.0);
}

void test_launch_forms() {
  CGP_LAUNCH(no_args, 1, 32);
  CGP_CUDA_SYNC_CHECK();
  DeviceArray<double> x(std::vector<double>{1.0, 2.0, 3.0}), y(3);
  CGP_LAUNCH(conversions, 1, 1, 2, 1.5f, x.get(), y.get());
  CGP_CUDA_SYNC_CHECK();
  check_close("argument conversion", y.download()[2], 4.5, 0.0);
  CGP_LAUNCH(no_args, 1, 2048);  // too many threads per block
  check("invalid configuration reported", cudaGetLastError() == cudaErrorInvalidConfiguration);
  check("last error cleared", cudaGetLastError() == cudaSuccess);
}

void test_finite_difference() {
  auto f = [](const std::vector<double>& v) { return std::sin(v[0]) * v[1] * v[1]; };
  const std::vector<double> x{0.3, 1.7};
  check_close("central_difference", cgp_cuda_test::central_difference(f, x, 0),
              std::cos(0.3) * 1.7 * 1.7, 1e-9);
  check_close("fd_gradient", cgp_cuda_test::fd_gradient(f, x)[1], 2 * std::sin(0.3) * 1.7, 1e-9);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--race") == 0) {
    DeviceArray<double> total(1);
    CGP_LAUNCH(racy_sum, 1, kBlock, total.get());
    CGP_CUDA_SYNC_CHECK();
    std::printf("racy sum: %g (expected %u without the race)\n", total.download()[0], kBlock);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--bad-warp") == 0) {
    DeviceArray<int> out(32);
    CGP_LAUNCH(bad_warp, 1, 32, out.get());
    CGP_CUDA_SYNC_CHECK();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--deadlock") == 0) {
    DeviceArray<int> out(64);
    CGP_LAUNCH(deadlock, 1, 64, out.get());
    CGP_CUDA_SYNC_CHECK();
    return 0;
  }
  test_saxpy();
  test_block_sum();
  test_warp_sum<float>("float", 32);
  test_warp_sum<double>("double", 32);
  test_warp_sum<int>("int", 32);
  test_warp_sum<unsigned>("unsigned", 16);
  test_warp_sum<long long>("long long", 8);
  test_warp_misc();
  test_votes();
  test_early_return();
  test_atomics();
  test_coords();
  test_launch_forms();
  test_finite_difference();
  return cgp_cuda_test::finish();
}
