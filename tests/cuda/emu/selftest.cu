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
//   selftest --cross-block-race    one thread of each of two blocks adds
//                         into one element without an atomic (no race within
//                         a block; the emulation must report it and abort)
//   selftest --cross-block-mixed   two blocks add with atomicAdd, a third
//                         plainly (reported, aborts)
//   selftest --cross-block-scope   two blocks add with atomicAdd_block, which
//                         is atomic within a block only (reported, aborts)
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

// Thread 0 of the blocks with blockIdx.y == 1 adds into x[3] without an
// atomic: a race between blocks only (for --cross-block-race).
__global__ void cross_block_add(double* x) {
  if (threadIdx.x == 0 && blockIdx.y == 1) x[3] += 1.0;
}

// Blocks 0 and 1 add with atomicAdd, block 2 plainly, through a pointer the
// kernel's parameters do not show (for --cross-block-mixed).
struct Holder {
  double* target;
};
__global__ void cross_block_mixed(Holder h) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x < 2)
    atomicAdd(h.target, 1.0);
  else
    *h.target += 1.0;
}

// Every block applies every atomic (of device or system scope) to elements
// that all blocks share; each call of block b changes its element (the
// cross-block check must take all of them for atomics). Thread 0 of each
// block does it, the others or 0 in. The results do not depend on the order
// of the blocks.
template <class T>
__global__ void shared_int_atomics(T* v) {
  const T b = static_cast<T>(blockIdx.x + 1);
  if (threadIdx.x != 0) {
    atomicOr(&v[2], T(0));
    return;
  }
  atomicMax(&v[0], b);
  atomicMin(&v[1], T(100) - b);
  atomicAnd(&v[2], static_cast<T>(~(T(1) << b)));
  atomicOr(&v[3], static_cast<T>(T(1) << b));
  atomicXor(&v[4], static_cast<T>(T(1) << b));
  atomicMax_system(&v[5], b);
  atomicMin_system(&v[6], T(100) - b);
  atomicOr_system(&v[7], static_cast<T>(T(1) << b));
}

// Adds 1 to *p with a loop of atomicCAS (atomicCAS_system if `system`).
template <class T>
__device__ void cas_add_one(T* p, bool system) {
  T old = atomicAdd(p, T(0)), assumed;
  do {
    assumed = old;
    old = system ? atomicCAS_system(p, assumed, static_cast<T>(assumed + 1))
                 : atomicCAS(p, assumed, static_cast<T>(assumed + 1));
  } while (old != assumed);
}

__global__ void shared_other_atomics(int* i, unsigned* u, unsigned long long* ull, float* f,
                                     double* d) {
  if (threadIdx.x != 0) return;
  const unsigned b = blockIdx.x + 1;
  atomicSub(&i[0], 2);
  atomicSub(&u[0], 2u);
  atomicExch(&i[1], static_cast<int>(b));
  atomicExch(&u[1], b);
  atomicExch(&ull[0], 1ull << (32 + b));
  atomicExch(&f[0], 0.5f * b);
  cas_add_one(&i[2], false);
  cas_add_one(&u[2], false);
  cas_add_one(&ull[1], false);
  atomicInc(&u[3], 1000u);
  atomicDec(&u[4], 1000u);
  atomicAdd(&f[1], 0.25f);
  atomicAdd(&d[0], 0.5);
  atomicAdd_system(&d[1], 1.0);
  atomicAdd_system(&ull[2], 3ull);
  atomicSub_system(&i[3], 1);
  atomicExch_system(&i[4], static_cast<int>(b));
  cas_add_one(&u[5], true);
  atomicInc_system(&u[6], 1000u);
  atomicDec_system(&u[7], 1000u);
  atomicXor_system(&u[8], 1u << b);
  atomicAnd_system(&u[9], ~(1u << b));
}

// Atomics of block scope (atomic among the threads of a block only), every
// thread of block b on elements of b's own.
__global__ void block_scope_atomics(int* i, unsigned* u, unsigned long long* ull, double* d) {
  const unsigned b = blockIdx.x, t = threadIdx.x;
  atomicAdd_block(&d[b], 1.0);
  atomicAdd_block(&ull[b], 2ull);
  atomicSub_block(&i[3 * b], 1);
  atomicMax_block(&i[3 * b + 1], static_cast<int>(t));
  atomicMin_block(&i[3 * b + 2], -static_cast<int>(t));
  atomicInc_block(&u[6 * b], 1000u);
  atomicDec_block(&u[6 * b + 1], 1000u);
  atomicOr_block(&u[6 * b + 2], 1u << (t % 32));
  atomicAnd_block(&u[6 * b + 3], ~(1u << (t % 32)));
  atomicXor_block(&u[6 * b + 4], 1u << (t % 32));
  atomicExch_block(&u[6 * b + 5], t);
  unsigned long long assumed;
  do {
    assumed = atomicAdd(&ull[b], 0ull);
  } while (atomicCAS_block(&ull[b], assumed, assumed + 1) != assumed);
}

// Two blocks add into one element with atomics of block scope (for
// --cross-block-scope: on a GPU they race).
__global__ void cross_block_scope(double* x) {
  if (threadIdx.x == 0) atomicAdd_block(x, 1.0);
}

// Each block writes elements of its own, interleaved with other blocks'
// (bytes next to each other in memory); block 2 alone writes flag[0] while
// every block adds into flag[1] with atomicAdd.
__global__ void own_elements(unsigned char* bytes, double* values, double* flag) {
  const unsigned b = blockIdx.x, g = gridDim.x;
  for (unsigned i = threadIdx.x; i < 64; i += blockDim.x) {
    bytes[i * g + b] = static_cast<unsigned char>(b + 1);
    values[i * g + b] = b + 0.5 * i;
  }
  if (threadIdx.x == 0 && b == 2) flag[0] = 5.0;
  atomicAdd(&flag[1], 1.0);
}

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

// Blocks that share elements only through atomics, or write elements of
// their own: the cross-block check must stay silent (it would abort).
template <class T>
void test_int_atomics_across_blocks(const char* name) {
  const T ones = static_cast<T>(~T(0));
  DeviceArray<T> v(std::vector<T>{0, 100, ones, 0, 0, 0, 100, 0});
  CGP_LAUNCH(shared_int_atomics<T>, kGrid, kBlock, v.get());
  CGP_CUDA_SYNC_CHECK();
  const T bits = 0x1e;  // bits 1..4, one per block
  check_close(std::string("Max/Min/And/Or/Xor (_block, _system) from every block, ") + name,
              v.download(),
              std::vector<T>{4, 96, static_cast<T>(~bits), bits, bits, 4, 96, bits}, 0.0);
}

void test_cross_block_clean() {
  test_int_atomics_across_blocks<int>("int");
  test_int_atomics_across_blocks<unsigned>("unsigned");
  test_int_atomics_across_blocks<long long>("long long");
  test_int_atomics_across_blocks<unsigned long long>("unsigned long long");

  std::vector<unsigned> u0(10, 0);
  u0[9] = 0xffffffffu;
  DeviceArray<int> i(5);
  DeviceArray<unsigned> u(u0);
  DeviceArray<unsigned long long> ull(3);
  DeviceArray<float> f(2);
  DeviceArray<double> d(2);
  CGP_LAUNCH(shared_other_atomics, kGrid, kBlock, i.get(), u.get(), ull.get(), f.get(), d.get());
  CGP_CUDA_SYNC_CHECK();
  // atomicExch leaves the value of whichever block came last: any block's.
  std::vector<int> got_i = i.download();
  const bool i_exch = got_i[1] >= 1 && got_i[1] <= 4 && got_i[4] >= 1 && got_i[4] <= 4;
  got_i[1] = got_i[4] = 0;
  check("Sub/Exch/CAS (_system) from every block, int",
        i_exch && got_i == std::vector<int>{-8, 0, 4, -4, 0});
  std::vector<unsigned> got_u = u.download();
  const bool u_exch = got_u[1] >= 1 && got_u[1] <= 4;
  got_u[1] = 0;
  check("Sub/Exch/CAS/Inc/Dec/Xor/And (_system) from every block, unsigned",
        u_exch && got_u == std::vector<unsigned>{0u - 8u, 0, 4, 4, 997, 4, 4, 997, 0x1e, ~0x1eu});
  std::vector<unsigned long long> got_ull = ull.download();
  const unsigned long long e = got_ull[0];
  const bool ull_exch = e == 1ull << 33 || e == 1ull << 34 || e == 1ull << 35 || e == 1ull << 36;
  got_ull[0] = 0;
  check("Exch/CAS/Add_system from every block, unsigned long long",
        ull_exch && got_ull == std::vector<unsigned long long>{0, 4, 12});
  const std::vector<float> got_f = f.download();
  check("Exch/Add from every block, float", (got_f[0] == 0.5f || got_f[0] == 1.0f ||
                                             got_f[0] == 1.5f || got_f[0] == 2.0f) &&
                                                got_f[1] == 1.0f);
  check_close("Add/Add_system from every block, double", d.download(),
              std::vector<double>{2.0, 4.0}, 0.0);

  DeviceArray<int> bi(3 * kGrid);
  DeviceArray<unsigned> bu(std::vector<unsigned>(6 * kGrid, 0xf0000000u));
  DeviceArray<unsigned long long> bull(kGrid);
  DeviceArray<double> bd(kGrid);
  CGP_LAUNCH(block_scope_atomics, kGrid, kBlock, bi.get(), bu.get(), bull.get(), bd.get());
  CGP_CUDA_SYNC_CHECK();
  std::vector<int> expect_i;
  std::vector<unsigned> got_bu = bu.download(), expect_u;
  std::vector<unsigned long long> expect_ull;
  bool exch = true;
  for (unsigned b = 0; b < kGrid; ++b) {
    expect_i.insert(expect_i.end(), {-static_cast<int>(kBlock), static_cast<int>(kBlock) - 1,
                                     -static_cast<int>(kBlock) + 1});
    // Inc from 0xf0000000 (>= 1000) wraps to 0 then counts; Dec from above 1000 restarts at 1000.
    expect_u.insert(expect_u.end(), {kBlock - 1, 1000 - (kBlock - 1), 0xffffffffu, 0u,
                                     0xf0000000u, 0});
    exch = exch && got_bu[6 * b + 5] < kBlock;
    got_bu[6 * b + 5] = 0;
    expect_ull.push_back(3ull * kBlock);
  }
  check_close("atomic*_block, each block on its own elements, int", bi.download(), expect_i, 0.0);
  check_close("atomic*_block, each block on its own elements, unsigned", got_bu, expect_u, 0.0);
  check("atomicExch_block", exch);
  check("atomicAdd_block/atomicCAS_block, unsigned long long", bull.download() == expect_ull);
  check_close("atomicAdd_block, double", bd.download(), std::vector<double>(kGrid, kBlock * 1.0),
              0.0);

  const unsigned per_block = 64;
  DeviceArray<unsigned char> bytes(per_block * kGrid);
  DeviceArray<double> values(per_block * kGrid), flag(2);
  CGP_LAUNCH(own_elements, kGrid, kBlock, bytes.get(), values.get(), flag.get());
  CGP_CUDA_SYNC_CHECK();
  std::vector<unsigned char> expect_bytes(per_block * kGrid);
  std::vector<double> expect_values(per_block * kGrid);
  for (unsigned k = 0; k < per_block; ++k)
    for (unsigned b = 0; b < kGrid; ++b) {
      expect_bytes[k * kGrid + b] = static_cast<unsigned char>(b + 1);
      expect_values[k * kGrid + b] = b + 0.5 * k;
    }
  check_close("blocks write bytes of their own, next to other blocks' bytes", bytes.download(),
              expect_bytes, 0.0);
  check_close("blocks write elements of their own", values.download(), expect_values, 0.0);
  check_close("one block writes plainly what no other block writes", flag.download(),
              std::vector<double>{5.0, kGrid * kBlock * 1.0}, 0.0);
}

#ifdef CGP_CUDA_EMULATION
// Known numbers of calls per thread (for the launch counts): 2 atomics (one
// on global, one on shared memory), 4 shuffles, 4 votes, 1 barrier, and one
// more for the threads below 48 (the others return before it).
__global__ void counted(double* total, int* out) {
  __shared__ int s[1];
  const unsigned full = 0xffffffffu, lane = threadIdx.x % 32;
  atomicAdd(total, 1.0);
  atomicAdd(&s[0], 1);
  int v = __shfl_xor_sync(full, static_cast<int>(lane), 1) +
          __shfl_down_sync(full, static_cast<int>(lane), 1) +
          __shfl_up_sync(full, static_cast<int>(lane), 1) + __shfl_sync(full, static_cast<int>(lane), 0);
  v += __ballot_sync(full, 1) != 0;
  v += __any_sync(full, 1) + __all_sync(full, 1);
  __syncwarp();
  __syncthreads();
  if (threadIdx.x >= 48) return;
  v += __syncthreads_count(1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// cgp_emu::last_launch_counts() after launches with known calls per thread.
void test_launch_counts() {
  const unsigned grid = 3, block = 64, threads = grid * block, below48 = grid * 48;
  DeviceArray<double> total(1);
  DeviceArray<int> out(threads);
  CGP_LAUNCH(counted, grid, block, total.get(), out.get());
  CGP_CUDA_SYNC_CHECK();
  const cgp_emu::LaunchCounts c = cgp_emu::last_launch_counts();
  check_close("counts: threads", c.threads, threads, 0.0);
  check_close("counts: atomics", c.atomics, 2.0 * threads, 0.0);
  check_close("counts: atomics on global memory", c.global_atomics, threads, 0.0);
  check_close("counts: atomics on shared memory", c.shared_atomics, threads, 0.0);
  check_close("counts: shuffles", c.shuffles, 4.0 * threads, 0.0);
  check_close("counts: votes", c.votes, 4.0 * threads, 0.0);
  check_close("counts: barriers", c.barriers, threads + below48, 0.0);
  check_close("counts: the global atomics ran", total.download()[0], threads, 0.0);

  DeviceArray<double> x(std::vector<double>(100, 1.0)), y(100);
  CGP_LAUNCH(saxpy, 2, 32, 100, 2.0, x.get(), y.get());
  CGP_CUDA_SYNC_CHECK();
  const cgp_emu::LaunchCounts s = cgp_emu::last_launch_counts();
  check("counts of the next launch (no atomics, shuffles, votes, barriers)",
        s.threads == 64 && s.atomics == 0 && s.global_atomics == 0 && s.shared_atomics == 0 &&
            s.shuffles == 0 && s.votes == 0 && s.barriers == 0);
  CGP_LAUNCH(counted, 1, 2048, total.get(), out.get());  // refused: too many threads
  check("refused launch reported", cudaGetLastError() == cudaErrorInvalidConfiguration);
  check("a refused launch leaves the counts", cgp_emu::last_launch_counts().threads == 64);
}
#endif

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
  if (argc > 1 && std::strcmp(argv[1], "--cross-block-race") == 0) {
    DeviceArray<double> x(8);
    CGP_LAUNCH(cross_block_add, dim3(2, 2, 1), 32, x.get());
    CGP_CUDA_SYNC_CHECK();
    std::printf("cross-block sum: %g (expected 2 without the race)\n", x.download()[3]);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--cross-block-scope") == 0) {
    DeviceArray<double> x(1);
    CGP_LAUNCH(cross_block_scope, 2, 32, x.get());
    CGP_CUDA_SYNC_CHECK();
    std::printf("cross-block sum: %g (expected 2 without the race)\n", x.download()[0]);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "--cross-block-mixed") == 0) {
    DeviceArray<double> x(1);
    CGP_LAUNCH(cross_block_mixed, 3, 32, Holder{x.get()});
    CGP_CUDA_SYNC_CHECK();
    std::printf("cross-block sum: %g (expected 3 without the race)\n", x.download()[0]);
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
  test_cross_block_clean();
#ifdef CGP_CUDA_EMULATION
  test_launch_counts();
#endif
  test_finite_difference();
  return cgp_cuda_test::finish();
}
