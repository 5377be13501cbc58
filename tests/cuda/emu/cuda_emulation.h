// cuda_emulation.h - runs CUDA kernels as plain C++17 on the host, for tests.
//
// Force-include it before a CUDA source:
//
//   g++ -std=c++17 -x c++ -include tests/cuda/emu/cuda_emulation.h file.cu -pthread
//
// and the source compiles as C++ and its kernels run with the semantics of a
// GPU launch: every CUDA thread of a block is a real std::thread, so
// __syncthreads(), the warp intrinsics (__shfl_*_sync, __ballot_sync, ...) and
// the atomics really synchronise between threads. That lets the tests of
// cgp-ad's CUDA support (user kernels and the gradient kernels cgp-ad writes)
// run on a machine without a GPU, and under ThreadSanitizer, which reports a
// missing atomic or a missing barrier as a data race.
//
// Model:
//  * The blocks of a grid run ONE AFTER ANOTHER; the threads of one block run
//    concurrently (one std::thread each, reused from block to block) and all
//    finish before the next block starts. Hence `__shared__` expands to `static`: a function-local static
//    array is exactly one block's shared memory. (It is zero-initialised once,
//    not garbage per block as on a GPU, and it is shared by all launches: do
//    not launch from two host threads at once.)
//  * Linear thread index t = x + y*Dx + z*Dx*Dy; warp t/32, lane t%32.
//  * Threads that have returned from the kernel count as arrived at
//    __syncthreads() (as on sm_70+).
//  * Each warp collective is a rendezvous of exactly the lanes named in its
//    mask (lanes past the end of a partial last warp are dropped from the
//    mask). A collective whose mask names a lane that has returned from the
//    kernel, or a block in which every live thread waits and none can go on,
//    is reported on stderr and aborts the program (on a GPU it is undefined
//    behaviour or a hang).
//  * __activemask() returns the caller's own bit only: the emulated threads
//    run freely, so convergence is never known. Code must be correct for any
//    active mask (cgp-ad's generated warp reductions fall back to per-lane
//    atomics when the mask is not full).
//  * cudaMalloc'd memory and dynamic shared memory are filled with 0xff bytes
//    (NaN for float/double, -1 for integers), as GPU memory is not zeroed.
//  * Atomics are real (GCC __atomic builtins, relaxed order, as on a GPU).
//  * Two blocks of a launch changing one byte of cudaMalloc'd memory, not
//    both with an atomic, are reported and abort the program (a lost update
//    on a GPU, where the blocks run at the same time): cross_block_check.h.
//  * Each launch counts what its threads execute (atomics, shuffles, votes,
//    barriers): cgp_emu::last_launch_counts().
#ifndef CGP_CUDA_EMULATION
#define CGP_CUDA_EMULATION 1

// Standard headers come first: libstdc++ spells attributes like
// __attribute__((__noinline__)), which the macros below would break.
#include <algorithm>
#include <cassert>
#include <cstdarg>
#include <cmath>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

// ---------------------------------------------------------------------------
// Qualifiers (__restrict__ is a GCC keyword already).
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

// ---------------------------------------------------------------------------
// Built-in vector types and variables.
struct uint3 {
  unsigned x, y, z;
};
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

inline thread_local uint3 threadIdx = {0, 0, 0};
inline thread_local uint3 blockIdx = {0, 0, 0};
inline thread_local dim3 blockDim = dim3(1, 1, 1);
inline thread_local dim3 gridDim = dim3(1, 1, 1);
inline constexpr int warpSize = 32;

// ---------------------------------------------------------------------------
// Runtime types.
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaLimit {
  cudaLimitStackSize = 0,
  cudaLimitPrintfFifoSize = 1,
  cudaLimitMallocHeapSize = 2,
};

// ---------------------------------------------------------------------------
// Emulation machinery. (The standard headers cross_block_check.h includes
// are all included above, before the qualifier macros.)
#include "cross_block_check.h"

namespace cgp_emu {

// What a launch executed, summed over its threads (each call by each thread
// counts once).
struct LaunchCounts {
  unsigned long long threads = 0;          // threads the launch ran (grid x block)
  unsigned long long atomics = 0;          // atomic read-modify-write calls executed, all kinds
  unsigned long long global_atomics = 0;   // those on tracked (cudaMalloc) memory
  unsigned long long shared_atomics = 0;   // those on any other memory (shared memory, locals)
  unsigned long long shuffles = 0;         // __shfl_sync/_up/_down/_xor calls
  unsigned long long votes = 0;            // __ballot_sync, __any_sync, __all_sync, __syncwarp
  unsigned long long barriers = 0;         // __syncthreads and its _count/_and/_or forms, per thread call
};

namespace detail {

[[noreturn]] inline void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline void fail(const char* fmt, ...) {
  std::va_list ap;
  va_start(ap, fmt);
  std::fputs("cgp_emu: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
  std::fflush(stderr);
  std::abort();
}

// One warp collective in progress: the lanes of `mask` deposit a value each;
// when all have, the gathering is released and each lane copies the values
// out; the slot is reused once every lane has read (the second phase).
struct Gathering {
  enum State { Free, Collecting, Releasing };
  State state = Free;
  unsigned mask = 0;
  unsigned arrived = 0;
  unsigned readers = 0;
  std::uint64_t vals[32] = {};
};

struct Warp {
  std::condition_variable cv;
  unsigned exist = 0;   // lanes that exist (a last warp may be partial)
  unsigned exited = 0;  // lanes that have returned from the kernel
  std::vector<Gathering> gatherings;
};

// The state of the block being run. One mutex guards all of it (barrier and
// warps), which lets a deadlock be detected exactly: `blocked` counts the
// threads waiting on something that has not been released.
struct Block {
  std::mutex m;
  std::condition_variable barrier_cv;
  unsigned n = 0;
  uint3 idx = {0, 0, 0};
  unsigned arrived = 0, exited = 0, blocked = 0;
  unsigned long generation = 0;
  int acc = 0;                       // sum of __syncthreads_* predicates
  int last_acc = 0, last_count = 0;  // of the last released barrier
  std::vector<Warp> warps;
  std::vector<const char*> waiting_in;  // per thread, for the deadlock report
  std::vector<unsigned> waiting_mask;

  explicit Block(unsigned nthreads) : n(nthreads), warps((nthreads + 31) / 32),
                                      waiting_in(nthreads, nullptr), waiting_mask(nthreads, 0) {
    for (unsigned w = 0; w < warps.size(); ++w) {
      unsigned lanes = std::min(32u, nthreads - 32 * w);
      warps[w].exist = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
    }
  }
};

// One CUDA thread's own record of the block it runs: what it executed, and
// its atomics on tracked memory (for the cross-block check). Only the thread
// writes it while the block runs, so recording adds no synchronisation that
// would hide a race from ThreadSanitizer; the launching thread reads it
// after the block.
struct alignas(64) ThreadRecord {
  LaunchCounts counts;
  AtomicLog atomics;
  const std::vector<Allocation>* tracked = nullptr;  // the launch's, by address
  bool log_atomics = false;                          // whether the check runs
  bool block_scope = false;  // in an atomic*_block: atomic within the block only
};

inline thread_local Block* tl_block = nullptr;
inline thread_local unsigned tl_tid = 0;
inline thread_local void* tl_dynamic_shared = nullptr;
inline thread_local ThreadRecord* tl_record = nullptr;
inline cudaError_t last_error = cudaSuccess;  // host side only
inline LaunchCounts last_counts;              // host side only

// Counts an atomic on the `bytes` bytes at p, and logs it if they are
// tracked memory, unless it is of block scope: that one is atomic only
// among the threads of its block, so for the cross-block check it is a
// plain write. Outside a kernel (host code) it does nothing.
inline void note_atomic(const void* p, std::size_t bytes) {
  ThreadRecord* r = tl_record;
  if (!r) return;
  ++r->counts.atomics;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  if (find_allocation(*r->tracked, a)) {
    ++r->counts.global_atomics;
    if (r->log_atomics && !r->block_scope) r->atomics.add(a, bytes);
  } else {
    ++r->counts.shared_atomics;
  }
}
template <class T>
void note_atomic(const T* p) {
  note_atomic(p, sizeof(T));
}

// Marks the atomics of its lifetime as of block scope (atomic*_block).
class BlockScopeAtomic {
 public:
  BlockScopeAtomic() : r_(tl_record) {
    if (r_) r_->block_scope = true;
  }
  ~BlockScopeAtomic() {
    if (r_) r_->block_scope = false;
  }
  BlockScopeAtomic(const BlockScopeAtomic&) = delete;
  BlockScopeAtomic& operator=(const BlockScopeAtomic&) = delete;

 private:
  ThreadRecord* r_;
};

inline Block& current_block(const char* what) {
  if (!tl_block) fail("%s called outside a kernel", what);
  return *tl_block;
}

[[noreturn]] inline void deadlock(Block& b) {
  std::fprintf(stderr,
               "cgp_emu: deadlock in block (%u,%u,%u): every live thread waits and none can go on\n",
               b.idx.x, b.idx.y, b.idx.z);
  unsigned shown = 0;
  for (unsigned t = 0; t < b.n; ++t) {
    if (!b.waiting_in[t]) continue;
    if (++shown > 16) continue;
    std::fprintf(stderr, "cgp_emu:   thread %u (warp %u lane %u) waits in %s", t, t / 32, t % 32,
                 b.waiting_in[t]);
    if (b.waiting_mask[t]) std::fprintf(stderr, " with mask 0x%08x", b.waiting_mask[t]);
    std::fputc('\n', stderr);
  }
  if (shown > 16) std::fprintf(stderr, "cgp_emu:   ... and %u more waiting threads\n", shown - 16);
  fail("aborting");
}

template <class Pred>
void block_wait(Block& b, std::unique_lock<std::mutex>& lk, std::condition_variable& cv,
                const char* what, unsigned mask, Pred released) {
  b.waiting_in[tl_tid] = what;
  b.waiting_mask[tl_tid] = mask;
  ++b.blocked;
  if (b.blocked + b.exited == b.n) deadlock(b);
  cv.wait(lk, released);
  b.waiting_in[tl_tid] = nullptr;
}

// Called with b.m held; `waiting` threads wait on this barrier.
inline void release_barrier(Block& b, unsigned waiting) {
  b.last_acc = b.acc;
  b.last_count = static_cast<int>(b.arrived);
  b.acc = 0;
  b.arrived = 0;
  b.blocked -= waiting;
  ++b.generation;
  b.barrier_cv.notify_all();
}

// __syncthreads and its _count/_and/_or forms: returns the predicate sum
// (and, through *count, the number of threads that took part).
inline int barrier(const char* what, int pred, int* count) {
  Block& b = current_block(what);
  ++tl_record->counts.barriers;
  std::unique_lock<std::mutex> lk(b.m);
  b.acc += pred ? 1 : 0;
  ++b.arrived;
  if (b.arrived + b.exited == b.n) {
    release_barrier(b, b.arrived - 1);
  } else {
    unsigned long gen = b.generation;
    block_wait(b, lk, b.barrier_cv, what, 0, [&] { return b.generation != gen; });
  }
  if (count) *count = b.last_count;
  return b.last_acc;
}

inline void thread_exit(Block& b, unsigned tid) {
  std::unique_lock<std::mutex> lk(b.m);
  ++b.exited;
  Warp& w = b.warps[tid / 32];
  unsigned bit = 1u << (tid % 32);
  w.exited |= bit;
  for (const Gathering& g : w.gatherings)
    if (g.state == Gathering::Collecting && (g.mask & bit))
      fail("block (%u,%u,%u) warp %u: lane %u returned from the kernel while other lanes wait for "
           "it in %s with mask 0x%08x (undefined in CUDA)",
           b.idx.x, b.idx.y, b.idx.z, tid / 32, tid % 32,
           b.waiting_in[tid / 32 * 32 + static_cast<unsigned>(__builtin_ctz(g.arrived))], g.mask);
  if (b.arrived > 0 && b.arrived + b.exited == b.n) release_barrier(b, b.arrived);
  if (b.blocked > 0 && b.blocked + b.exited == b.n) deadlock(b);
}

// The rendezvous of a warp collective: deposits v, waits for every lane of
// mask, copies all deposited values to out. Returns the effective mask.
// `counter`: the count of LaunchCounts that the call adds 1 to.
inline unsigned warp_collective(const char* what, unsigned long long LaunchCounts::*counter,
                                unsigned mask, std::uint64_t v, std::uint64_t out[32]) {
  Block& b = current_block(what);
  ++(tl_record->counts.*counter);
  const unsigned tid = tl_tid, lane = tid % 32, bit = 1u << lane;
  std::unique_lock<std::mutex> lk(b.m);
  Warp& w = b.warps[tid / 32];
  const unsigned m = mask & w.exist;
  if (!(m & bit))
    fail("%s: lane %u of warp %u (block (%u,%u,%u)) calls it with mask 0x%08x, which does not "
         "name it (undefined in CUDA)",
         what, lane, tid / 32, b.idx.x, b.idx.y, b.idx.z, mask);
  if (m & w.exited)
    fail("%s: mask 0x%08x names lanes 0x%08x of warp %u (block (%u,%u,%u)) which have returned "
         "from the kernel (undefined in CUDA)",
         what, mask, m & w.exited, tid / 32, b.idx.x, b.idx.y, b.idx.z);
  std::size_t gi = w.gatherings.size(), free_slot = w.gatherings.size();
  for (std::size_t i = 0; i < w.gatherings.size(); ++i) {
    const Gathering& g = w.gatherings[i];
    if (g.state == Gathering::Collecting && g.mask == m) {
      gi = i;
      break;
    }
    if (g.state == Gathering::Free && free_slot == w.gatherings.size()) free_slot = i;
  }
  if (gi == w.gatherings.size()) {
    if (free_slot == w.gatherings.size()) w.gatherings.emplace_back();
    gi = free_slot;
    Gathering& g = w.gatherings[gi];
    g.state = Gathering::Collecting;
    g.mask = m;
    g.arrived = 0;
  }
  {
    Gathering& g = w.gatherings[gi];
    g.vals[lane] = v;
    g.arrived |= bit;
    if (g.arrived == m) {
      const unsigned lanes = static_cast<unsigned>(__builtin_popcount(m));
      g.state = Gathering::Releasing;
      g.readers = lanes;
      b.blocked -= lanes - 1;
      w.cv.notify_all();
    } else {
      block_wait(b, lk, w.cv, what, m,
                 [&] { return w.gatherings[gi].state == Gathering::Releasing; });
    }
  }
  Gathering& g = w.gatherings[gi];  // the vector may have grown while waiting
  std::memcpy(out, g.vals, sizeof g.vals);
  if (--g.readers == 0) g.state = Gathering::Free;
  return m;
}

template <class T>
std::uint64_t to_bits(T v) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "warp shuffles take values of at most 8 bytes");
  std::uint64_t u = 0;
  std::memcpy(&u, &v, sizeof(T));
  return u;
}

template <class T>
T from_bits(std::uint64_t u) {
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

enum class Shfl { Idx, Up, Down, Xor };

// The source lane of a shuffle, following the PTX shfl semantics; an
// out-of-range source yields the caller's own lane.
inline unsigned shfl_source(Shfl mode, unsigned lane, long long b, int width) {
  if (width <= 0 || width > 32 || (width & (width - 1)))
    fail("shuffle width %d is not a power of two in [1, 32]", width);
  const long long seg = 32 - width;  // PTX segmask
  const long long first = lane & seg;
  const long long last = first | (31 & ~seg);
  long long j = lane;
  switch (mode) {
    case Shfl::Idx: j = first | (b & (width - 1)); break;
    case Shfl::Up: j = static_cast<long long>(lane) - b; if (j < first) j = lane; break;
    case Shfl::Down: j = lane + b; if (j > last) j = lane; break;
    case Shfl::Xor: j = lane ^ b; if (j < 0 || j > last) j = lane; break;
  }
  return static_cast<unsigned>(j);
}

template <class T>
T shuffle(const char* what, Shfl mode, unsigned mask, T var, long long b, int width) {
  std::uint64_t vals[32];
  const unsigned lane = tl_tid % 32;
  const unsigned m = warp_collective(what, &LaunchCounts::shuffles, mask, to_bits(var), vals);
  const unsigned src = shfl_source(mode, lane, b, width);
  if (!(m & (1u << src))) return var;  // source not taking part: own value
  return from_bits<T>(vals[src]);
}

inline unsigned vote(const char* what, unsigned mask, int pred) {
  std::uint64_t vals[32];
  const unsigned m = warp_collective(what, &LaunchCounts::votes, mask, pred ? 1 : 0, vals);
  unsigned r = 0;
  for (unsigned l = 0; l < 32; ++l)
    if ((m & (1u << l)) && vals[l]) r |= 1u << l;
  return r;
}

template <class T, class F>
T cas_loop(T* p, F op) {
  T old;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  T desired;
  do {
    desired = op(old);
  } while (!__atomic_compare_exchange(p, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

inline bool valid_config(dim3 g, dim3 b) {
  if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z) return false;
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) return false;
  if (b.x > 1024 || b.y > 1024 || b.z > 64) return false;
  return static_cast<unsigned long long>(b.x) * b.y * b.z <= 1024;
}

inline void add_counts(LaunchCounts& into, const LaunchCounts& c) {
  into.threads += c.threads;
  into.atomics += c.atomics;
  into.global_atomics += c.global_atomics;
  into.shared_atomics += c.shared_atomics;
  into.shuffles += c.shuffles;
  into.votes += c.votes;
  into.barriers += c.barriers;
}

// Runs body() once per CUDA thread, block after block. A launch starts one
// std::thread per thread of a block and reuses them for every block (starting
// threads is the expensive part, ten times so under TSan); a block starts
// when the previous one has finished. No thread of a block takes a lock that
// another thread of the block takes before its body runs: each waits for the
// start of a block on a mutex of its own, which only the launching thread
// also takes, and counts itself done with an atomic (only the last one wakes
// the launching thread). Otherwise a thread that finished early and went
// back to wait would order the bodies of the threads that start after it,
// and ThreadSanitizer would miss the races between them.
//
// After each block, the launching thread sums the threads' counts and gives
// their atomics to the cross-block check; at the end, the sums become
// last_counts.
inline void run_grid(const LaunchDescription& launch, std::size_t shared_bytes,
                     const std::function<void()>& body) {
  const dim3 grid = launch.grid, block = launch.block;
  if (!valid_config(grid, block)) {
    last_error = cudaErrorInvalidConfiguration;
    return;
  }
  const unsigned n = block.x * block.y * block.z;
  const unsigned long long blocks = static_cast<unsigned long long>(grid.x) * grid.y * grid.z;
  const std::vector<Allocation> tracked = TrackedMemory::instance().list();
  std::unique_ptr<CrossBlockCheck> check;
  if (CrossBlockCheck::enabled() && CrossBlockCheck::applies(blocks))
    check.reset(new CrossBlockCheck(launch, tracked));
  std::vector<ThreadRecord> records(n);
  for (ThreadRecord& r : records) {
    r.tracked = &tracked;
    r.log_atomics = check != nullptr;
  }
  LaunchCounts total;
  std::vector<ByteRange> atomics;
  std::vector<std::max_align_t> dyn((shared_bytes + sizeof(std::max_align_t) - 1) /
                                    sizeof(std::max_align_t));
  // One thread's signal to run a block (or to quit).
  struct StartSignal {
    std::mutex m;
    std::condition_variable cv;
    unsigned long round = 0;  // bumped to start a block (or to quit)
    Block* block = nullptr;   // null: quit
  };
  std::unique_ptr<StartSignal[]> signals(new StartSignal[n]);
  struct {
    std::mutex m;
    std::condition_variable cv;
    std::atomic<unsigned> finished{0};  // threads done with the current block
  } done;
  auto worker = [&signals, &done, &body, &dyn, &records, grid, block, n](unsigned t) {
    tl_record = &records[t];
    StartSignal& signal = signals[t];
    unsigned long seen = 0;
    for (;;) {
      Block* b;
      {
        std::unique_lock<std::mutex> lk(signal.m);
        signal.cv.wait(lk, [&] { return signal.round != seen; });
        seen = signal.round;
        b = signal.block;
      }
      if (!b) break;
      tl_block = b;
      tl_tid = t;
      tl_dynamic_shared = dyn.empty() ? nullptr : dyn.data();
      threadIdx = uint3{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
      blockIdx = b->idx;
      blockDim = block;
      gridDim = grid;
      body();
      thread_exit(*b, t);
      tl_block = nullptr;
      if (done.finished.fetch_add(1, std::memory_order_acq_rel) + 1 == n) {
        std::lock_guard<std::mutex> lk(done.m);
        done.cv.notify_one();
      }
    }
    tl_record = nullptr;
  };
  unsigned long round = 0;
  auto start_all = [&signals, &round, n](Block* b) {
    ++round;
    for (unsigned t = 0; t < n; ++t) {
      {
        std::lock_guard<std::mutex> lk(signals[t].m);
        signals[t].round = round;
        signals[t].block = b;
      }
      signals[t].cv.notify_one();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (unsigned t = 0; t < n; ++t) {
    try {
      threads.emplace_back(worker, t);
    } catch (const std::system_error& e) {
      fail("cannot start thread %u of a block of %u: %s", t, n, e.what());
    }
  }
  unsigned long long ordinal = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx, ++ordinal) {
        if (!dyn.empty()) std::memset(dyn.data(), 0xff, dyn.size() * sizeof(std::max_align_t));
        Block b(n);
        b.idx = uint3{bx, by, bz};
        done.finished = 0;
        start_all(&b);
        {
          std::unique_lock<std::mutex> lk(done.m);
          done.cv.wait(lk, [&] { return done.finished.load(std::memory_order_acquire) == n; });
        }
        for (ThreadRecord& r : records) {
          add_counts(total, r.counts);
          r.counts = LaunchCounts{};
          atomics.insert(atomics.end(), r.atomics.ranges().begin(), r.atomics.ranges().end());
          r.atomics.clear();
        }
        if (check) {
          merge_ranges(atomics);
          check->block_done(ordinal, atomics, ordinal + 1 == blocks);
        }
        atomics.clear();
      }
  total.threads = blocks * n;
  last_counts = total;
  start_all(nullptr);
  for (std::thread& th : threads) th.join();
}

}  // namespace detail

// Runs kernel<<<grid, block, shared_bytes>>>(args...) and returns when it has
// finished. The arguments are converted to the kernel's parameter types once;
// every thread gets them by value. `kernel_name` (may be null) is for the
// emulation's reports.
template <class... P, class... A>
void launch(const char* kernel_name, dim3 grid, dim3 block, std::size_t shared_bytes,
            void (*kernel)(P...), A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "cgp_emu::launch: wrong number of kernel arguments");
  const std::tuple<std::decay_t<P>...> converted{std::forward<A>(args)...};
  const detail::LaunchDescription description{kernel_name, grid, block,
                                              detail::pointer_parameters(converted)};
  detail::run_grid(description, shared_bytes, [&] { std::apply(kernel, converted); });
}

template <class... P, class... A>
void launch(dim3 grid, dim3 block, std::size_t shared_bytes, void (*kernel)(P...), A&&... args) {
  launch(static_cast<const char*>(nullptr), grid, block, shared_bytes, kernel,
         std::forward<A>(args)...);
}

template <class... P, class... A>
void launch(dim3 grid, dim3 block, void (*kernel)(P...), A&&... args) {
  launch(grid, block, std::size_t(0), kernel, std::forward<A>(args)...);
}

// What the most recent launch that ran executed (a launch refused for its
// configuration leaves it as it was).
inline LaunchCounts last_launch_counts() { return detail::last_counts; }

// A kernel's dynamic shared memory (the sharedBytes of its launch), filled
// with 0xff bytes at the start of each block. See CGP_DYNAMIC_SHARED in
// tests/cuda/harness/cuda_check.h.
inline void* dynamic_shared() { return detail::tl_dynamic_shared; }

}  // namespace cgp_emu

// ---------------------------------------------------------------------------
// Synchronisation.
inline void __syncthreads() { cgp_emu::detail::barrier("__syncthreads", 0, nullptr); }
inline int __syncthreads_count(int pred) {
  return cgp_emu::detail::barrier("__syncthreads_count", pred, nullptr);
}
inline int __syncthreads_and(int pred) {
  int count = 0;
  return cgp_emu::detail::barrier("__syncthreads_and", pred, &count) == count;
}
inline int __syncthreads_or(int pred) {
  return cgp_emu::detail::barrier("__syncthreads_or", pred, nullptr) != 0;
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// ---------------------------------------------------------------------------
// Warp intrinsics.
inline unsigned __activemask() {
  cgp_emu::detail::current_block("__activemask");
  return 1u << (cgp_emu::detail::tl_tid % 32);
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  std::uint64_t vals[32];
  cgp_emu::detail::warp_collective("__syncwarp", &cgp_emu::LaunchCounts::votes, mask, 0, vals);
}
template <class T>
T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32) {
  return cgp_emu::detail::shuffle("__shfl_sync", cgp_emu::detail::Shfl::Idx, mask, var, srcLane,
                                  width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return cgp_emu::detail::shuffle("__shfl_up_sync", cgp_emu::detail::Shfl::Up, mask, var, delta,
                                  width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return cgp_emu::detail::shuffle("__shfl_down_sync", cgp_emu::detail::Shfl::Down, mask, var,
                                  delta, width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32) {
  return cgp_emu::detail::shuffle("__shfl_xor_sync", cgp_emu::detail::Shfl::Xor, mask, var,
                                  laneMask, width);
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
  return cgp_emu::detail::vote("__ballot_sync", mask, pred);
}
inline int __any_sync(unsigned mask, int pred) {
  return cgp_emu::detail::vote("__any_sync", mask, pred) != 0;
}
inline int __all_sync(unsigned mask, int pred) {
  std::uint64_t vals[32];
  const unsigned m = cgp_emu::detail::warp_collective("__all_sync", &cgp_emu::LaunchCounts::votes,
                                                      mask, pred ? 1 : 0, vals);
  for (unsigned l = 0; l < 32; ++l)
    if ((m & (1u << l)) && !vals[l]) return 0;
  return 1;
}

// ---------------------------------------------------------------------------
// Atomics (return the old value). Each one counts itself and logs the bytes
// it touches (note_atomic) for the cross-block check.
inline float atomicAdd(float* p, float v) {
  cgp_emu::detail::note_atomic(p);
  return cgp_emu::detail::cas_loop(p, [v](float o) { return o + v; });
}
inline double atomicAdd(double* p, double v) {
  cgp_emu::detail::note_atomic(p);
  return cgp_emu::detail::cas_loop(p, [v](double o) { return o + v; });
}
// Overloads, not templates, so that literals convert as in CUDA
// (atomicCAS(unsigned_ptr, 0, 1)).
#define CGP_EMU_ATOMIC_ADD_SUB(T)                                       \
  inline T atomicAdd(T* p, T v) {                                       \
    cgp_emu::detail::note_atomic(p);                                    \
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);                  \
  }                                                                     \
  inline T atomicSub(T* p, T v) {                                       \
    cgp_emu::detail::note_atomic(p);                                    \
    return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);                  \
  }
CGP_EMU_ATOMIC_ADD_SUB(int)
CGP_EMU_ATOMIC_ADD_SUB(unsigned)
#undef CGP_EMU_ATOMIC_ADD_SUB
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  cgp_emu::detail::note_atomic(p);
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
#define CGP_EMU_ATOMIC_EXCH_CAS(T)                                                             \
  inline T atomicExch(T* p, T v) {                                                             \
    cgp_emu::detail::note_atomic(p);                                                           \
    T old;                                                                                     \
    __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);                                          \
    return old;                                                                                \
  }                                                                                            \
  inline T atomicCAS(T* p, T compare, T val) {                                                 \
    cgp_emu::detail::note_atomic(p);                                                           \
    __atomic_compare_exchange(p, &compare, &val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);   \
    return compare; /* the old value, whether or not it was swapped */                         \
  }
CGP_EMU_ATOMIC_EXCH_CAS(int)
CGP_EMU_ATOMIC_EXCH_CAS(unsigned)
CGP_EMU_ATOMIC_EXCH_CAS(unsigned long long)
#undef CGP_EMU_ATOMIC_EXCH_CAS
inline float atomicExch(float* p, float v) {
  cgp_emu::detail::note_atomic(p);
  float old;
  __atomic_exchange(p, &v, &old, __ATOMIC_RELAXED);
  return old;
}
#define CGP_EMU_ATOMIC_INT_OPS(T)                                                         \
  inline T atomicMax(T* p, T v) {                                                         \
    cgp_emu::detail::note_atomic(p);                                                      \
    return cgp_emu::detail::cas_loop(p, [v](T o) { return o < v ? v : o; });             \
  }                                                                                       \
  inline T atomicMin(T* p, T v) {                                                         \
    cgp_emu::detail::note_atomic(p);                                                      \
    return cgp_emu::detail::cas_loop(p, [v](T o) { return v < o ? v : o; });             \
  }                                                                                       \
  inline T atomicAnd(T* p, T v) {                                                         \
    cgp_emu::detail::note_atomic(p);                                                      \
    return __atomic_fetch_and(p, v, __ATOMIC_RELAXED);                                    \
  }                                                                                       \
  inline T atomicOr(T* p, T v) {                                                          \
    cgp_emu::detail::note_atomic(p);                                                      \
    return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);                                     \
  }                                                                                       \
  inline T atomicXor(T* p, T v) {                                                         \
    cgp_emu::detail::note_atomic(p);                                                      \
    return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED);                                    \
  }
CGP_EMU_ATOMIC_INT_OPS(int)
CGP_EMU_ATOMIC_INT_OPS(unsigned)
CGP_EMU_ATOMIC_INT_OPS(long long)
CGP_EMU_ATOMIC_INT_OPS(unsigned long long)
#undef CGP_EMU_ATOMIC_INT_OPS
inline unsigned atomicInc(unsigned* p, unsigned v) {
  cgp_emu::detail::note_atomic(p);
  return cgp_emu::detail::cas_loop(p, [v](unsigned o) { return o >= v ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* p, unsigned v) {
  cgp_emu::detail::note_atomic(p);
  return cgp_emu::detail::cas_loop(p, [v](unsigned o) { return (o == 0 || o > v) ? v : o - 1; });
}
// The scoped variants. _system is the same as no suffix here (one device, no
// host threads in a launch). _block is atomic among the threads of the block
// only: the same operation, but for the cross-block check a plain write
// (two blocks adding into one element with atomicAdd_block race on a GPU).
#define CGP_EMU_SCOPED_ATOMIC(op)                                    \
  template <class T, class V>                                        \
  T op##_block(T* p, V v) {                                          \
    cgp_emu::detail::BlockScopeAtomic scope;                         \
    return op(p, static_cast<T>(v));                                 \
  }                                                                  \
  template <class T, class V>                                        \
  T op##_system(T* p, V v) { return op(p, static_cast<T>(v)); }
CGP_EMU_SCOPED_ATOMIC(atomicAdd)
CGP_EMU_SCOPED_ATOMIC(atomicSub)
CGP_EMU_SCOPED_ATOMIC(atomicExch)
CGP_EMU_SCOPED_ATOMIC(atomicMax)
CGP_EMU_SCOPED_ATOMIC(atomicMin)
CGP_EMU_SCOPED_ATOMIC(atomicAnd)
CGP_EMU_SCOPED_ATOMIC(atomicOr)
CGP_EMU_SCOPED_ATOMIC(atomicXor)
CGP_EMU_SCOPED_ATOMIC(atomicInc)
CGP_EMU_SCOPED_ATOMIC(atomicDec)
#undef CGP_EMU_SCOPED_ATOMIC
template <class T, class C, class V>
T atomicCAS_block(T* p, C compare, V val) {
  cgp_emu::detail::BlockScopeAtomic scope;
  return atomicCAS(p, static_cast<T>(compare), static_cast<T>(val));
}
template <class T, class C, class V>
T atomicCAS_system(T* p, C compare, V val) {
  return atomicCAS(p, static_cast<T>(compare), static_cast<T>(val));
}

// ---------------------------------------------------------------------------
// Loads, bit operations, device math not in <cmath>.
template <class T>
T __ldg(const T* p) { return *p; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x ? __builtin_clz(static_cast<unsigned>(x)) : 32; }
inline int __clzll(long long x) {
  return x ? __builtin_clzll(static_cast<unsigned long long>(x)) : 64;
}
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1);
  return r;
}
[[noreturn]] inline void __trap() { cgp_emu::detail::fail("__trap() called"); }

inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline double __dadd_rn(double x, double y) { return x + y; }
inline double __dsub_rn(double x, double y) { return x - y; }
inline double __dmul_rn(double x, double y) { return x * y; }
inline double __ddiv_rn(double x, double y) { return x / y; }
inline double __dsqrt_rn(double x) { return std::sqrt(x); }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __fma_rn(double x, double y, double z) { return std::fma(x, y, z); }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }  // ties to even

// CUDA's global min/max overloads.
#define CGP_EMU_MINMAX(T)                                   \
  inline T min(T a, T b) { return b < a ? b : a; }          \
  inline T max(T a, T b) { return a < b ? b : a; }
CGP_EMU_MINMAX(int)
CGP_EMU_MINMAX(unsigned)
CGP_EMU_MINMAX(long)
CGP_EMU_MINMAX(unsigned long)
CGP_EMU_MINMAX(long long)
CGP_EMU_MINMAX(unsigned long long)
CGP_EMU_MINMAX(float)
CGP_EMU_MINMAX(double)
#undef CGP_EMU_MINMAX

// ---------------------------------------------------------------------------
// Host runtime API. Device memory is host memory; device malloc/free and
// printf are the C ones. cudaMalloc'd memory is tracked until cudaFree, for
// the cross-block check.
inline cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  if (!p) return cudaErrorInvalidValue;
  *p = std::malloc(bytes ? bytes : 1);
  if (!*p) return cgp_emu::detail::last_error = cudaErrorMemoryAllocation;
  std::memset(*p, 0xff, bytes);  // GPU memory is not zeroed
  cgp_emu::detail::TrackedMemory::instance().add(*p, bytes);
  return cudaSuccess;
}
template <class T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
template <class T>
cudaError_t cudaMallocManaged(T** p, std::size_t bytes, unsigned = 1) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
inline cudaError_t cudaFree(void* p) {
  if (p) cgp_emu::detail::TrackedMemory::instance().remove(p);
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  if (bytes && (!dst || !src)) return cgp_emu::detail::last_error = cudaErrorInvalidValue;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return cgp_emu::detail::last_error = cudaErrorInvalidValue;
  if (bytes) std::memmove(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* p, int value, std::size_t bytes) {
  if (bytes && !p) return cgp_emu::detail::last_error = cudaErrorInvalidValue;
  if (bytes) std::memset(p, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaGetLastError() {
  cudaError_t e = cgp_emu::detail::last_error;
  cgp_emu::detail::last_error = cudaSuccess;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return cgp_emu::detail::last_error; }
inline cudaError_t cudaDeviceSetLimit(cudaLimit, std::size_t) { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int* n) {
  if (!n) return cudaErrorInvalidValue;
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
inline cudaError_t cudaGetDevice(int* d) {
  if (!d) return cudaErrorInvalidValue;
  *d = 0;
  return cudaSuccess;
}
inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
  }
  return "cudaErrorUnknown";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
  }
  return "unrecognized error code";
}

#endif  // CGP_CUDA_EMULATION
