// cuda_check.h - helpers for CUDA test programs that compile unchanged under
// nvcc (run on a GPU) and under the host emulation (g++ with
// tests/cuda/emu/cuda_emulation.h force-included; see tests/cuda/README.md).
//
//   CGP_LAUNCH(kernel, grid, block, args...)          kernel<<<grid, block>>>(args...)
//   CGP_LAUNCH_SHARED(kernel, grid, block, bytes, args...)   with dynamic shared memory
//   CGP_DYNAMIC_SHARED(T, name);   in a kernel: extern __shared__ T name[];
//   CGP_CUDA_CHECK(call);          aborts with a message unless call returns cudaSuccess
//   CGP_CUDA_SYNC_CHECK();         checks cudaGetLastError() and cudaDeviceSynchronize()
//   cgp_cuda_test::DeviceArray<T>  owning device buffer
//   cgp_cuda_test::check / check_close / central_difference / finish
//   cgp_cuda_test::median_ms / print_time   kernel timings (`--time` modes, run_on_gpu.sh)
//   cgp_cuda_test::dump_bits        a gradient's bits, to compare builds with cmp
//
// A kernel name with template arguments goes in parentheses:
// CGP_LAUNCH((k<float, 4>), grid, block, ...).
#ifndef CGP_CUDA_CHECK_H
#define CGP_CUDA_CHECK_H

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define CGP_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)
#define CGP_LAUNCH_SHARED(kernel, grid, block, bytes, ...) \
  kernel<<<(grid), (block), (bytes)>>>(__VA_ARGS__)
#define CGP_DYNAMIC_SHARED(T, name) extern __shared__ T name[]
#else
#ifndef CGP_CUDA_EMULATION
#include "../emu/cuda_emulation.h"
#endif
// The kernel's arguments follow as a call, so that a kernel without
// parameters needs no special case: CGP_LAUNCH(k, g, b) runs k().
namespace cgp_emu {
// The kernel's name goes with it, for the emulation's reports.
template <class... P>
struct Launcher {
  const char* name;
  dim3 grid, block;
  std::size_t shared_bytes;
  void (*kernel)(P...);
  template <class... A>
  void operator()(A&&... args) const {
    launch(name, grid, block, shared_bytes, kernel, std::forward<A>(args)...);
  }
};
template <class... P>
Launcher<P...> launcher(const char* name, dim3 grid, dim3 block, std::size_t shared_bytes,
                        void (*kernel)(P...)) {
  return Launcher<P...>{name, grid, block, shared_bytes, kernel};
}
}  // namespace cgp_emu
#define CGP_LAUNCH(kernel, grid, block, ...) \
  cgp_emu::launcher(#kernel, (grid), (block), 0, kernel)(__VA_ARGS__)
#define CGP_LAUNCH_SHARED(kernel, grid, block, bytes, ...) \
  cgp_emu::launcher(#kernel, (grid), (block), (bytes), kernel)(__VA_ARGS__)
#define CGP_DYNAMIC_SHARED(T, name) T* name = static_cast<T*>(cgp_emu::dynamic_shared())
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#define CGP_CUDA_CHECK(call)                                                             \
  do {                                                                                   \
    cudaError_t cgp_cuda_check_err_ = (call);                                            \
    if (cgp_cuda_check_err_ != cudaSuccess) {                                            \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,          \
                   cudaGetErrorString(cgp_cuda_check_err_));                             \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

#define CGP_CUDA_SYNC_CHECK()                    \
  do {                                           \
    CGP_CUDA_CHECK(cudaGetLastError());          \
    CGP_CUDA_CHECK(cudaDeviceSynchronize());     \
  } while (0)

namespace cgp_cuda_test {

// An owning device buffer of n elements of T.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) : n_(n) {
    if (n_) {
      CGP_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n_ * sizeof(T)));
      CGP_CUDA_CHECK(cudaMemset(p_, 0, n_ * sizeof(T)));
    }
  }
  explicit DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) { upload(v); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), n_(o.n_) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  ~DeviceArray() {
    if (p_) cudaFree(p_);
  }

  T* get() const { return p_; }
  std::size_t size() const { return n_; }

  void upload(const std::vector<T>& v) {
    if (v.size() != n_) {
      std::fprintf(stderr, "DeviceArray::upload: %zu elements into an array of %zu\n", v.size(),
                   n_);
      std::abort();
    }
    if (n_) CGP_CUDA_CHECK(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> v(n_);
    if (n_) CGP_CUDA_CHECK(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

inline int& checks_run() {
  static int n = 0;
  return n;
}
inline int& checks_failed() {
  static int n = 0;
  return n;
}

// Counts a check and prints a PASS or FAIL line.
inline bool check(const std::string& name, bool ok, const std::string& detail = "") {
  ++checks_run();
  if (!ok) ++checks_failed();
  std::printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : "  ",
              detail.c_str());
  return ok;
}

// |got - expected| <= rtol * max(|got|, |expected|) + atol; NaN never passes.
inline bool close(double got, double expected, double rtol, double atol = 0.0) {
  const double diff = std::fabs(got - expected);
  return diff <= rtol * std::fmax(std::fabs(got), std::fabs(expected)) + atol;
}

inline bool check_close(const std::string& name, double got, double expected, double rtol = 1e-12,
                        double atol = 0.0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "got %.17g expected %.17g", got, expected);
  return check(name, close(got, expected, rtol, atol), buf);
}

// Element by element; one line naming the worst element.
template <class T, class U>
bool check_close(const std::string& name, const std::vector<T>& got, const std::vector<U>& expected,
                 double rtol = 1e-12, double atol = 0.0) {
  if (got.size() != expected.size()) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "size %zu, expected %zu", got.size(), expected.size());
    return check(name, false, buf);
  }
  std::size_t worst = 0, bad = 0;
  double worst_excess = -1.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]), e = static_cast<double>(expected[i]);
    const bool ok = close(g, e, rtol, atol);
    if (!ok) ++bad;
    const double excess = std::isnan(g - e)
                              ? 1e300
                              : std::fabs(g - e) - rtol * std::fmax(std::fabs(g), std::fabs(e)) - atol;
    if (!ok && (bad == 1 || excess > worst_excess)) {
      worst = i;
      worst_excess = excess;
    }
  }
  char buf[160];
  if (bad)
    std::snprintf(buf, sizeof buf, "%zu of %zu differ; [%zu] got %.17g expected %.17g", bad,
                  got.size(), worst, static_cast<double>(got[worst]),
                  static_cast<double>(expected[worst]));
  else
    std::snprintf(buf, sizeof buf, "%zu elements", got.size());
  return check(name, bad == 0, buf);
}

// d f / d x[i] by central differences, Richardson-extrapolated:
// (4 D(h/2) - D(h)) / 3 with D(s) = (f(x + s e_i) - f(x - s e_i)) / (2 s).
template <class F>
double central_difference(F&& f, const std::vector<double>& x, std::size_t i, double h = 1e-3) {
  std::vector<double> y = x;
  auto d = [&](double s) {
    y[i] = x[i] + s;
    const double fp = f(static_cast<const std::vector<double>&>(y));
    y[i] = x[i] - s;
    const double fm = f(static_cast<const std::vector<double>&>(y));
    y[i] = x[i];
    return (fp - fm) / (2 * s);
  };
  const double dh = d(h), dh2 = d(h / 2);
  return (4 * dh2 - dh) / 3;
}

// The whole gradient of f at x by central_difference.
template <class F>
std::vector<double> fd_gradient(F&& f, const std::vector<double>& x, double h = 1e-3) {
  std::vector<double> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) g[i] = central_difference(f, x, i, h);
  return g;
}

// The median time in milliseconds of `runs` calls of launch() (one launch of a kernel),
// after one warm-up call. reset() runs before each, untimed (to zero adjoints or put seeds
// back). On a GPU, CUDA events around the launch; under the host emulation, which has no
// events and whose launches return when the kernel has finished, the wall clock.
template <class Reset, class Launch>
double median_ms(int runs, Reset&& reset, Launch&& launch) {
  std::vector<double> times;
#if defined(__CUDACC__)
  cudaEvent_t start, stop;
  CGP_CUDA_CHECK(cudaEventCreate(&start));
  CGP_CUDA_CHECK(cudaEventCreate(&stop));
#endif
  for (int r = 0; r <= runs; ++r) {
    reset();
    CGP_CUDA_SYNC_CHECK();
#if defined(__CUDACC__)
    CGP_CUDA_CHECK(cudaEventRecord(start));
    launch();
    CGP_CUDA_CHECK(cudaEventRecord(stop));
    CGP_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CGP_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
#else
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    CGP_CUDA_CHECK(cudaDeviceSynchronize());
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
#endif
    CGP_CUDA_CHECK(cudaGetLastError());
    if (r > 0) times.push_back(ms);
  }
#if defined(__CUDACC__)
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
#endif
  std::sort(times.begin(), times.end());
  return times.empty() ? 0.0 : times[times.size() / 2];
}

// One line per timed kernel, as tests/cuda/run_on_gpu.sh collects them:
// TIME <kernel> <primal ms> <derivative ms> <derivative / primal>.
inline void print_time(const std::string& kernel, double primal_ms, double derivative_ms) {
  std::printf("TIME %s %.4f %.4f %.2f\n", kernel.c_str(), primal_ms, derivative_ms,
              derivative_ms / primal_ms);
}

// Writes each value's bits, one hexadecimal line each, to `path` (null: nothing), so
// that two builds' gradients can be compared bit for bit with cmp.
inline void dump_bits(const char* path, const std::vector<double>& values) {
  if (!path)
    return;
  FILE* f = std::fopen(path, "w");
  for (double e : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &e, sizeof bits);
    std::fprintf(f, "%016llx\n", static_cast<unsigned long long>(bits));
  }
  std::fclose(f);
}

// Prints a summary line; the exit status for main.
inline int finish() {
  std::printf("%s: %d checks, %d failed\n", checks_failed() ? "FAILED" : "ALL PASSED", checks_run(),
              checks_failed());
  return checks_failed() ? 1 : 0;
}

}  // namespace cgp_cuda_test

#endif  // CGP_CUDA_CHECK_H
