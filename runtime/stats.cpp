// stats.cpp - the counters of cgp_rt and the CGP_STATS=1 report.
//
// Counters are relaxed atomics: they are statistics, not synchronisation.
// Each is kept for the whole process and for the gradient that the calling
// thread last entered (countCall(GradientStats&)), so the report gives both.
// When CGP_STATS is set to a non-empty value other than 0, one line
// `cgp-stats: {JSON}` goes to stderr at exit (interface.md section 5).
#include "cgp/runtime.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>

namespace cgp {
namespace rt {

/// One set of counters: the process's, or one gradient's.
struct GradientStats {
  std::string name;
  std::atomic<std::uint64_t> peakTapeBytes{0};
  std::atomic<std::uint64_t> calls{0};
  std::atomic<std::uint64_t> retraces{0};
  std::atomic<std::uint64_t> recomputedIterations{0};

  void notePeak(std::uint64_t bytes) {
    std::uint64_t seen = peakTapeBytes.load(std::memory_order_relaxed);
    while (bytes > seen &&
           !peakTapeBytes.compare_exchange_weak(seen, bytes, std::memory_order_relaxed)) {
    }
  }
  void reset() {
    peakTapeBytes.store(0, std::memory_order_relaxed);
    calls.store(0, std::memory_order_relaxed);
    retraces.store(0, std::memory_order_relaxed);
    recomputedIterations.store(0, std::memory_order_relaxed);
  }
  Stats snapshot() const {
    Stats s;
    s.peakTapeBytes = peakTapeBytes.load(std::memory_order_relaxed);
    s.calls = calls.load(std::memory_order_relaxed);
    s.retraces = retraces.load(std::memory_order_relaxed);
    s.recomputedIterations = recomputedIterations.load(std::memory_order_relaxed);
    return s;
  }
};

namespace {
GradientStats gProcess;
/// The gradients' counters, in the order they were registered; never
/// shrinks, so references handed out stay valid, and never destroyed, so
/// the report at exit can read it whatever the order of destruction.
std::deque<GradientStats> &kernels() {
  static auto *all = new std::deque<GradientStats>;
  return *all;
}
std::mutex &kernelsMutex() {
  static auto *mutex = new std::mutex;
  return *mutex;
}
thread_local GradientStats *tCurrent = nullptr; // the gradient this thread last entered

/// `text` as a JSON string.
std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20)
      continue;
    out += c;
  }
  return out + "\"";
}

std::string countersJson(const Stats &s) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer,
                "{\"peak_tape_bytes\": %llu, \"calls\": %llu, \"retraces\": %llu, "
                "\"recomputed_iterations\": %llu",
                static_cast<unsigned long long>(s.peakTapeBytes),
                static_cast<unsigned long long>(s.calls),
                static_cast<unsigned long long>(s.retraces),
                static_cast<unsigned long long>(s.recomputedIterations));
  return buffer;
}

bool envFlag(const char *name) {
  const char *value = std::getenv(name);
  return value && *value && !(value[0] == '0' && value[1] == '\0');
}

struct StatsReporter {
  ~StatsReporter() {
    if (envFlag("CGP_STATS"))
      std::fprintf(stderr, "%s\n", statsLine().c_str());
  }
};
StatsReporter gReporter;
} // namespace

GradientStats &gradientStats(const char *name) {
  std::lock_guard<std::mutex> lock(kernelsMutex());
  for (GradientStats &k : kernels())
    if (k.name == name)
      return k;
  kernels().emplace_back();
  kernels().back().name = name;
  return kernels().back();
}

void notePeakTapeBytes(std::size_t bytes) {
  gProcess.notePeak(bytes);
  if (tCurrent)
    tCurrent->notePeak(bytes);
}

void resetCallPeak(); // tape.cpp

void countCall() {
  gProcess.calls.fetch_add(1, std::memory_order_relaxed);
  tCurrent = nullptr;
  resetCallPeak();
}

void countCall(GradientStats &kernel) {
  gProcess.calls.fetch_add(1, std::memory_order_relaxed);
  kernel.calls.fetch_add(1, std::memory_order_relaxed);
  tCurrent = &kernel;
  resetCallPeak();
}

void countRetrace() {
  gProcess.retraces.fetch_add(1, std::memory_order_relaxed);
  if (tCurrent)
    tCurrent->retraces.fetch_add(1, std::memory_order_relaxed);
}

void countRecomputedIterations(std::int64_t n) {
  if (n <= 0)
    return;
  gProcess.recomputedIterations.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
  if (tCurrent)
    tCurrent->recomputedIterations.fetch_add(static_cast<std::uint64_t>(n),
                                             std::memory_order_relaxed);
}

const char *currentGradientName() { return tCurrent ? tCurrent->name.c_str() : nullptr; }

Stats stats() { return gProcess.snapshot(); }

Stats stats(const char *name) {
  std::lock_guard<std::mutex> lock(kernelsMutex());
  for (const GradientStats &k : kernels())
    if (k.name == name)
      return k.snapshot();
  return Stats{};
}

void resetStats() {
  gProcess.reset();
  std::lock_guard<std::mutex> lock(kernelsMutex());
  for (GradientStats &k : kernels())
    k.reset();
}

std::string statsLine() {
  // The process's figures first, then each gradient's that ran.
  std::string line = "cgp-stats: " + countersJson(stats()) + ", \"kernels\": {";
  std::lock_guard<std::mutex> lock(kernelsMutex());
  bool first = true;
  for (const GradientStats &k : kernels()) {
    Stats s = k.snapshot();
    if (s.calls == 0)
      continue;
    line += (first ? "" : ", ") + jsonString(k.name) + ": " + countersJson(s) + "}";
    first = false;
  }
  return line + "}}";
}

} // namespace rt
} // namespace cgp
