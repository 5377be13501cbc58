// stats.cpp - process-wide counters of cgp_rt and the CGP_STATS=1 report.
//
// Counters are relaxed atomics: they are statistics, not synchronisation.
// When CGP_STATS is set to a non-empty value other than 0, one line
// `cgp-stats: {JSON}` goes to stderr at exit (interface.md section 5).
#include "cgp/runtime.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace cgp {
namespace rt {
namespace {
std::atomic<std::uint64_t> gPeakTapeBytes{0};
std::atomic<std::uint64_t> gCalls{0};
std::atomic<std::uint64_t> gRetraces{0};
std::atomic<std::uint64_t> gRecomputedIterations{0};

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

void notePeakTapeBytes(std::size_t bytes) {
  std::uint64_t seen = gPeakTapeBytes.load(std::memory_order_relaxed);
  while (bytes > seen &&
         !gPeakTapeBytes.compare_exchange_weak(seen, bytes, std::memory_order_relaxed)) {
  }
}

void resetCallPeak(); // tape.cpp

void countCall() {
  gCalls.fetch_add(1, std::memory_order_relaxed);
  resetCallPeak();
}
void countRetrace() { gRetraces.fetch_add(1, std::memory_order_relaxed); }
void countRecomputedIterations(std::int64_t n) {
  if (n > 0)
    gRecomputedIterations.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
}

Stats stats() {
  Stats s;
  s.peakTapeBytes = gPeakTapeBytes.load(std::memory_order_relaxed);
  s.calls = gCalls.load(std::memory_order_relaxed);
  s.retraces = gRetraces.load(std::memory_order_relaxed);
  s.recomputedIterations = gRecomputedIterations.load(std::memory_order_relaxed);
  return s;
}

void resetStats() {
  gPeakTapeBytes.store(0, std::memory_order_relaxed);
  gCalls.store(0, std::memory_order_relaxed);
  gRetraces.store(0, std::memory_order_relaxed);
  gRecomputedIterations.store(0, std::memory_order_relaxed);
}

std::string statsLine() {
  Stats s = stats();
  char buffer[256];
  std::snprintf(buffer, sizeof buffer,
                "cgp-stats: {\"peak_tape_bytes\": %llu, \"calls\": %llu, \"retraces\": %llu, "
                "\"recomputed_iterations\": %llu}",
                static_cast<unsigned long long>(s.peakTapeBytes),
                static_cast<unsigned long long>(s.calls),
                static_cast<unsigned long long>(s.retraces),
                static_cast<unsigned long long>(s.recomputedIterations));
  return buffer;
}

} // namespace rt
} // namespace cgp
