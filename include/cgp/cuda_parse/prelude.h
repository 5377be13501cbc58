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
#include <ctime>

// CUDA's device API, with the signatures of the toolkit's headers
// (crt/math_functions.h, crt/device_functions.h, sm_*_intrinsics.h,
// *_atomic_functions.h), for the scalar types, so that every call nvcc
// accepts parses. Clang checks which side may call what: the C library's
// own declarations are host functions, so the ones device code calls are
// declared again as __device__ overloads, as Clang's CUDA headers do; CUDA's
// functions that the C library lacks are __host__ __device__ like the
// toolkit's, and its intrinsics __device__.
#define CGP_CUDA_HD __host__ __device__

// Integer and floating min and max (floating ones are fminf/fmin), with
// CUDA's mixed-type overloads.
#define CGP_CUDA_MIN_MAX(R, A, B) CGP_CUDA_HD R min(A, B); CGP_CUDA_HD R max(A, B);
CGP_CUDA_MIN_MAX(int, int, int)
CGP_CUDA_MIN_MAX(unsigned int, unsigned int, unsigned int)
CGP_CUDA_MIN_MAX(unsigned int, int, unsigned int)
CGP_CUDA_MIN_MAX(unsigned int, unsigned int, int)
CGP_CUDA_MIN_MAX(long, long, long)
CGP_CUDA_MIN_MAX(unsigned long, unsigned long, unsigned long)
CGP_CUDA_MIN_MAX(unsigned long, long, unsigned long)
CGP_CUDA_MIN_MAX(unsigned long, unsigned long, long)
CGP_CUDA_MIN_MAX(long long, long long, long long)
CGP_CUDA_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
CGP_CUDA_MIN_MAX(unsigned long long, long long, unsigned long long)
CGP_CUDA_MIN_MAX(unsigned long long, unsigned long long, long long)
CGP_CUDA_MIN_MAX(float, float, float)
CGP_CUDA_MIN_MAX(double, double, double)
CGP_CUDA_MIN_MAX(double, float, double)
CGP_CUDA_MIN_MAX(double, double, float)
#undef CGP_CUDA_MIN_MAX
CGP_CUDA_HD unsigned int umin(unsigned int, unsigned int);
CGP_CUDA_HD unsigned int umax(unsigned int, unsigned int);
CGP_CUDA_HD long long llmin(long long, long long);
CGP_CUDA_HD long long llmax(long long, long long);
CGP_CUDA_HD unsigned long long ullmin(unsigned long long, unsigned long long);
CGP_CUDA_HD unsigned long long ullmax(unsigned long long, unsigned long long);

// The C library's math on the device: the host declarations of <math.h>
// cannot be called from device code, and Clang's own device overloads
// (__clang_cuda_math_forward_declares.h) cover the double and float
// overloads of the <cmath> names, not the C `f` names.
#define CGP_CUDA_FLOAT_1(name) __device__ float name(float);
#define CGP_CUDA_FLOAT_2(name) __device__ float name(float, float);
CGP_CUDA_FLOAT_1(acosf) CGP_CUDA_FLOAT_1(acoshf) CGP_CUDA_FLOAT_1(asinf)
CGP_CUDA_FLOAT_1(asinhf) CGP_CUDA_FLOAT_1(atanf) CGP_CUDA_FLOAT_1(atanhf)
CGP_CUDA_FLOAT_1(cbrtf) CGP_CUDA_FLOAT_1(ceilf) CGP_CUDA_FLOAT_1(cosf)
CGP_CUDA_FLOAT_1(coshf) CGP_CUDA_FLOAT_1(erfcf) CGP_CUDA_FLOAT_1(erff)
CGP_CUDA_FLOAT_1(exp10f) CGP_CUDA_FLOAT_1(exp2f) CGP_CUDA_FLOAT_1(expf)
CGP_CUDA_FLOAT_1(expm1f) CGP_CUDA_FLOAT_1(fabsf) CGP_CUDA_FLOAT_1(floorf)
CGP_CUDA_FLOAT_1(j0f) CGP_CUDA_FLOAT_1(j1f) CGP_CUDA_FLOAT_1(lgammaf)
CGP_CUDA_FLOAT_1(log10f) CGP_CUDA_FLOAT_1(log1pf) CGP_CUDA_FLOAT_1(log2f)
CGP_CUDA_FLOAT_1(logbf) CGP_CUDA_FLOAT_1(logf) CGP_CUDA_FLOAT_1(nearbyintf)
CGP_CUDA_FLOAT_1(rintf) CGP_CUDA_FLOAT_1(roundf) CGP_CUDA_FLOAT_1(sinf)
CGP_CUDA_FLOAT_1(sinhf) CGP_CUDA_FLOAT_1(sqrtf) CGP_CUDA_FLOAT_1(tanf)
CGP_CUDA_FLOAT_1(tanhf) CGP_CUDA_FLOAT_1(tgammaf) CGP_CUDA_FLOAT_1(truncf)
CGP_CUDA_FLOAT_1(y0f) CGP_CUDA_FLOAT_1(y1f)
CGP_CUDA_FLOAT_2(atan2f) CGP_CUDA_FLOAT_2(copysignf) CGP_CUDA_FLOAT_2(fdimf)
CGP_CUDA_FLOAT_2(fmaxf) CGP_CUDA_FLOAT_2(fminf) CGP_CUDA_FLOAT_2(fmodf)
CGP_CUDA_FLOAT_2(hypotf) CGP_CUDA_FLOAT_2(nextafterf) CGP_CUDA_FLOAT_2(powf)
CGP_CUDA_FLOAT_2(remainderf)
#undef CGP_CUDA_FLOAT_1
#undef CGP_CUDA_FLOAT_2
__device__ float fmaf(float, float, float);
__device__ float frexpf(float, int *);
__device__ int ilogbf(float);
__device__ float jnf(int, float);
__device__ float ynf(int, float);
__device__ float ldexpf(float, int);
__device__ float scalbnf(float, int);
__device__ float scalblnf(float, long);
__device__ float modff(float, float *);
__device__ float remquof(float, float, int *);
__device__ long lrintf(float);
__device__ long lroundf(float);
__device__ long long llrintf(float);
__device__ long long llroundf(float);
__device__ void sincosf(float, float *, float *);
__device__ double exp10(double);
__device__ double j0(double);
__device__ double j1(double);
__device__ double jn(int, double);
__device__ double y0(double);
__device__ double y1(double);
__device__ double yn(int, double);
__device__ long long llrint(double);
__device__ long long llround(double);
__device__ double scalbln(double, long);
__device__ void sincos(double, double *, double *);
__device__ long long llabs(long long);

// Math functions of CUDA that the C library does not have.
#define CGP_CUDA_MATH_1(name)                                                               \
  CGP_CUDA_HD double name(double);                                                          \
  CGP_CUDA_HD float name##f(float);
CGP_CUDA_MATH_1(rsqrt)
CGP_CUDA_MATH_1(rcbrt)
CGP_CUDA_MATH_1(sinpi)
CGP_CUDA_MATH_1(cospi)
CGP_CUDA_MATH_1(erfinv)
CGP_CUDA_MATH_1(erfcinv)
CGP_CUDA_MATH_1(erfcx)
CGP_CUDA_MATH_1(normcdf)
CGP_CUDA_MATH_1(normcdfinv)
CGP_CUDA_MATH_1(cyl_bessel_i0)
CGP_CUDA_MATH_1(cyl_bessel_i1)
#undef CGP_CUDA_MATH_1
CGP_CUDA_HD void sincospi(double, double *, double *);
CGP_CUDA_HD void sincospif(float, float *, float *);
CGP_CUDA_HD double rhypot(double, double);
CGP_CUDA_HD float rhypotf(float, float);
CGP_CUDA_HD double norm3d(double, double, double);
CGP_CUDA_HD float norm3df(float, float, float);
CGP_CUDA_HD double rnorm3d(double, double, double);
CGP_CUDA_HD float rnorm3df(float, float, float);
CGP_CUDA_HD double norm4d(double, double, double, double);
CGP_CUDA_HD float norm4df(float, float, float, float);
CGP_CUDA_HD double rnorm4d(double, double, double, double);
CGP_CUDA_HD float rnorm4df(float, float, float, float);
CGP_CUDA_HD double norm(int, const double *);
CGP_CUDA_HD float normf(int, const float *);
CGP_CUDA_HD double rnorm(int, const double *);
CGP_CUDA_HD float rnormf(int, const float *);
CGP_CUDA_HD float fdividef(float, float);
CGP_CUDA_HD double fdivide(double, double);

// Fast single-precision intrinsics.
__device__ float __expf(float);
__device__ float __exp10f(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __log10f(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ float __tanhf(float);
__device__ void __sincosf(float, float *, float *);
__device__ float __powf(float, float);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);

// Arithmetic in a chosen rounding mode: to nearest, towards zero, up, down.
#define CGP_CUDA_ROUNDED(mode)                                                              \
  __device__ float __fadd_##mode(float, float);                                             \
  __device__ float __fsub_##mode(float, float);                                             \
  __device__ float __fmul_##mode(float, float);                                             \
  __device__ float __fdiv_##mode(float, float);                                             \
  __device__ float __fmaf_##mode(float, float, float);                                      \
  __device__ float __fmaf_ieee_##mode(float, float, float);                                 \
  __device__ float __frcp_##mode(float);                                                    \
  __device__ float __fsqrt_##mode(float);                                                   \
  __device__ double __dadd_##mode(double, double);                                          \
  __device__ double __dsub_##mode(double, double);                                          \
  __device__ double __dmul_##mode(double, double);                                          \
  __device__ double __ddiv_##mode(double, double);                                          \
  __device__ double __fma_##mode(double, double, double);                                   \
  __device__ double __drcp_##mode(double);                                                  \
  __device__ double __dsqrt_##mode(double);
CGP_CUDA_ROUNDED(rn)
CGP_CUDA_ROUNDED(rz)
CGP_CUDA_ROUNDED(ru)
CGP_CUDA_ROUNDED(rd)
#undef CGP_CUDA_ROUNDED
__device__ float __frsqrt_rn(float);

// Conversions in a chosen rounding mode, and reinterpretations of bits.
#define CGP_CUDA_CONVERSIONS(mode)                                                          \
  __device__ int __float2int_##mode(float);                                                 \
  __device__ unsigned int __float2uint_##mode(float);                                       \
  __device__ long long __float2ll_##mode(float);                                            \
  __device__ unsigned long long __float2ull_##mode(float);                                  \
  __device__ int __double2int_##mode(double);                                               \
  __device__ unsigned int __double2uint_##mode(double);                                     \
  __device__ long long __double2ll_##mode(double);                                          \
  __device__ unsigned long long __double2ull_##mode(double);                                \
  __device__ float __double2float_##mode(double);                                           \
  __device__ float __int2float_##mode(int);                                                 \
  __device__ float __uint2float_##mode(unsigned int);                                       \
  __device__ float __ll2float_##mode(long long);                                            \
  __device__ float __ull2float_##mode(unsigned long long);                                  \
  __device__ double __ll2double_##mode(long long);                                          \
  __device__ double __ull2double_##mode(unsigned long long);
CGP_CUDA_CONVERSIONS(rn)
CGP_CUDA_CONVERSIONS(rz)
CGP_CUDA_CONVERSIONS(ru)
CGP_CUDA_CONVERSIONS(rd)
#undef CGP_CUDA_CONVERSIONS
__device__ double __int2double_rn(int);
__device__ double __uint2double_rn(unsigned int);
__device__ int __float_as_int(float);
__device__ float __int_as_float(int);
__device__ unsigned int __float_as_uint(float);
__device__ float __uint_as_float(unsigned int);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
__device__ int __double2hiint(double);
__device__ int __double2loint(double);
__device__ double __hiloint2double(int, int);

// Integer and bit intrinsics.
__device__ int __popc(unsigned int);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned int __brev(unsigned int);
__device__ unsigned long long __brevll(unsigned long long);
__device__ int __fns(unsigned int, unsigned int, int);
__device__ unsigned int __byte_perm(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_l(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_lc(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_r(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_rc(unsigned int, unsigned int, unsigned int);
__device__ int __mul24(int, int);
__device__ unsigned int __umul24(unsigned int, unsigned int);
__device__ int __mulhi(int, int);
__device__ unsigned int __umulhi(unsigned int, unsigned int);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ int __hadd(int, int);
__device__ int __rhadd(int, int);
__device__ unsigned int __uhadd(unsigned int, unsigned int);
__device__ unsigned int __urhadd(unsigned int, unsigned int);
__device__ unsigned int __sad(int, int, unsigned int);
__device__ unsigned int __usad(unsigned int, unsigned int, unsigned int);
__device__ int __dp4a(int, int, int);
__device__ unsigned int __dp4a(unsigned int, unsigned int, unsigned int);

// Loads through the read-only and other caches.
#define CGP_CUDA_LOADS(T)                                                                   \
  __device__ T __ldg(const T *);                                                            \
  __device__ T __ldcg(const T *);                                                           \
  __device__ T __ldca(const T *);                                                           \
  __device__ T __ldcs(const T *);                                                           \
  __device__ T __ldlu(const T *);                                                           \
  __device__ T __ldcv(const T *);                                                           \
  __device__ void __stwb(T *, T);                                                           \
  __device__ void __stcg(T *, T);                                                           \
  __device__ void __stcs(T *, T);                                                           \
  __device__ void __stwt(T *, T);
CGP_CUDA_LOADS(char)
CGP_CUDA_LOADS(signed char)
CGP_CUDA_LOADS(unsigned char)
CGP_CUDA_LOADS(short)
CGP_CUDA_LOADS(unsigned short)
CGP_CUDA_LOADS(int)
CGP_CUDA_LOADS(unsigned int)
CGP_CUDA_LOADS(long)
CGP_CUDA_LOADS(unsigned long)
CGP_CUDA_LOADS(long long)
CGP_CUDA_LOADS(unsigned long long)
CGP_CUDA_LOADS(float)
CGP_CUDA_LOADS(double)
#undef CGP_CUDA_LOADS

// Barriers, memory fences, timing.
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ clock_t clock();
__device__ long long clock64();
__device__ void __nanosleep(unsigned int);
__device__ void __trap();
__device__ void __brkpt();
__device__ void __prof_trigger(int);

// The C library functions device code may call (printf and assert once
// <cstdio> and <cassert> are included, as with nvcc).
__device__ int printf(const char *, ...);
__device__ void __assert_fail(const char *, const char *, unsigned int, const char *);
__device__ void *malloc(size_t);
__device__ void free(void *);
__device__ void *memcpy(void *, const void *, size_t);
__device__ void *memset(void *, int, size_t);

// Atomics: every operation on the types CUDA has it for, and its _block
// and _system scopes.
#define CGP_CUDA_ATOMIC_SCOPES(R, name, ...)                                                \
  __device__ R name(__VA_ARGS__);                                                           \
  __device__ R name##_block(__VA_ARGS__);                                                   \
  __device__ R name##_system(__VA_ARGS__);
#define CGP_CUDA_ATOMIC(R, name) CGP_CUDA_ATOMIC_SCOPES(R, name, R *, R)
CGP_CUDA_ATOMIC(int, atomicAdd)
CGP_CUDA_ATOMIC(unsigned int, atomicAdd)
CGP_CUDA_ATOMIC(unsigned long long, atomicAdd)
CGP_CUDA_ATOMIC(float, atomicAdd)
CGP_CUDA_ATOMIC(double, atomicAdd)
CGP_CUDA_ATOMIC(int, atomicSub)
CGP_CUDA_ATOMIC(unsigned int, atomicSub)
CGP_CUDA_ATOMIC(int, atomicExch)
CGP_CUDA_ATOMIC(unsigned int, atomicExch)
CGP_CUDA_ATOMIC(unsigned long long, atomicExch)
CGP_CUDA_ATOMIC(float, atomicExch)
#define CGP_CUDA_ATOMIC_INTEGER(R)                                                          \
  CGP_CUDA_ATOMIC(R, atomicMin)                                                             \
  CGP_CUDA_ATOMIC(R, atomicMax)                                                             \
  CGP_CUDA_ATOMIC(R, atomicAnd)                                                             \
  CGP_CUDA_ATOMIC(R, atomicOr)                                                              \
  CGP_CUDA_ATOMIC(R, atomicXor)
CGP_CUDA_ATOMIC_INTEGER(int)
CGP_CUDA_ATOMIC_INTEGER(unsigned int)
CGP_CUDA_ATOMIC_INTEGER(long long)
CGP_CUDA_ATOMIC_INTEGER(unsigned long long)
#undef CGP_CUDA_ATOMIC_INTEGER
CGP_CUDA_ATOMIC(unsigned int, atomicInc)
CGP_CUDA_ATOMIC(unsigned int, atomicDec)
#undef CGP_CUDA_ATOMIC
CGP_CUDA_ATOMIC_SCOPES(int, atomicCAS, int *, int, int)
CGP_CUDA_ATOMIC_SCOPES(unsigned int, atomicCAS, unsigned int *, unsigned int, unsigned int)
CGP_CUDA_ATOMIC_SCOPES(unsigned long long, atomicCAS, unsigned long long *, unsigned long long,
                       unsigned long long)
#undef CGP_CUDA_ATOMIC_SCOPES
__device__ unsigned short atomicCAS(unsigned short *, unsigned short, unsigned short);

// Warp intrinsics.
__device__ unsigned int __activemask();
__device__ unsigned int __ballot_sync(unsigned int, int);
__device__ int __any_sync(unsigned int, int);
__device__ int __all_sync(unsigned int, int);
#define CGP_CUDA_SHUFFLES(T)                                                                \
  __device__ T __shfl_sync(unsigned int, T, int, int = 32);                                 \
  __device__ T __shfl_up_sync(unsigned int, T, unsigned int, int = 32);                     \
  __device__ T __shfl_down_sync(unsigned int, T, unsigned int, int = 32);                   \
  __device__ T __shfl_xor_sync(unsigned int, T, int, int = 32);                             \
  __device__ unsigned int __match_any_sync(unsigned int, T);                                \
  __device__ unsigned int __match_all_sync(unsigned int, T, int *);
CGP_CUDA_SHUFFLES(int)
CGP_CUDA_SHUFFLES(unsigned int)
CGP_CUDA_SHUFFLES(long)
CGP_CUDA_SHUFFLES(unsigned long)
CGP_CUDA_SHUFFLES(long long)
CGP_CUDA_SHUFFLES(unsigned long long)
CGP_CUDA_SHUFFLES(float)
CGP_CUDA_SHUFFLES(double)
#undef CGP_CUDA_SHUFFLES
#define CGP_CUDA_WARP_REDUCE(T)                                                             \
  __device__ T __reduce_add_sync(unsigned int, T);                                          \
  __device__ T __reduce_min_sync(unsigned int, T);                                          \
  __device__ T __reduce_max_sync(unsigned int, T);
CGP_CUDA_WARP_REDUCE(int)
CGP_CUDA_WARP_REDUCE(unsigned int)
#undef CGP_CUDA_WARP_REDUCE
__device__ unsigned int __reduce_and_sync(unsigned int, unsigned int);
__device__ unsigned int __reduce_or_sync(unsigned int, unsigned int);
__device__ unsigned int __reduce_xor_sync(unsigned int, unsigned int);
#undef CGP_CUDA_HD

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
