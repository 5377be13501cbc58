// The C++ of section 5 of the user guide inside device code: a struct with
// a member function, a function template, a lambda capturing by
// reference, a local pointer into a buffer and a reference to an output
// element, in a __global__ kernel; its gradient under the emulation
// against finite differences, bit for bit under store-all, and compiled
// with nvcc.
//
// RUN: rm -rf %t && mkdir -p %t/cgp %t/store-all
// RUN: %cgpad %s -o %t/cgp -- --cuda-gpu-arch=sm_90
// RUN: %cgpad %s -o %t/store-all --strategy=store-all -- --cuda-gpu-arch=sm_90
// RUN: %cxx %cxxflags %cuda-emulation %t/cgp/cxx_device_code.cgp.cu -o %t/emu -pthread %ldflags
// RUN: %t/emu %t/cgp.dump
// RUN: %cxx %cxxflags %cuda-emulation %t/store-all/cxx_device_code.cgp.cu -o %t/emu-store-all -pthread %ldflags
// RUN: %t/emu-store-all %t/store-all.dump
// RUN: cmp %t/cgp.dump %t/store-all.dump
// RUN: %nvcc-compile %t/cgp/cxx_device_code.cgp.cu
#include <cgp/cgp.h>

struct Vec2 {
  double x, y;
  __device__ double dot(const Vec2 &o) const { return x * o.x + y * o.y; }
};

template <class T> __device__ T sq(T v) { return v * v; }

CGP_GRAD(p, out)
__global__ void shapes(const double *p, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Vec2 a{p[2 * i], p[2 * i + 1]};
  Vec2 b = {sin(a.y), -a.x};
  auto scale = [&](double s) { return s * a.x; };
  double acc = 0;
  const double *row = p + 2 * i;
  double &result = out[i];
  for (int k = 0; k < 2; ++k)
    acc += sq(row[k]) + scale(a.dot(b) + 1.0);
  result = acc;
}

#ifndef __CGP_AD__
#include "cxx_device_code.cgp.h"
#include <cuda_check.h>


using cgp_cuda_test::DeviceArray;
using Vec = std::vector<double>;

int main(int argc, char **argv) {
  // A file to dump the gradient into; tests/cuda/run_on_gpu.sh passes --time.
  const char *dumpPath = argc > 1 && argv[1][0] != '-' ? argv[1] : nullptr;
  const int n = 37, threads = 32, blocks = (n + threads - 1) / threads;
  Vec p(2 * n), seed(n);
  for (int k = 0; k < 2 * n; ++k)
    p[k] = 0.1 * ((k * 7) % 13) - 0.6;
  for (int i = 0; i < n; ++i)
    seed[i] = 1.0 + 0.01 * i;
  auto loss = [&](const Vec &v) {
    DeviceArray<double> dp(v), dout(n);
    CGP_LAUNCH(shapes, blocks, threads, dp.get(), dout.get(), n);
    Vec out = dout.download();
    double L = 0;
    for (int i = 0; i < n; ++i)
      L += seed[i] * out[i];
    return L;
  };
  DeviceArray<double> dp(p), dout(n), gp(p.size()), gout(seed);
  CGP_LAUNCH(shapes_grad, blocks, threads, dp.get(), dout.get(), n, gp.get(), gout.get());
  CGP_CUDA_SYNC_CHECK();
  Vec g = gp.download();
  cgp_cuda_test::check_close("shapes d_p against finite differences", g,
                             cgp_cuda_test::fd_gradient(loss, p, 1e-4), 1e-6, 1e-9);
  cgp_cuda_test::dump_bits(dumpPath, g);
  return cgp_cuda_test::finish();
}
#endif
