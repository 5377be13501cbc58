// cgp/device_pool.h - the tape pool of a generated CUDA file: global memory
// that the host allocates once (cgp::dev::reserveTapes) and every launch of
// the file's gradients reuses, one slice per global thread index.
//
// A thread's tape starts in an array of its local memory (cgp/device.h).
// When it outgrows that, it moves to its slice of the pool if there is one
// and the slice holds it, else to the device heap (malloc, which is slow
// and 8 MiB by default for all threads together). Each generated file has
// a pool of its own (`tapePool` is static: one per translation unit, as a
// __device__ variable is without relocatable device code); the file
// registers a setter with the host runtime when the program starts, and
// reserveTapes() calls the setters of every file. Launches of one file's
// gradients that run at the same time (on several streams) would share the
// slices: reserve pools only for gradients launched one at a time.
#ifndef CGP_DEVICE_POOL_H
#define CGP_DEVICE_POOL_H

#include <cstddef>

namespace cgp {
namespace rt {
/// A generated file's setter: (bytes per thread, threads) -> a cudaError_t.
using DeviceTapePoolSetter = int (*)(std::size_t, std::size_t);
/// Host runtime (cgp_rt): keeps `setter` for reserveDeviceTapes().
bool addDeviceTapePool(DeviceTapePoolSetter setter);
/// Calls every setter kept; returns the first nonzero result, else 0.
int reserveDeviceTapes(std::size_t bytesPerThread, std::size_t threads);
} // namespace rt

// The rest is CUDA code (nvcc, or the test suite's emulation of CUDA); the
// host runtime, plain C++, needs only the declarations above.
#if defined(__CUDACC__) || defined(CGP_CUDA_EMULATION)
namespace dev {

/// `threads` slices of `bytesPerThread` bytes at `base` (none: base null).
struct TapePool {
  unsigned char *base;
  std::size_t bytesPerThread;
  std::size_t threads;
};

/// This translation unit's pool.
static __device__ TapePool tapePool;

/// The calling thread's index in the whole launch.
__device__ inline std::size_t globalThreadIndex() {
  std::size_t block = blockIdx.x + static_cast<std::size_t>(gridDim.x) *
                                       (blockIdx.y + static_cast<std::size_t>(gridDim.y) * blockIdx.z);
  std::size_t inBlock = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return block * (static_cast<std::size_t>(blockDim.x) * blockDim.y * blockDim.z) + inBlock;
}

/// The calling thread's slice of the pool, if there is one and it holds
/// `need` bytes (its size in `bytes`); else null.
__device__ inline unsigned char *poolSlice(std::size_t need, std::size_t &bytes) {
  const TapePool pool = tapePool;
  if (!pool.base || need > pool.bytesPerThread)
    return nullptr;
  const std::size_t self = globalThreadIndex();
  if (self >= pool.threads)
    return nullptr;
  bytes = pool.bytesPerThread;
  return pool.base + self * pool.bytesPerThread;
}

namespace detail {
/// Replaces this file's pool by one of `threads` slices of `bytesPerThread`
/// (none when either is 0).
static inline int setTapePool(std::size_t bytesPerThread, std::size_t threads) {
  static TapePool current = {nullptr, 0, 0}; // the host's copy
  cudaError_t status = cudaSuccess;
  if (current.base)
    status = cudaFree(current.base);
  current = TapePool{nullptr, 0, 0};
  if (status == cudaSuccess && bytesPerThread > 0 && threads > 0) {
    void *base = nullptr;
    status = cudaMalloc(&base, bytesPerThread * threads);
    if (status == cudaSuccess)
      current = TapePool{static_cast<unsigned char *>(base), bytesPerThread, threads};
  }
#ifdef __CUDACC__
  cudaError_t copied = cudaMemcpyToSymbol(tapePool, &current, sizeof current);
#else
  tapePool = current; // the emulation's device memory is the host's
  cudaError_t copied = cudaSuccess;
#endif
  return static_cast<int>(status != cudaSuccess ? status : copied);
}
} // namespace detail

/// Generated code (once per file): lets reserveTapes() fill in this file's
/// pool.
static inline bool registerTapePool() { return rt::addDeviceTapePool(&detail::setTapePool); }

/// Host code: gives the gradients of every generated CUDA file of the
/// program a tape pool of `threads` slices of `bytesPerThread` bytes in
/// global memory (cudaMalloc), freeing the pools of an earlier call; 0 and
/// 0 free them. A thread whose tape outgrows its local array moves to its
/// slice (by its index in the launch, which must be below `threads`) while
/// the slice holds it, then to the device heap. Call it before the
/// launches, with --explain's bytes per thread (or the budget per thread).
inline cudaError_t reserveTapes(std::size_t bytesPerThread, std::size_t threads) {
  return static_cast<cudaError_t>(rt::reserveDeviceTapes(bytesPerThread, threads));
}

} // namespace dev
#endif
} // namespace cgp

#endif // CGP_DEVICE_POOL_H
