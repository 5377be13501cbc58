// CUDA constructs that cgp-ad does not differentiate (yet), each refused with
// an error naming the kernel and the construct.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DSHARED 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DBARRIER 2>&1 | FileCheck %s --check-prefix=BARRIER
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DBARRIER_IN_HELPER 2>&1 | FileCheck %s --check-prefix=BARRIER_IN_HELPER
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DSHARED_SCALAR 2>&1 | FileCheck %s --check-prefix=SHARED_SCALAR
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DSYNCWARP 2>&1 | FileCheck %s --check-prefix=SYNCWARP
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DSHUFFLE 2>&1 | FileCheck %s --check-prefix=SHUFFLE
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DATOMIC_VALUE 2>&1 | FileCheck %s --check-prefix=ATOMIC_VALUE
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DATOMIC_MAX 2>&1 | FileCheck %s --check-prefix=ATOMIC_MAX
// RUN: %expect-exit 1 %cgpad %s -o %t -- -DATOMIC_SCALAR 2>&1 | FileCheck %s --check-prefix=ATOMIC_SCALAR
// RUN: %not ls %t/unsupported.cgp.cu
#include <cgp/cgp.h>

#ifdef SHARED
__device__ double helper(const double *x) {
  __shared__ double tile[64];
  tile[threadIdx.x] = x[threadIdx.x];
  return tile[threadIdx.x] * 2.0;
}
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y) { y[threadIdx.x] = helper(x); }
// SHARED: unsupported.cu:[[@LINE-6]]:21: error: cannot differentiate 'k': in 'helper' (called from 'k'): '__shared__' memory such as 'tile' is supported in the body of a __global__ kernel, not in a function it calls
#endif

#ifdef BARRIER
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y, int n) {
  if (threadIdx.x >= n)
    return;
  y[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
}
// BARRIER: unsupported.cu:[[@LINE-2]]:3: error: cannot differentiate 'k': a kernel with barriers ('__syncthreads') cannot return early: its threads must all reach every barrier; write 'if (i < n) { ... }' instead
#endif

#ifdef BARRIER_IN_HELPER
__device__ void wait_all() { __syncthreads(); }
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y) {
  y[threadIdx.x] = x[threadIdx.x];
  wait_all();
}
// BARRIER_IN_HELPER: unsupported.cu:[[@LINE-6]]:30: error: cannot differentiate 'k': in 'wait_all' (called from 'k'): barriers ('__syncthreads') are supported in the body of a __global__ kernel, not in a function it calls
#endif

#ifdef SHARED_SCALAR
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y) {
  __shared__ double total;
  total = x[0];
  y[threadIdx.x] = total;
}
// SHARED_SCALAR: unsupported.cu:[[@LINE-4]]:21: error: cannot differentiate 'k': '__shared__' variable 'total': only arrays of a size known when compiling are supported (declare a scalar as an array of one)
#endif

#ifdef SYNCWARP
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y) {
  y[threadIdx.x] = x[threadIdx.x];
  __syncwarp();
}
// SYNCWARP: unsupported.cu:[[@LINE-2]]:3: error: cannot differentiate 'k': the barrier '__syncwarp' is not supported in a kernel that cgp-ad differentiates; '__syncthreads()' is
#endif

#ifdef SHUFFLE
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y) {
  double v = x[threadIdx.x];
  y[threadIdx.x] = __any_sync(0xffffffffu, v > 0) ? v : 0.0;
}
// SHUFFLE: unsupported.cu:[[@LINE-2]]:20: error: cannot differentiate 'k': warp intrinsics ('__any_sync') are not supported yet in a kernel that cgp-ad differentiates
#endif

#ifdef ATOMIC_VALUE
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y) {
  double old = atomicAdd(&y[0], x[threadIdx.x]);
  y[1 + threadIdx.x] = old;
}
// ATOMIC_VALUE: unsupported.cu:[[@LINE-3]]:16: error: cannot differentiate 'k': the value 'atomicAdd' returns is not supported; call it as a statement
#endif

#ifdef ATOMIC_MAX
CGP_GRAD(x, y)
__global__ void k(const double *x, double *y, int *count) {
  atomicMax(&count[0], (int)threadIdx.x);
  y[threadIdx.x] = x[threadIdx.x];
}
// ATOMIC_MAX: unsupported.cu:[[@LINE-3]]:3: error: cannot differentiate 'k': 'atomicMax' is not supported in a kernel; 'atomicAdd' is
#endif

#ifdef ATOMIC_SCALAR
CGP_GRAD(x)
__device__ double k(const double *x) {
  double s = 0;
  atomicAdd(&s, x[0]);
  return s;
}
// ATOMIC_SCALAR: unsupported.cu:[[@LINE-3]]:13: error: cannot differentiate 'k': 'atomicAdd' is supported on an element of a buffer: atomicAdd(&y[i], v)
#endif
