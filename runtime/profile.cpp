// profile.cpp - counting for instrumented kernels, and the CGP_PROFILE file
// written at exit.
//
// Counters are relaxed atomics in records that live until the process ends
// (never destroyed, so the writer at exit can read them whatever the order
// of static destructors). A loop's start, its iterations and its end are
// tracked on a per-thread stack of open loops; the end folds the trip
// count, the time and the tape bytes pushed into the loop's counters. A
// loop the kernel leaves without its end hook (none should) is closed at
// the kernel's next call.
#include "cgp/profile.h"

#include "cgp/runtime.h"
#include "profile_data.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace cgp {
namespace rt {

struct SiteCounters {
  ProfileSiteInfo info;
  std::atomic<std::uint64_t> starts{0}, iterations{0}, nanoseconds{0}, tapeBytes{0};
  std::atomic<std::uint64_t> minTrips{UINT64_MAX}, maxTrips{0};
  std::atomic<std::uint64_t> thenCount{0}, elseCount{0};
};

struct KernelRecord {
  std::string kernel, file;
  std::atomic<std::uint64_t> calls{0};
  std::vector<std::unique_ptr<SiteCounters>> sites;
};

namespace {

struct Registry {
  std::mutex lock;
  std::vector<KernelRecord *> kernels;
  std::string path;
};

Registry &registry() {
  static Registry *r = new Registry; // never destroyed: the writer runs at exit
  return *r;
}

thread_local int tMuted = 0;

struct OpenLoop {
  KernelRecord *record;
  int site;
  std::uint64_t trips;
  std::chrono::steady_clock::time_point start;
  std::size_t tapeBytes;
};
thread_local std::vector<OpenLoop> tOpenLoops;

void atomicMin(std::atomic<std::uint64_t> &a, std::uint64_t v) {
  std::uint64_t seen = a.load(std::memory_order_relaxed);
  while (v < seen && !a.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
  }
}
void atomicMax(std::atomic<std::uint64_t> &a, std::uint64_t v) {
  std::uint64_t seen = a.load(std::memory_order_relaxed);
  while (v > seen && !a.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
  }
}

void closeLoop(const OpenLoop &open) {
  SiteCounters &c = *open.record->sites[static_cast<size_t>(open.site)];
  auto elapsed = std::chrono::steady_clock::now() - open.start;
  std::size_t bytes = Tape::current().bytes();
  c.starts.fetch_add(1, std::memory_order_relaxed);
  c.iterations.fetch_add(open.trips, std::memory_order_relaxed);
  c.nanoseconds.fetch_add(static_cast<std::uint64_t>(
                              std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()),
                          std::memory_order_relaxed);
  if (bytes > open.tapeBytes)
    c.tapeBytes.fetch_add(bytes - open.tapeBytes, std::memory_order_relaxed);
  atomicMin(c.minTrips, open.trips);
  atomicMax(c.maxTrips, open.trips);
}

/// The counts since the last write, taken out of the counters (so that a
/// write by hand and the one at exit do not count anything twice).
ProfileData takeCounts() {
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  ProfileData data;
  auto take = [](std::atomic<std::uint64_t> &a, std::uint64_t fresh = 0) {
    return a.exchange(fresh, std::memory_order_relaxed);
  };
  for (KernelRecord *k : r.kernels) {
    ProfileData one;
    KernelStats &stats = one[{k->kernel, k->file}];
    stats.calls = take(k->calls);
    for (const auto &site : k->sites) {
      SitePosition pos{site->info.line, site->info.column};
      if (site->info.kind == ProfileSiteKind::Loop) {
        LoopStats l;
        l.starts = take(site->starts);
        l.iterations = take(site->iterations);
        l.minTrips = take(site->minTrips, UINT64_MAX);
        l.maxTrips = take(site->maxTrips);
        if (l.starts == 0)
          l.minTrips = l.maxTrips = 0;
        l.seconds = static_cast<double>(take(site->nanoseconds)) * 1e-9;
        l.tapeBytes = take(site->tapeBytes);
        stats.loops[pos] = l;
      } else {
        stats.branches[pos] = BranchStats{take(site->thenCount), take(site->elseCount)};
      }
    }
    mergeProfile(data, one); // two records of one kernel: two files of a program
  }
  return data;
}

bool writeMerged(const std::string &path) {
  ProfileData data = takeCounts();
  bool anyCall = false;
  for (const auto &entry : data)
    anyCall |= entry.second.calls > 0;
  if (!anyCall)
    return true; // nothing new: the file stays as it is
  std::ifstream existing(path, std::ios::binary);
  if (existing) {
    std::stringstream text;
    text << existing.rdbuf();
    ProfileData before;
    std::string why;
    if (parseProfile(text.str(), before, why))
      mergeProfile(data, before);
    else
      std::fprintf(stderr,
                   "cgp-profile: warning: '%s' is not a cgp-ad profile (%s); it is replaced\n",
                   path.c_str(), why.c_str());
  }
  std::string temp = path + ".tmp" + std::to_string(static_cast<long>(getpid()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << printProfile(data);
    if (!out.flush()) {
      std::fprintf(stderr, "cgp-profile: error: cannot write '%s'\n", temp.c_str());
      std::remove(temp.c_str());
      return false;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "cgp-profile: error: cannot write '%s'\n", path.c_str());
    std::remove(temp.c_str());
    return false;
  }
  return true;
}

void writeAtExit() { writeProfile(); }

} // namespace

KernelProfile::KernelProfile(const char *kernel, const char *file,
                             std::initializer_list<ProfileSiteInfo> sites) {
  const char *path = std::getenv("CGP_PROFILE");
  if (!path || !*path)
    return;
  auto *record = new KernelRecord; // lives until exit, like the registry
  record->kernel = kernel;
  record->file = file;
  for (const ProfileSiteInfo &info : sites) {
    record->sites.push_back(std::make_unique<SiteCounters>());
    record->sites.back()->info = info;
  }
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  if (r.path.empty()) {
    r.path = path;
    std::atexit(writeAtExit);
  }
  r.kernels.push_back(record);
  record_ = record;
}

void KernelProfile::callBeginSlow() {
  if (tMuted)
    return;
  record_->calls.fetch_add(1, std::memory_order_relaxed);
  while (!tOpenLoops.empty() && tOpenLoops.back().record == record_) {
    closeLoop(tOpenLoops.back());
    tOpenLoops.pop_back();
  }
}

void KernelProfile::loopEnterSlow(int site) {
  if (tMuted)
    return;
  tOpenLoops.push_back(
      OpenLoop{record_, site, 0, std::chrono::steady_clock::now(), Tape::current().bytes()});
}

void KernelProfile::iterateSlow(int site) {
  if (tMuted)
    return;
  for (auto it = tOpenLoops.rbegin(); it != tOpenLoops.rend(); ++it)
    if (it->record == record_ && it->site == site) {
      ++it->trips;
      return;
    }
}

void KernelProfile::loopExitSlow(int site) {
  if (tMuted)
    return;
  for (size_t i = tOpenLoops.size(); i-- > 0;) {
    if (tOpenLoops[i].record != record_ || tOpenLoops[i].site != site)
      continue;
    while (tOpenLoops.size() > i) { // inner loops left open close here too
      closeLoop(tOpenLoops.back());
      tOpenLoops.pop_back();
    }
    return;
  }
}

void KernelProfile::branchSlow(int site, bool thenArm) {
  if (tMuted)
    return;
  SiteCounters &c = *record_->sites[static_cast<size_t>(site)];
  (thenArm ? c.thenCount : c.elseCount).fetch_add(1, std::memory_order_relaxed);
}

bool writeProfile() {
  Registry &r = registry();
  std::string path;
  {
    std::lock_guard<std::mutex> guard(r.lock);
    path = r.path;
  }
  if (path.empty())
    return true;
  return writeMerged(path);
}

namespace detail {
void muteProfile(int delta) { tMuted += delta; }
} // namespace detail

} // namespace rt
} // namespace cgp
