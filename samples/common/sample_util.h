// sample_util.h - helpers shared by the cgp-ad samples' main.cpp files: a deterministic
// random generator, the median time of a call, a central finite-difference check of one
// gradient entry, and the timing and tape-size lines every sample prints.
#ifndef CGP_SAMPLE_UTIL_H
#define CGP_SAMPLE_UTIL_H

#include <cgp/runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace sample {

// A small deterministic generator (64-bit LCG), so every run sees the same data.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed * 2862933555777941757ULL + 3037000493ULL) {}
  double uniform() { // in [0, 1)
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  int below(int n) { return static_cast<int>(uniform() * n); }
  double normal() { // Box-Muller
    double u = uniform() + 1e-300, v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }
};

// Keeps results alive so that the optimizer cannot drop timed calls.
inline volatile double sink = 0.0;

// Median over `runs` samples of the time of one call of f(), in seconds. Each sample
// times enough back-to-back calls to last about a millisecond.
template <class F> double median_seconds(F &&f, int runs = 15) {
  using clock = std::chrono::steady_clock;
  int inner = 1;
  for (;;) { // calibrate the number of calls per sample
    auto t0 = clock::now();
    for (int i = 0; i < inner; ++i) sink = sink + f();
    double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s >= 1e-3 || inner >= (1 << 20)) break;
    inner *= 2;
  }
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto t0 = clock::now();
    for (int i = 0; i < inner; ++i) sink = sink + f();
    times.push_back(std::chrono::duration<double>(clock::now() - t0).count() / inner);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Compares `analytic`, the gradient entry of loss() in p[i], with the central difference
// (loss(p[i] + h) - loss(p[i] - h)) / 2h, h = step * max(1, |p[i]|); prints one row and
// returns whether the relative error is within tol. p[i] is restored afterwards.
template <class F>
bool fd_check(const char *name, int i, double *p, double analytic, F &&loss, double tol = 1e-5,
              double step = 1e-5) {
  double saved = p[i];
  double h = step * std::max(1.0, std::fabs(saved));
  p[i] = saved + h;
  double up = loss();
  p[i] = saved - h;
  double down = loss();
  p[i] = saved;
  double fd = (up - down) / (2.0 * h);
  double scale = std::max({std::fabs(analytic), std::fabs(fd), 1e-8});
  double rel = std::fabs(analytic - fd) / scale;
  bool ok = rel <= tol;
  char label[48];
  std::snprintf(label, sizeof label, "%s[%d]", name, i);
  std::printf("  d/d %-14s grad % .9e   fd % .9e   rel.err %.1e  %s\n", label, analytic, fd, rel,
              ok ? "ok" : "FAILED");
  return ok;
}

// Whether the gradient call returned the primal's value (as interface.md promises; up to
// 1e-12 relative, for compilers that contract a*b+c differently in the two functions);
// prints a line when it did not.
inline bool same_value(double primal, double from_grad) {
  if (std::fabs(primal - from_grad) <= 1e-12 * std::fabs(primal)) return true;
  std::printf("FAILED: the gradient returned %.17g, the primal %.17g\n", from_grad, primal);
  return false;
}

// The timing line: primal and gradient medians and their ratio.
inline void print_timing(double primal_s, double grad_s) {
  std::printf("time: primal %.1f us, gradient %.1f us (medians), gradient/primal = %.2f\n",
              primal_s * 1e6, grad_s * 1e6, grad_s / primal_s);
}

// The tape line: the largest tape any gradient call has held so far.
inline void print_tape() {
  cgp::rt::Stats s = cgp::rt::stats();
  std::printf("peak tape: %llu bytes (%.1f KiB) over %llu gradient calls\n",
              static_cast<unsigned long long>(s.peakTapeBytes), s.peakTapeBytes / 1024.0,
              static_cast<unsigned long long>(s.calls));
}

} // namespace sample

#endif // CGP_SAMPLE_UTIL_H
