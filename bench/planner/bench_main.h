// bench_main.h - shared driver of the planner benchmarks: deterministic
// data, median timing of the primal and the gradient, the peak tape bytes
// of one gradient call, a hash of the gradient's bits (equal under every
// strategy and budget), printed as one line of JSON.
#pragma once
#include <cgp/runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

inline void fill(std::vector<double> &v, double scale, unsigned seed) {
  std::uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (double &x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = scale * (static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5);
  }
}
inline void zero(std::vector<double> &v) { std::fill(v.begin(), v.end(), 0.0); }

inline double median_seconds(const std::function<double()> &fn, int runs) {
  std::vector<double> t;
  volatile double sink = 0;
  for (int r = 0; r < runs; ++r) {
    auto a = std::chrono::steady_clock::now();
    sink = sink + fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// A hash (FNV-1a) of the exact bits of the gradient buffers.
inline std::uint64_t gradient_hash(const std::vector<std::vector<double> *> &outs) {
  std::uint64_t hash = 1469598103934665603ull;
  for (auto *v : outs)
    for (double d : *v) {
      std::uint64_t u;
      std::memcpy(&u, &d, 8);
      hash = (hash ^ u) * 1099511628211ull;
    }
  return hash;
}

inline int report(const char *name, const std::function<double()> &primal,
                  const std::function<double()> &grad, std::vector<std::vector<double> *> outs) {
  const int runs = std::getenv("BENCH_RUNS") ? std::atoi(std::getenv("BENCH_RUNS")) : 7;
  grad(); // warm the tape
  cgp::rt::resetStats();
  double value = grad();
  cgp::rt::Stats s = cgp::rt::stats();
  std::uint64_t hash = gradient_hash(outs);
  double tp = median_seconds(primal, runs);
  double tg = median_seconds(grad, runs);
  std::printf("{\"kernel\": \"%s\", \"value\": %.17g, \"primal_s\": %.6g, \"grad_s\": %.6g, "
              "\"ratio\": %.4g, \"peak_tape_bytes\": %llu, \"recomputed_iterations\": %llu, "
              "\"gradient_hash\": \"%016llx\"}\n",
              name, value, tp, tg, tg / tp, static_cast<unsigned long long>(s.peakTapeBytes),
              static_cast<unsigned long long>(s.recomputedIterations),
              static_cast<unsigned long long>(hash));
  return 0;
}
