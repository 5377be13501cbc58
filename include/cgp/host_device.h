// cgp/host_device.h - CGP_HOST_DEVICE marks the runtime's code that runs on
// both sides: the binomial schedule and the choice of snapshots and
// segments, which host gradients reach through the cgp_rt library and
// gradients of CUDA kernels compile into device code (cgp/device.h). It is
// `__host__ __device__` where the compiler knows CUDA (nvcc, clang -x cuda,
// the test suite's host emulation of CUDA) and nothing elsewhere.
#ifndef CGP_HOST_DEVICE_H
#define CGP_HOST_DEVICE_H

#if defined(__CUDACC__) || defined(__CUDA__) || defined(CGP_CUDA_EMULATION)
#define CGP_HOST_DEVICE __host__ __device__
#else
#define CGP_HOST_DEVICE
#endif

#endif // CGP_HOST_DEVICE_H
