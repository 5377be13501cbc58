// device.h - the part of cgp-ad's runtime that gradients of CUDA kernels use
// on the device.
//
// Generated `__global__` and `__device__` gradients include this header
// (nvcc builds them; the test suite also builds them as C++ under a host
// emulation of CUDA). It holds:
//  - cgp::dev::Tape, the tape of one thread: the values the reverse sweep
//    needs, pushed in the forward sweep and popped in reverse order. Each
//    thread's gradient makes its own, in an array of its local memory
//    (kLocalTapeBytes, or the most the kernel tapes when the tool can bound
//    it), then in the thread's slice of the file's tape pool when the host
//    reserved one (reserveTapes, cgp/device_pool.h), and in the device heap
//    (malloc) once it holds more; that is freed when the thread's gradient
//    returns. A launch whose threads tape more
//    than the device heap holds (8 MiB unless raised with
//    cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes)) stops with a
//    message saying so; cgp::dev::reserveHeap() raises the limit from host
//    code.
//  - the pullbacks of warp shuffles (shflDownPullback and the others): each
//    lane gets back the adjoints of the lanes that read its value, with one
//    shuffle the other way for a shift or a butterfly.
//  - cgp::dev::zeroBlockShared, which zeroes a __shared__ adjoint with the
//    whole block.
//  - cgp::dev::launchVariesOnlyIn, the check at a gradient's entry that the
//    launch varies only in the parts of a thread's identity the kernel
//    reads, where its plain additions rely on each thread owning its
//    elements.
//  - cgp::dev::blockAdd, the addition every thread of a block makes at the
//    end of a gradient kernel into one element: a block sum, one atomic.
//  - cgp::dev::warpAdd, the addition into an adjoint that every thread of a
//    warp adds into: the warp sums its lanes' values with shuffles and one
//    lane adds the sum atomically. It checks at run time that the whole warp
//    is there and adds to one element; otherwise each lane adds atomically.
#ifndef CGP_DEVICE_H
#define CGP_DEVICE_H

#include "cgp/device_pool.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace cgp {
namespace dev {

/// Stops the kernel: on a device, the launch fails with an error; under the
/// host emulation, the program aborts (after what it printed).
__device__ inline void stop() {
#ifdef __CUDA_ARCH__
  __trap();
#else
  fflush(stdout);
  abort();
#endif
}

/// Says why on stdout (the device's printf) and stops the kernel.
__device__ inline void fail(const char *message) {
  printf("cgp-ad: %s\n", message);
  stop();
}

/// The bytes of a thread's tape in its local memory when the tool cannot
/// bound what the kernel tapes: beyond them the tape grows in the device
/// heap. With no budget, a loop that would tape more plans its reversal
/// (cgp/device_checkpoint.h).
constexpr std::size_t kLocalTapeBytes = 512;

/// The tape of one thread's gradient.
class Tape {
public:
  /// A tape whose first 64 bytes are in the object (the redo tape).
  __device__ Tape() {}
  /// The thread's tape: its first `bytes` are `space` (an array of the
  /// thread's local memory that outlives the tape), then its slice of the
  /// file's pool (cgp/device_pool.h) while that holds it.
  __device__ Tape(unsigned char *space, std::size_t bytes)
      : data_(space), capacity_(bytes), pooled_(true) {}
  __device__ ~Tape() {
    if (onHeap_)
      free(data_);
  }
  Tape(const Tape &) = delete;
  Tape &operator=(const Tape &) = delete;

  template <class T> __device__ void push(const T &value) { pushBytes(&value, sizeof(T)); }

  __device__ void pushBytes(const void *data, std::size_t size) {
    const std::size_t at = reserve(size); // may move data_: read it after
    std::memcpy(data_ + at, data, size);
  }

  template <class T> __device__ void pop(T &value) {
    size_ -= sizeof(T);
    std::memcpy(&value, data_ + size_, sizeof(T));
  }

  template <class T> __device__ T pop() {
    T value;
    pop(value);
    return value;
  }

  /// Logs `slot`'s value and address, so that replayTo() can put it back.
  template <class T> __device__ void keep(T &slot) {
    pushBytes(&slot, sizeof(T));
    void *where = &slot;
    pushBytes(&where, sizeof where);
    push(static_cast<std::uint32_t>(sizeof(T)));
  }

  /// Puts back, last first, the values kept since `mark`.
  __device__ void replayTo(std::size_t mark) {
    while (size_ > mark) {
      std::uint32_t size = pop<std::uint32_t>();
      void *slot = pop<void *>();
      size_ -= size;
      std::memcpy(slot, data_ + size_, size);
    }
  }

  __device__ void discardTo(std::size_t mark) { size_ = mark; }

  /// Makes room for `size` bytes on top and returns where they start, as
  /// an offset (the tape moves when it grows): at(offset) reaches them.
  __device__ std::size_t reserve(std::size_t size) {
    if (size_ + size > capacity_)
      grow(size_ + size);
    std::size_t start = size_;
    size_ += size;
    return start;
  }
  __device__ unsigned char *at(std::size_t offset) { return data_ + offset; }

  __device__ std::size_t bytes() const { return size_; }

  /// The thread's second tape: what the reverse sweep restores in the
  /// caller's buffers, put back at the end. The gradient kernel makes it
  /// beside this one and attaches it; helpers find it here.
  __device__ void attachRedo(Tape &redo) { redo_ = &redo; }
  __device__ Tape &redo() { return *redo_; }

private:
  static constexpr std::size_t kInlineBytes = 64;

  __device__ void grow(std::size_t need) {
    if (pooled_) { // once: the thread's slice of the pool, if it holds `need`
      pooled_ = false;
      std::size_t bytes = 0;
      if (unsigned char *slice = poolSlice(need, bytes)) {
        std::memcpy(slice, data_, size_);
        data_ = slice;
        capacity_ = bytes;
        return;
      }
    }
    std::size_t capacity = capacity_ * 2;
    if (capacity < need)
      capacity = need;
    unsigned char *data = static_cast<unsigned char *>(malloc(capacity));
    if (!data)
      fail("a thread's tape does not fit in the device heap (raise it with "
           "cgp::dev::reserveHeap or cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes), or "
           "give the gradients a tape pool with cgp::dev::reserveTapes)");
    std::memcpy(data, data_, size_);
    if (onHeap_)
      free(data_);
    data_ = data;
    capacity_ = capacity;
    onHeap_ = true;
  }

  unsigned char inline_[kInlineBytes];
  unsigned char *data_ = inline_;
  std::size_t size_ = 0;
  std::size_t capacity_ = kInlineBytes;
  bool pooled_ = false; // may move to the pool when it grows
  bool onHeap_ = false; // data_ is malloc's
  Tape *redo_ = nullptr;
};

/// The lane of the calling thread in its warp.
__device__ inline unsigned laneId() {
  unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return linear % 32u;
}

/// The parts of a thread's identity, as cgp-ad's analysis of thread-owned
/// indices names them (tool/analysis/ThreadIndices.h).
enum LaunchPart : unsigned {
  kThreadX = 1, kThreadY = 2, kThreadZ = 4, kBlockX = 8, kBlockY = 16, kBlockZ = 32,
};

/// True if the launch has extent 1 in every part of a thread's identity
/// outside `parts`, and blocks of at most maxX x maxY x maxZ threads (0: any). The gradient of `kernel` adds plainly into the elements
/// it proved each thread owns, which holds when threads differ only in what
/// the kernel reads; a launch whose threads also differ in a part the kernel
/// never reads runs each thread's work several times. On such a launch the
/// first thread of the grid says so and stops the kernel (the launch fails),
/// and every thread gets false, so that it returns at once.
__device__ inline bool launchVariesOnlyIn(unsigned parts, const char *kernel, long long maxX = 0,
                                          long long maxY = 0, long long maxZ = 0) {
  // No arrays: indexed at run time, they would go to the thread's stack.
  const bool first =
      threadIdx.x + threadIdx.y + threadIdx.z + blockIdx.x + blockIdx.y + blockIdx.z == 0;
  for (int k = 0; k < 6; ++k) {
    const unsigned extent = k == 0 ? blockDim.x : k == 1 ? blockDim.y : k == 2 ? blockDim.z
                            : k == 3 ? gridDim.x : k == 4 ? gridDim.y : gridDim.z;
    const char *dim = k % 3 == 0 ? "x" : k % 3 == 1 ? "y" : "z";
    const long long most = k == 0 ? maxX : k == 1 ? maxY : k == 2 ? maxZ : 0;
    if (most > 0 && extent > most) {
      if (first) {
        printf("cgp-ad: the gradient of '%s' was launched with blockDim.%s = %u, but the elements "
               "its threads add into are each one thread's own only for blocks of at most %lld "
               "threads in %s (an index such as blockIdx.%s * %lld + threadIdx.%s); launch it as "
               "the kernel expects\n",
               kernel, dim, extent, most, dim, dim, most, dim);
        stop();
      }
      return false;
    }
    if (!((parts >> k) & 1u) && extent != 1) {
      if (first) {
        printf("cgp-ad: the gradient of '%s' was launched with %s.%s = %u, but '%s' never reads "
               "%s.%s: its threads would repeat each other's work; launch it as the kernel "
               "expects\n",
               kernel, k < 3 ? "blockDim" : "gridDim", dim, extent, kernel,
               k < 3 ? "threadIdx" : "blockIdx", dim);
        stop();
      }
      return false;
    }
  }
  return true;
}

/// `*p += v` where every thread of the warp may add into *p at once.
template <class T> __device__ inline void warpAdd(T *p, T v) {
  const unsigned whole = 0xffffffffu;
  if (__activemask() == whole) {
    unsigned long long address = reinterpret_cast<unsigned long long>(p);
    if (__all_sync(whole, __shfl_sync(whole, address, 0) == address)) {
      for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(whole, v, offset);
      if (laneId() == 0)
        atomicAdd(p, v);
      return;
    }
  }
  atomicAdd(p, v);
}

/// `*p += v` from every thread of the block, which must all call it (the
/// end of a gradient kernel, where each thread adds its share of a by-value
/// parameter's adjoint): the block sums its threads' values (shuffles in each
/// warp, then the warps' sums in lane order) and one thread adds the sum
/// atomically. Two barriers.
template <class T> __device__ inline void blockAdd(T *p, T v) {
  __shared__ T warpSums[32];
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned self = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned warp = self / 32, lane = self % 32;
  const unsigned lanes = threads - warp * 32 < 32 ? threads - warp * 32 : 32;
  const unsigned mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    const T other = __shfl_down_sync(mask, v, offset);
    if (lane + offset < lanes)
      v += other;
  }
  if (lane == 0)
    warpSums[warp] = v;
  __syncthreads();
  if (self == 0) {
    T sum = T(0);
    for (unsigned w = 0; w < (threads + 31) / 32; ++w)
      sum += warpSums[w];
    atomicAdd(p, sum);
  }
  __syncthreads(); // warpSums is free again for the next blockAdd
}

/// The adjoint of a warp shuffle's value: lane L receives the sum, over the
/// lanes M of `mask` whose value came from L (`source` in lane M is L), of
/// their adjoints `d`, in the order of M (the same bits at every run). Every
/// lane of `mask` must call it, as it did the shuffle. Two shuffles per lane
/// of the mask: the general case, for sources that differ between lanes.
template <class T> __device__ inline T shuffleAdjoint(unsigned mask, T d, unsigned source) {
  const unsigned self = laneId();
  T sum = T(0);
  for (unsigned m = 0; m < 32; ++m) {
    if (!((mask >> m) & 1u))
      continue;
    T dm = __shfl_sync(mask, d, static_cast<int>(m));
    unsigned from = __shfl_sync(mask, source, static_cast<int>(m));
    if (from == self)
      sum += dm;
  }
  return sum;
}

// Pullbacks of the shuffles of a floating value, as CUDA defines them for a
// `width`-lane segment (a lane whose source is outside its segment reads its
// own value; so does one whose source is not in the mask, which CUDA leaves
// undefined). Each lane adds into *d_v the adjoints of the lanes that read its
// value, in the order of those lanes: the same bits as shuffleAdjoint. A
// shift (up, down) or a butterfly (xor) has at most one reader besides the
// lane itself, so its pullback is one shuffle the other way.

/// `__shfl_sync(mask, v, lane, width)`: a broadcast when every lane of a
/// whole warp names the same lane (a warp sum to it), else shuffleAdjoint.
template <class T>
__device__ inline void shflPullback(unsigned mask, T, int lane, int width, T d_ret, T *d_v) {
  const unsigned self = laneId(), w = static_cast<unsigned>(width);
  const unsigned whole = 0xffffffffu;
  if (mask == whole && w == 32) {
    const int first = __shfl_sync(whole, lane, 0);
    if (__all_sync(whole, lane == first)) {
      T sum = d_ret;
      for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(whole, sum, offset);
      if (self == (static_cast<unsigned>(first) & 31u))
        *d_v += sum;
      return;
    }
  }
  const unsigned source = self - self % w + static_cast<unsigned>(lane) % w;
  *d_v += shuffleAdjoint(mask, d_ret, (mask >> source) & 1u ? source : self);
}

/// `__shfl_up_sync(mask, v, delta, width)`: lane L + delta read L's value.
template <class T>
__device__ inline void shflUpPullback(unsigned mask, T, unsigned delta, int width, T d_ret,
                                      T *d_v) {
  const unsigned self = laneId(), w = static_cast<unsigned>(width), at = self % w;
  const T fromAbove = __shfl_down_sync(mask, d_ret, delta, width);
  T sum = T(0);
  if (at < delta || !((mask >> (self - delta)) & 1u)) // this lane read its own value
    sum += d_ret;
  if (at + delta < w && ((mask >> (self + delta)) & 1u))
    sum += fromAbove;
  *d_v += sum;
}

/// `__shfl_down_sync(mask, v, delta, width)`: lane L - delta read L's value.
template <class T>
__device__ inline void shflDownPullback(unsigned mask, T, unsigned delta, int width, T d_ret,
                                        T *d_v) {
  const unsigned self = laneId(), w = static_cast<unsigned>(width), at = self % w;
  const T fromBelow = __shfl_up_sync(mask, d_ret, delta, width);
  T sum = T(0);
  if (at >= delta && ((mask >> (self - delta)) & 1u))
    sum += fromBelow;
  if (at + delta >= w || !((mask >> (self + delta)) & 1u)) // this lane read its own value
    sum += d_ret;
  *d_v += sum;
}

/// `__shfl_xor_sync(mask, v, laneMask, width)`: lane L ^ laneMask read L's
/// value unless L lies in a later segment than it (out of its reach).
template <class T>
__device__ inline void shflXorPullback(unsigned mask, T, int laneMask, int width, T d_ret,
                                       T *d_v) {
  const unsigned self = laneId(), w = static_cast<unsigned>(width);
  const unsigned other = self ^ static_cast<unsigned>(laneMask);
  const T fromOther = __shfl_xor_sync(mask, d_ret, laneMask, 32);
  const bool readOwn = other == self || other / w > self / w || !((mask >> other) & 1u);
  const bool otherRead = other < 32 && other != self && self / w <= other / w &&
                         ((mask >> other) & 1u);
  T sum = T(0);
  if (otherRead && other < self)
    sum += fromOther;
  if (readOwn)
    sum += d_ret;
  if (otherRead && other > self)
    sum += fromOther;
  *d_v += sum;
}

/// Zeroes the __shared__ array `a` (the adjoint of one) with all the threads
/// of the block, then waits for all of them: every thread of the block must
/// call it.
template <class A> __device__ inline void zeroBlockShared(A &a) {
  using Scalar = typename std::remove_all_extents<A>::type;
  Scalar *p = reinterpret_cast<Scalar *>(&a);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned self = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (std::size_t k = self; k < sizeof(A) / sizeof(Scalar); k += threads)
    p[k] = Scalar(0);
  __syncthreads();
}

#ifdef __CUDACC__
/// Host code: makes room in the device heap for `threads` threads that
/// each tape up to `bytesPerThread` (what --explain estimates per thread).
/// Call it before the first launch of a gradient that tapes more than the
/// default heap (8 MiB) holds.
inline cudaError_t reserveHeap(std::size_t bytesPerThread, std::size_t threads) {
  // A tape grows by doubling: it may hold up to twice what it needs.
  return cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * bytesPerThread * threads + (8u << 20));
}
#endif

} // namespace dev
} // namespace cgp

#endif // CGP_DEVICE_H
