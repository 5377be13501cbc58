// prelude.h - what cgp-ad parses a CUDA source with, in place of the CUDA
// toolkit's headers.
//
// cgp-ad reads a .cu file with Clang in CUDA mode (host side only) but
// without the toolkit's headers (-nocudainc): their versions change what
// Clang can parse (Clang 19 cannot read CUDA 13's), and a machine may have no
// toolkit at all. This file declares what kernels use instead: the execution
// space qualifiers, Clang's builtin variables (threadIdx, blockIdx, blockDim,
// gridDim), the device math, atomics, warp intrinsics and barriers, and the
// parts of the runtime API that host code in the same file calls. Only
// declarations: cgp-ad never compiles this code; nvcc builds the generated
// file with the real headers. The folder also holds small cuda_runtime.h,
// cuda.h and device_launch_parameters.h files that include this one, so that
// a kernel's own includes of them resolve here while cgp-ad parses.
#ifndef CGP_CUDA_PARSE_PRELUDE_H
#define CGP_CUDA_PARSE_PRELUDE_H

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#ifndef CUDART_VERSION
#define CUDART_VERSION 12000
#endif

#include <stddef.h>

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                     unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

#include <__clang_cuda_builtin_vars.h>
#include <__clang_cuda_math_forward_declares.h>
#include <cmath>
#include <cstdlib>
#include <cstring>

// The device math that <cmath> does not declare.
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __powf(float, float);
__device__ float __fdividef(float, float);
__device__ float rsqrtf(float);
__device__ double rsqrt(double);
__device__ float __saturatef(float);
__device__ int __float2int_rn(float);

// Barriers and memory fences.
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();

// Atomics.
__device__ int atomicAdd(int *, int);
__device__ unsigned int atomicAdd(unsigned int *, unsigned int);
__device__ unsigned long long atomicAdd(unsigned long long *, unsigned long long);
__device__ float atomicAdd(float *, float);
__device__ double atomicAdd(double *, double);
__device__ int atomicSub(int *, int);
__device__ int atomicExch(int *, int);
__device__ float atomicExch(float *, float);
__device__ int atomicMax(int *, int);
__device__ int atomicMin(int *, int);
__device__ int atomicCAS(int *, int, int);
__device__ unsigned int atomicCAS(unsigned int *, unsigned int, unsigned int);
__device__ unsigned long long atomicCAS(unsigned long long *, unsigned long long,
                                        unsigned long long);

// Warp intrinsics.
__device__ unsigned int __activemask();
__device__ unsigned int __ballot_sync(unsigned int, int);
__device__ int __any_sync(unsigned int, int);
__device__ int __all_sync(unsigned int, int);
__device__ int __popc(unsigned int);
__device__ int __ffs(int);
#define CGP_CUDA_SHUFFLES(T)                                                                \
  __device__ T __shfl_sync(unsigned int, T, int, int = 32);                                 \
  __device__ T __shfl_up_sync(unsigned int, T, unsigned int, int = 32);                     \
  __device__ T __shfl_down_sync(unsigned int, T, unsigned int, int = 32);                   \
  __device__ T __shfl_xor_sync(unsigned int, T, int, int = 32);
CGP_CUDA_SHUFFLES(int)
CGP_CUDA_SHUFFLES(unsigned int)
CGP_CUDA_SHUFFLES(long long)
CGP_CUDA_SHUFFLES(unsigned long long)
CGP_CUDA_SHUFFLES(float)
CGP_CUDA_SHUFFLES(double)
#undef CGP_CUDA_SHUFFLES
template <class T> __device__ T __ldg(const T *);

// The runtime API that host code in a .cu file calls.
enum cudaError_t { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
typedef cudaError_t cudaError;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum cudaLimit { cudaLimitStackSize = 0, cudaLimitPrintfFifoSize = 1, cudaLimitMallocHeapSize = 2 };
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
cudaError_t cudaMalloc(void **, size_t);
template <class T> cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
cudaError_t cudaMallocManaged(void **, size_t, unsigned int = 1);
template <class T> cudaError_t cudaMallocManaged(T **p, size_t n, unsigned int f = 1) {
  return cudaMallocManaged((void **)p, n, f);
}
cudaError_t cudaFree(void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceSetLimit(cudaLimit, size_t);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorString(cudaError_t);
cudaError_t cudaGetDeviceCount(int *);
cudaError_t cudaSetDevice(int);
cudaError_t cudaEventCreate(cudaEvent_t *);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
// What Clang turns a launch `k<<<grid, block>>>(...)` into.
extern "C" unsigned __cudaPushCallConfiguration(dim3, dim3, size_t = 0, cudaStream_t = 0);

#endif // CGP_CUDA_PARSE_PRELUDE_H
