// checkpoint.cpp - loop checkpoints, the memory budget and loop plans.
//
// A loop keeps to the budget by taking as many snapshots as fit beside one
// taped iteration: s = (budget - bytes in use - what comes after the loop
// - one iteration's tape) / state bytes. Below one snapshot it takes one
// anyway (the minimum a loop needs): the computation never fails over
// memory, and CGP_DEBUG=1 says so.
#include "cgp/checkpoint.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace cgp {
namespace rt {

void countRetrace();                       // stats.cpp
void countRecomputedIterations(std::int64_t n); // stats.cpp

bool parseByteSize(const char *text, std::int64_t &bytes) {
  if (!text)
    return false;
  std::string s(text);
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
    ++i;
  if (i == 0 || i > 15)
    return false;
  std::int64_t n = std::stoll(s.substr(0, i));
  std::string unit = s.substr(i);
  for (char &c : unit)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::int64_t scale;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib")
    scale = std::int64_t(1) << 10;
  else if (unit == "m" || unit == "mb" || unit == "mib")
    scale = std::int64_t(1) << 20;
  else if (unit == "g" || unit == "gb" || unit == "gib")
    scale = std::int64_t(1) << 30;
  else
    return false;
  if (n > (std::int64_t(1) << 62) / scale)
    return false;
  bytes = n * scale;
  return true;
}

bool debugEnabled() {
  static const bool enabled = [] {
    const char *v = std::getenv("CGP_DEBUG");
    return v && *v && !(v[0] == '0' && v[1] == '\0');
  }();
  return enabled;
}

std::int64_t memoryBudget(std::int64_t compiled) {
  const char *env = std::getenv("CGP_MEMORY_BUDGET");
  if (!env || !*env)
    return compiled;
  std::int64_t bytes;
  if (parseByteSize(env, bytes))
    return bytes;
  if (debugEnabled())
    std::fprintf(stderr, "cgp-debug: CGP_MEMORY_BUDGET='%s' is not a size; ignored\n", env);
  return compiled;
}

void endCall(std::int64_t compiledBudget) {
  if (!debugEnabled())
    return;
  std::int64_t budget = memoryBudget(compiledBudget);
  std::size_t peak = callPeakBytes();
  if (budget >= 0 && peak > static_cast<std::size_t>(budget))
    std::fprintf(stderr,
                 "cgp-debug: this call held %zu bytes of tape and snapshots, over the budget "
                 "of %lld bytes: the budget is below what its loops need at the least, or "
                 "a loop could not be checkpointed (see --explain)\n",
                 peak, static_cast<long long>(budget));
}

CheckpointStore &CheckpointStore::current() {
  thread_local CheckpointStore store;
  return store;
}

std::size_t CheckpointStore::acquire(std::size_t bytes) {
  std::size_t offset = used_;
  used_ += bytes;
  if (used_ > buffer_.size())
    buffer_.resize(std::max(used_, buffer_.size() * 2));
  return offset;
}

void CheckpointStore::release(std::size_t offset) { used_ = offset; }

std::size_t checkpointBytes() { return CheckpointStore::current().bytes(); }

int planLoopReversal(LoopSite &site, std::int64_t steps, double iterationBytes,
                     std::size_t stateBytes, double afterBytes, std::int64_t compiledBudget) {
  std::int64_t budget = memoryBudget(compiledBudget);
  int snapshots = 0;
  double inUse = static_cast<double>(Tape::current().bytes() + CheckpointStore::current().bytes());
  if (budget >= 0 && steps > 1 &&
      inUse + afterBytes + static_cast<double>(steps) * iterationBytes > static_cast<double>(budget)) {
    double room = static_cast<double>(budget) - inUse - afterBytes - iterationBytes;
    double fit = stateBytes ? std::floor(room / static_cast<double>(stateBytes)) : 1.0;
    snapshots = fit < 1 ? 1 : fit > static_cast<double>(steps) ? static_cast<int>(steps)
                                                                 : static_cast<int>(fit);
    if (fit < 1 && debugEnabled())
      std::fprintf(stderr,
                   "cgp-debug: budget %lld bytes is below this loop's minimum (one snapshot of "
                   "%zu bytes and one iteration's tape of %.0f bytes, with %.0f in use and "
                   "about %.0f for what follows the loop): using the minimum\n",
                   static_cast<long long>(budget), stateBytes, iterationBytes, inUse,
                   afterBytes);
  }
  bool changed = site.steps != steps || site.snapshots != snapshots || site.budget != budget;
  if (changed) {
    if (site.steps >= 0)
      countRetrace();
    if (debugEnabled()) {
      if (snapshots == 0)
        std::fprintf(stderr, "cgp-debug: %s loop of %lld iterations: tape every iteration "
                     "(about %.0f bytes; budget %s)\n", site.steps >= 0 ? "re-plan:" : "plan:",
                     static_cast<long long>(steps), static_cast<double>(steps) * iterationBytes,
                     budget >= 0 ? std::to_string(budget).c_str() : "none");
      else
        std::fprintf(stderr, "cgp-debug: %s loop of %lld iterations: binomial checkpointing "
                     "with %d snapshots of %zu bytes, %lld replayed iterations (budget %lld)\n",
                     site.steps >= 0 ? "re-plan:" : "plan:", static_cast<long long>(steps),
                     snapshots, stateBytes,
                     static_cast<long long>(optimalReplays(steps, snapshots) - (steps - 1)),
                     static_cast<long long>(budget));
    }
    site.steps = steps;
    site.snapshots = snapshots;
    site.budget = budget;
  }
  return snapshots;
}

void LoopCheckpoints::start(std::int64_t steps, int snapshots, std::size_t stateBytes) {
  finish();
  schedule_.emplace(steps, snapshots);
  stateBytes_ = stateBytes;
  offset_ = store().acquire(static_cast<std::size_t>(snapshots) * stateBytes);
  active_ = true;
  reversed_ = muted_ = false;
  Tape::current().notePeak();
}

void LoopCheckpoints::beginProbe(std::size_t stateBytes) {
  finish();
  stateBytes_ = stateBytes;
  offset_ = store().acquire(stateBytes);
  detail::muteProfile(1); // the probe iteration runs again afterwards
}

void LoopCheckpoints::endProbe() {
  store().release(offset_);
  countRecomputedIterations(1);
  detail::muteProfile(-1);
}

void LoopCheckpoints::finish() {
  if (!active_)
    return;
  std::int64_t steps = schedule_->steps();
  if (steps > 0)
    countRecomputedIterations(schedule_->replayed() - (steps - 1));
  store().release(offset_);
  active_ = false;
  if (muted_)
    detail::muteProfile(-1);
  reversed_ = muted_ = false;
}

} // namespace rt
} // namespace cgp
