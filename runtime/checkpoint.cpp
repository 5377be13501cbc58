// checkpoint.cpp - loop checkpoints, the memory budget and loop plans.
//
// A loop keeps to the budget by taking as many snapshots as fit beside the
// tape of one segment of k iterations: s = (budget - bytes in use - what
// comes after the loop - k iterations' tape) / state bytes. The plan tries
// segment lengths and keeps the one that replays the fewest iterations
// (k = 1 is classic binomial checkpointing; a k that leaves a snapshot per
// segment replays none). Below one snapshot and one iteration it takes
// those anyway (the minimum a loop needs): the computation never fails
// over memory, and CGP_DEBUG=1 says so.
#include "cgp/checkpoint.h"
#include "cgp/reversal_plan.h"
#include "cgp/schedule.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace cgp {
namespace rt {

using sched::extraReplays;
using sched::planSegments;
using sched::planWithinReplays;
using sched::reverseRuns;
using sched::roomLeft;
using sched::snapshotsThatFit;

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

const char *currentGradientName(); // stats.cpp

/// The line of the loop whose plan the calling thread is making (0: none),
/// set for the while by a DebugLoop.
thread_local int debugLine = 0;

struct DebugLoop {
  explicit DebugLoop(const LoopSite *site) : saved(debugLine) { debugLine = site ? site->line : 0; }
  ~DebugLoop() { debugLine = saved; }
  int saved;
};

/// One CGP_DEBUG line: `cgp-debug: f_grad: line 12: ...`, naming the
/// gradient the calling thread is in and the loop it plans.
static void debugPrint(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void debugPrint(const char *format, ...) {
  char text[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  const char *gradient = currentGradientName();
  char where[32] = "";
  if (debugLine > 0)
    std::snprintf(where, sizeof where, "line %d: ", debugLine);
  std::fprintf(stderr, "cgp-debug: %s%s%s%s", gradient ? gradient : "", gradient ? ": " : "", where,
               text);
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
  // Loops ask at every run (nested ones thousands of times a call): parse
  // each value the variable takes once per thread (parsing took 10% of a
  // nested RNN's gradient).
  thread_local std::string parsedText;
  thread_local bool parsedValid = false;
  thread_local std::int64_t parsedBytes = -1;
  if (parsedText != env) {
    parsedText = env;
    parsedValid = parseByteSize(env, parsedBytes);
    // Said once per process, whatever CGP_DEBUG says: a budget the user
    // set and the program ignores must not go unnoticed.
    static std::atomic<bool> toldMalformed{false};
    if (!parsedValid && !toldMalformed.exchange(true))
      std::fprintf(stderr,
                   "cgp: CGP_MEMORY_BUDGET='%s' is not a size (64MiB, 512KiB, 1GiB or a number of "
                   "bytes); ignored\n",
                   env);
  }
  return parsedValid ? parsedBytes : compiled;
}

void endCall(std::int64_t compiledBudget) {
  // Built without --memory-budget, a gradient applies CGP_MEMORY_BUDGET only
  // to the loops its default plan checkpoints: a call that held more says
  // so, once per process. Looked at only when the variable was set at start,
  // so that a gradient called without it pays a load and a branch.
  static const bool budgetInEnvironment = std::getenv("CGP_MEMORY_BUDGET") != nullptr;
  const bool unplanned = compiledBudget < 0 && budgetInEnvironment;
  if (!unplanned && !debugEnabled())
    return;
  std::int64_t budget = memoryBudget(compiledBudget);
  std::size_t peak = callPeakBytes();
  if (budget < 0 || peak <= static_cast<std::size_t>(budget))
    return;
  static std::atomic<bool> toldUnplanned{false};
  if (unplanned && !toldUnplanned.exchange(true))
    std::fprintf(stderr,
                 "cgp: a gradient held %zu bytes of tape and snapshots, over "
                 "CGP_MEMORY_BUDGET (%lld bytes): it was built without --memory-budget, so "
                 "its loops were not planned to fit one; build it with --memory-budget=SIZE\n",
                 peak, static_cast<long long>(budget));
  if (debugEnabled())
    debugPrint(
                 "this call held %zu bytes of tape and snapshots, over the budget "
                 "of %lld bytes: the budget is below what its loops need at the least, or "
                 "a loop could not be checkpointed (see --explain)\n",
                 peak, static_cast<long long>(budget));
}

CheckpointStore &CheckpointStore::current() {
  thread_local CheckpointStore store;
  return store;
}

CheckpointStore::~CheckpointStore() { std::free(buffer_); }

std::size_t CheckpointStore::acquire(std::size_t bytes) {
  std::size_t offset = used_;
  used_ += bytes;
  if (used_ > capacity_) {
    std::size_t capacity = std::max(used_, capacity_ * 2);
    void *grown = std::realloc(buffer_, capacity);
    if (!grown)
      throw std::bad_alloc();
    buffer_ = static_cast<unsigned char *>(grown);
    capacity_ = capacity;
  }
  return offset;
}

void CheckpointStore::release(std::size_t offset) { used_ = offset; }

std::size_t checkpointBytes() { return CheckpointStore::current().bytes(); }

namespace {

/// Probes (LoopCheckpoints::beginProbe) under way on this thread: the loops
/// inside a probed iteration tape, so that the probe measures all of it and
/// leaves no snapshot behind.
thread_local int probing = 0;

/// Bytes that loops taping their first iterations with loops inside keep
/// for their later iterations (Run::reserved): plans made meanwhile count
/// them as in use.
thread_local double reservedBytes = 0;

/// Whether a loop whose iterations tape at most `iterationBytes`, and
/// sometimes less, should tape its first iterations while they fit
/// (LoopSite::tapeFirst). Checked where every iteration tapes the most:
/// taping the first room / 2 / iterationBytes, with the rest planned in
/// the other half (less `keptBytes`, for a Keep action), must run at most
/// an eighth more iterations again than the plan at entry (`snapshots`,
/// `segment`). It is about as
/// many: the first iterations and the rest's last segment stay on the tape
/// together, as the entry plan's last segment does. When iterations tape
/// less, more of them fit before the switch, and a loop whose whole tape
/// fits is taped whole.
bool tapingFirstPays(double room, double iterationBytes, std::size_t stateBytes,
                     std::int64_t steps, int snapshots, std::int64_t segment,
                     double keptBytes) {
  double first = iterationBytes > 0 ? std::floor(room / 2 / iterationBytes) : 0;
  if (first < 1 || first >= static_cast<double>(steps))
    return false;
  std::int64_t rest = steps - static_cast<std::int64_t>(first);
  double restRoom = room - first * iterationBytes - keptBytes;
  std::int64_t restSegment = 1;
  std::int64_t restRuns = 0;
  if (static_cast<double>(rest) * iterationBytes > restRoom) {
    int restSnapshots = planSegments(restRoom, iterationBytes, stateBytes, rest, restSegment);
    if (restSnapshots == 0)
      return false;
    restRuns = reverseRuns(rest, restSnapshots, restSegment);
  }
  std::int64_t entryRuns = reverseRuns(steps, snapshots, segment);
  return restRuns <= entryRuns + entryRuns / 8 + 1;
}

/// A loop whose whole tape in a call (over all its runs, for a loop inside
/// others) is this small is taped, with no budget: it fits in a core's
/// cache.
constexpr double kSmallTape = 64 * 1024;

/// `bytes`, rounded, and the word: "96 bytes".
std::string wholeBytes(double bytes) {
  return std::to_string(static_cast<long long>(std::llround(bytes))) + " bytes";
}

/// Under CGP_DEBUG, says that `budget` leaves a loop less than its minimum:
/// `snapshots` of `stateBytes` each and `alsoNeeded` (a tape, or room for
/// the loops inside it).
void reportBelowMinimum(std::int64_t budget, const char *snapshots, std::size_t stateBytes,
                        const std::string &alsoNeeded, double inUse, double afterBytes) {
  if (!debugEnabled())
    return;
  debugPrint(
               "budget %lld bytes is below this loop's minimum (%s of %zu bytes and "
               "%s, with %.0f in use and about %.0f for what follows the loop): using the "
               "minimum\n",
               static_cast<long long>(budget), snapshots, stateBytes, alsoNeeded.c_str(), inUse,
               afterBytes);
}

} // namespace

int planLoopReversal(LoopSite &site, std::int64_t steps, double iterationBytes,
                     std::size_t stateBytes, double afterBytes, std::int64_t compiledBudget,
                     bool nestedPlans, double laterLoopsBytes, IterationTapes tapes,
                     double keptBytes, double replayShare, double runsPerCall) {
  if (probing)
    return 0;
  DebugLoop saying(&site);
  std::int64_t budget = memoryBudget(compiledBudget);
  int snapshots = 0;
  std::int64_t segment = 1;
  bool leaveRoom = false, tapeFirst = false;
  double inUse = static_cast<double>(Tape::current().bytes() + CheckpointStore::current().bytes()) +
                 reservedBytes;
  double room = roomLeft(budget, inUse, afterBytes + sched::kLoopRecordBytes, laterLoopsBytes);
  if (budget >= 0 && nestedPlans) {
    // The loops inside plan at their entry, against the bytes in use then;
    // how much one iteration tapes is known only when it runs (a batch of
    // sequences of different lengths), so no probe measured it. Tapes of
    // earlier iterations could leave a later one no room at all, so the
    // loop keeps snapshots, at most half the room, and reverses each
    // iteration on its own, right after replaying it: the loops inside it
    // then plan within what is left.
    leaveRoom = true;
    if (steps > 1) {
      double fit = snapshotsThatFit(room / 2, stateBytes, steps);
      snapshots = fit < 1 ? 1 : static_cast<int>(fit);
      if (fit < 1)
        reportBelowMinimum(budget, "one snapshot", stateBytes, "room for the loops inside it",
                           inUse, afterBytes);
      // What the loop's last run held, taped whole (measured by
      // LoopCheckpoints::nextCounted), scaled to this run's trip count, is
      // less than half the room: tape the iterations first, one at a time,
      // while this run holds less than half the room, the other half kept
      // for the iterations after them, which are planned as above if the
      // first ones took it (other data). Not on a site's first run: there
      // the first iterations could take room a long later one needs.
      tapeFirst = tapes != IterationTapes::Alike && fit >= 1 && site.wholeSteps > 0 &&
                  site.wholeBytes >= 0 &&
                  site.wholeBytes / static_cast<double>(site.wholeSteps) *
                          static_cast<double>(steps) < room / 2;
    }
  } else if (budget >= 0 && steps > 1 && static_cast<double>(steps) * iterationBytes > room) {
    snapshots = planSegments(room, iterationBytes, stateBytes, steps, segment);
    if (snapshots == 0) {
      snapshots = 1;
      reportBelowMinimum(budget, "one snapshot", stateBytes,
                         "one iteration's tape of " + wholeBytes(iterationBytes), inUse,
                         afterBytes);
    } else if (tapes != IterationTapes::Alike) {
      tapeFirst = tapingFirstPays(room, iterationBytes, stateBytes, steps, snapshots, segment,
                                  keptBytes);
    }
  } else if (budget < 0 && replayShare > 0 && steps > 1 && !nestedPlans) {
    // Small is what the loop tapes in a call: a loop inside others runs
    // about `runsPerCall` times, each run's tape kept until its reverse.
    snapshots = planWithinReplays(replayShare, iterationBytes, stateBytes, steps, segment,
                                  kSmallTape / (runsPerCall > 1 ? runsPerCall : 1));
  }
  bool changed = site.steps != steps || site.snapshots != snapshots || site.budget != budget ||
                 site.segment != segment || site.tapeFirst != tapeFirst ||
                 site.replayShare != replayShare;
  // A loop with loops inside that starts taping first, its last run having
  // measured that all of it fits, is not a new plan (no retrace).
  const bool measuredToFit = leaveRoom && tapeFirst && !site.tapeFirst && site.steps == steps &&
                             site.budget == budget && site.snapshots == snapshots;
  // (With another trip count it is a re-plan, counted as before.)
  if (changed) {
    if (site.steps >= 0 && !measuredToFit)
      countRetrace();
    if (debugEnabled()) {
      if (tapeFirst && leaveRoom)
        debugPrint("%s loop of %lld iterations: tape iterations while "
                     "they hold less than half of %.0f bytes, the other half kept for the "
                     "iterations after them; the loops inside it plan their own reversal "
                     "(budget %lld)\n", site.steps >= 0 ? "re-plan:" : "plan:",
                     static_cast<long long>(steps), room, static_cast<long long>(budget));
      else if (snapshots == 0 && leaveRoom)
        debugPrint("%s loop of %lld iterations: tape it, the loops inside "
                     "it plan their own reversal (budget %lld)\n",
                     site.steps >= 0 ? "re-plan:" : "plan:", static_cast<long long>(steps),
                     static_cast<long long>(budget));
      else if (snapshots == 0)
        debugPrint("%s loop of %lld iterations: tape every iteration "
                     "(about %.0f bytes; budget %s)\n", site.steps >= 0 ? "re-plan:" : "plan:",
                     static_cast<long long>(steps), static_cast<double>(steps) * iterationBytes,
                     budget >= 0 ? std::to_string(budget).c_str() : "none");
      else if (budget < 0)
        debugPrint("%s loop of %lld iterations: no budget in force; tape "
                     "the last %lld iterations and run the first %lld again, from %d "
                     "snapshot%s of %zu bytes (the plan's replay allowance: %.1f%% of the "
                     "iterations)\n", site.steps >= 0 ? "re-plan:" : "plan:",
                     static_cast<long long>(steps), static_cast<long long>(segment),
                     static_cast<long long>(steps - segment), snapshots,
                     snapshots == 1 ? "" : "s", stateBytes, 100 * replayShare);
      else if (tapeFirst)
        debugPrint("%s loop of %lld iterations: tape iterations while "
                     "they fit in %.0f bytes (at most %.0f bytes each), then binomial "
                     "checkpointing of the rest with snapshots of %zu bytes in what is left "
                     "(budget %lld)\n", site.steps >= 0 ? "re-plan:" : "plan:",
                     static_cast<long long>(steps), room, iterationBytes, stateBytes,
                     static_cast<long long>(budget));
      else
        debugPrint("%s loop of %lld iterations: binomial checkpointing "
                     "with %d snapshots of %zu bytes, segments of %lld iterations taped at "
                     "once, %lld iterations run again (budget %lld)%s\n",
                     site.steps >= 0 ? "re-plan:" : "plan:", static_cast<long long>(steps),
                     snapshots, stateBytes, static_cast<long long>(segment),
                     static_cast<long long>(reverseRuns(steps, snapshots, segment)),
                     static_cast<long long>(budget),
                     leaveRoom ? "; half the room left to the loops inside it" : "");
    }
    site.steps = steps;
    site.snapshots = snapshots;
    site.budget = budget;
    site.segment = segment;
    site.tapeFirst = tapeFirst;
    site.replayShare = replayShare;
  }
  site.keptBytes = tapes == IterationTapes::UnevenlyKeepingLocals ? keptBytes : 0;
  site.leavesRoom = leaveRoom;
  site.room = room;
  site.iterationBytes = iterationBytes;
  return snapshots;
}

int planOnlineReversal(LoopSite &site, double iterationBytes, std::size_t stateBytes,
                       double afterBytes, std::int64_t compiledBudget, bool nestedPlans,
                       bool mostBytes, double laterLoopsBytes) {
  std::int64_t budget = memoryBudget(compiledBudget);
  if (budget < 0 || probing)
    return 0;
  DebugLoop saying(&site);
  double inUse = static_cast<double>(Tape::current().bytes() + CheckpointStore::current().bytes()) +
                 reservedBytes;
  double room = roomLeft(budget, inUse, afterBytes + sched::kLoopRecordBytes, laterLoopsBytes);
  // The trip count is unknown: half the room for a segment's tape, the rest
  // for snapshots (one more slot than the schedule's count, see
  // startOnline()), at most kMaxOnlineSnapshots of them: with half of them
  // taken while the loop runs, each stretch is at most 1/512 of the loop.
  const double kMaxOnlineSnapshots = 1024;
  // A probe measured one iteration; in a loop that stops on its data the
  // iterations often take different branches and tape more or less: plan
  // for twice the measured size (unless it is the most one can tape).
  double perIteration = (mostBytes ? 1 : 2) * std::max(iterationBytes, 1.0);
  std::int64_t segment = 1;
  double fit = kMaxOnlineSnapshots;
  bool leaveRoom = nestedPlans;
  if (nestedPlans) {
    // As planLoopReversal: no probe measured an iteration; half the room
    // for snapshots, and each iteration reversed on its own, right after
    // its replay, with the loops inside it planning within the rest.
    if (stateBytes)
      fit = std::floor(room / 2 / static_cast<double>(stateBytes)) - 1;
  } else {
    segment =
        std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(room / 2 / perIteration)));
    if (stateBytes)
      fit = std::floor((room - static_cast<double>(segment) * perIteration) /
                       static_cast<double>(stateBytes)) - 1;
  }
  site.leavesRoom = leaveRoom;
  int snapshots = static_cast<int>(std::max(1.0, std::min(fit, kMaxOnlineSnapshots)));
  if (fit < 1)
    reportBelowMinimum(budget, "two snapshots", stateBytes,
                       "one iteration's tape of " + wholeBytes(iterationBytes), inUse, afterBytes);
  bool changed = site.snapshots != snapshots || site.budget != budget || site.segment != segment;
  if (changed) {
    if (site.snapshots >= 0)
      countRetrace();
    if (debugEnabled())
      debugPrint(
                   "%s loop of unknown trip count: online checkpointing with up to %d "
                   "snapshots of %zu bytes, segments of %lld iterations taped at once (budget "
                   "%lld)%s\n",
                   site.snapshots >= 0 ? "re-plan:" : "plan:", snapshots, stateBytes,
                   static_cast<long long>(segment), static_cast<long long>(budget),
                   leaveRoom ? "; half the room left to the loops inside it" : "");
    site.snapshots = snapshots;
    site.budget = budget;
    site.segment = segment;
  }
  return snapshots;
}

/// One run of the loop: its schedule, where its snapshots are, and
/// where its schedule stands. suspend() puts it aside, resume() takes it
/// back.
struct LoopCheckpoints::Run {
  // Every iteration taped (a plan of no snapshots): one Tape action, then
  // one Reverse action (wholeStage counts them).
  bool whole = false;
  int wholeStage = 0;
  std::optional<BinomialSchedule> schedule;
  std::optional<StretchSchedule> stretches;
  std::size_t offset = 0, stateBytes = 0; // its snapshots in the store
  bool reversed = false;                  // a Reverse action came (see next())
  bool held = false;                      // next() gives `last` again (see hold())
  ScheduleAction last;
  // A plan that tapes first (LoopSite::tapeFirst): the loop's iterations,
  // the first `taped` of them taped before any schedule (while
  // `tapingFirst`), the tape's size when they began, and the room and
  // most bytes per iteration of the plan. The schedule covers [taped,
  // total), its steps shifted by `taped`.
  std::int64_t total = 0, taped = 0;
  std::size_t tapeStart = 0, storeStart = 0;
  double room = 0, iterationBytes = 0, keptBytes = 0;
  bool tapingFirst = false, tapedReversed = false;
  // Loops inside plan their own reversal (LoopSite::leavesRoom): taped
  // one iteration at a time while what the run holds stays under half
  // its room, and the other half is reserved (`reserved`) so that
  // the loops inside plan within the first: the rest of the iterations
  // always find half the room.
  bool nested = false;
  double reserved = 0;
  // With loops inside (nextCounted() measures): what the run held before
  // its last Tape action, the most one iteration held taped, what all of
  // them held, how many were measured (each is taped once), and the site
  // the run plans for.
  double heldBefore = 0, mostHeld = 0;
  double wholeBytes = 0;
  std::int64_t measured = 0;
  bool measuring = false;
  LoopSite *site = nullptr;
  bool restDone = false; // the schedule of the rest ended, its snapshots released
  bool pastHalf = false; // tapeNext() went past half the room once
  // With keptBytes > 0, the body's own variables are kept where the
  // iterations taped first end: the Keep actions given so far.
  bool kept = false, keptBack = false;
};

struct LoopCheckpoints::Runs {
  Run run;
  std::vector<Run> suspended;
};

namespace {
CheckpointStore &store() { return CheckpointStore::current(); }
} // namespace

LoopCheckpoints::LoopCheckpoints() : runs_(new Runs) {}
LoopCheckpoints::~LoopCheckpoints() { delete runs_; }

unsigned char *LoopCheckpoints::slotAt(int slot) {
  return store().at(runs().run.offset + static_cast<std::size_t>(slot) * runs().run.stateBytes);
}

void LoopCheckpoints::hold() { runs().run.held = true; }

ScheduleAction LoopCheckpoints::next() {
  // Past the first Reverse action (which ends the forward sweep, its last
  // segment taped), iterations run again: a profile does not count them.
  if (CGP_RT_UNLIKELY(runs().run.reversed && !muted_)) {
    muted_ = true;
    detail::muteProfile(1);
  }
  if (CGP_RT_UNLIKELY(runs().run.held)) {
    runs().run.held = false;
    return runs().run.last;
  }
  runs().run.last = runs().run.stretches ? runs().run.stretches->next() : nextCounted();
  if (runs().run.last.isReverse()) {
    runs().run.reversed = true;
    Tape::current().notePeak(); // a taped segment is the tape's high point
  }
  return runs().run.last;
}

std::int64_t LoopCheckpoints::steps() const {
  return runs().run.stretches  ? runs().run.stretches->steps()
         : runs().run.schedule ? runs().run.taped + runs().run.schedule->steps()
                         : runs().run.total;
}

void LoopCheckpoints::beginRun(std::int64_t steps, std::size_t stateBytes) {
  finish();
  runs().run = Run();
  runs().run.total = steps;
  runs().run.stateBytes = stateBytes;
  active_ = true;
  muted_ = false;
}

void LoopCheckpoints::startWhole(std::int64_t steps, std::size_t stateBytes) {
  beginRun(steps, stateBytes);
  runs().run.whole = true;
  runs().run.offset = store().bytes(); // no snapshots: finish() releases nothing
}

void LoopCheckpoints::start(std::int64_t steps, int snapshots, std::size_t stateBytes,
                            std::int64_t segment) {
  if (snapshots == 0)
    return startWhole(steps, stateBytes);
  beginRun(steps, stateBytes);
  runs().run.schedule.emplace(steps, snapshots, segment);
  runs().run.offset = store().acquire(static_cast<std::size_t>(snapshots) * stateBytes);
  Tape::current().notePeak();
}

void LoopCheckpoints::start(std::int64_t steps, int snapshots, std::size_t stateBytes,
                            LoopSite &site) {
  if (snapshots == 0)
    return startWhole(steps, stateBytes);
  if (!site.tapeFirst) {
    start(steps, snapshots, stateBytes, site.segment);
    runs().run.site = &site;
    runs().run.nested = site.leavesRoom;
    return;
  }
  beginRun(steps, stateBytes);
  runs().run.offset = runs().run.storeStart = store().bytes(); // no snapshots yet: planRest() takes them
  runs().run.tapeStart = Tape::current().bytes();
  runs().run.room = site.room;
  runs().run.iterationBytes = std::max(site.iterationBytes, 1.0);
  runs().run.keptBytes = site.keptBytes;
  runs().run.tapingFirst = true;
  runs().run.site = &site;
  runs().run.nested = site.leavesRoom;
  if (runs().run.nested) {
    runs().run.reserved = std::max(runs().run.room, 0.0) / 2;
    reservedBytes += runs().run.reserved;
  }
  Tape::current().notePeak();
}

ScheduleAction LoopCheckpoints::nextCounted() {
  if (!runs().run.nested)
    return nextCountedAction();
  // With loops inside: measure what each iteration holds, taped, so that
  // the next run of this site, if it all fits in half its room, tapes
  // first (planLoopReversal).
  if (runs().run.measuring) {
    const double held = heldSinceStart() - runs().run.heldBefore;
    runs().run.measuring = false;
    runs().run.wholeBytes += held;
    runs().run.mostHeld = std::max(runs().run.mostHeld, held);
    ++runs().run.measured;
  }
  ScheduleAction a = nextCountedAction();
  if (a.isTape()) {
    runs().run.heldBefore = heldSinceStart();
    runs().run.measuring = true;
  }
  return a;
}

ScheduleAction LoopCheckpoints::nextCountedAction() {
  ScheduleAction a;
  if (runs().run.whole) {
    // Every iteration taped at once, then reversed at once.
    if (runs().run.wholeStage < 2) {
      a.kind = runs().run.wholeStage == 0 ? ScheduleAction::Tape : ScheduleAction::Reverse;
      a.step = 0;
      a.to = runs().run.total;
      ++runs().run.wholeStage;
    }
    return a;
  }
  if (CGP_RT_UNLIKELY(runs().run.tapingFirst)) {
    const std::int64_t left = runs().run.total - runs().run.taped;
    const double used = heldSinceStart();
    std::int64_t count = 0;
    if (runs().run.nested && !runs().run.kept) {
      // With loops inside, one iteration at a time: what it will hold is
      // known only when its loops have run. The next one is taped while
      // what is left of the first half holds as much as the most an
      // iteration held so far: the loops inside it plan within that half,
      // and get at least what the same loops needed before.
      if (left > 0 && used + runs().run.mostHeld < runs().run.room / 2)
        count = 1;
    } else if (!runs().run.kept) {
      count = tapeNext(left, runs().run.room - used);
    }
    if (count > 0) {
      a.kind = ScheduleAction::Tape;
      a.step = runs().run.taped;
      a.to = runs().run.taped += count;
      return a;
    }
    if (left > 0 && runs().run.keptBytes > 0 && !runs().run.kept) {
      // The body's own variables go on the tape before the rest is planned
      // (their bytes count in what is taped).
      runs().run.kept = true;
      a.kind = ScheduleAction::Keep;
      a.step = a.to = runs().run.taped;
      return a;
    }
    runs().run.tapingFirst = false;
    releaseReserve();
    if (left > 0)
      planRest();
  }
  if (runs().run.schedule && !runs().run.restDone) {
    a = runs().run.schedule->next();
    if (a.kind != ScheduleAction::Done) {
      a.step += runs().run.taped;
      if (a.isAdvance() || a.isTape() || a.isReverse())
        a.to += runs().run.taped;
      return a;
    }
    if (runs().run.taped > 0) {
      // The rest is reversed: its snapshots go, and what the iterations
      // taped first left in the store (loops inside them, put aside) is
      // on top again.
      runs().run.restDone = true;
      store().release(runs().run.offset);
      runs().run.offset = runs().run.storeStart;
    }
  }
  if (runs().run.kept && !runs().run.keptBack) {
    // The rest is reversed: the body's own variables, kept after the
    // iterations taped first, are on top of the tape.
    runs().run.keptBack = true;
    a.kind = ScheduleAction::Keep;
    a.step = a.to = runs().run.taped;
    return a;
  }
  if (runs().run.taped > 0 && !runs().run.tapedReversed) {
    // The iterations taped first: their tape is on top again.
    runs().run.tapedReversed = true;
    a.kind = ScheduleAction::Reverse;
    a.step = 0;
    a.to = runs().run.taped;
  }
  return a;
}

std::int64_t LoopCheckpoints::tapeNext(std::int64_t left, double room) {
  const double most = runs().run.iterationBytes;
  if (static_cast<double>(left) * most <= room)
    return left; // all that are left fit, even if each tapes the most
  // Tape as many more as, at the most each, keep what is taped within half
  // the loop's room: the rest keeps half of it at least. Where they stop,
  // the rest also loses what a Keep action pushes.
  const double taped = runs().run.room - room;
  room -= runs().run.keptBytes;
  std::int64_t count = static_cast<std::int64_t>(std::min(
      std::floor(((runs().run.room - runs().run.keptBytes) / 2 - taped) / most), static_cast<double>(left)));
  if (count >= 1)
    return count;
  // Past half the room, once: the most iterations that, at the most each,
  // leave the rest a plan that runs no more iterations again than stopping
  // now. Taping an iteration shortens the rest as much as its worst case
  // shrinks the rest's room, so this holds until the rest is left too few
  // snapshots. Once only: each estimate is a plan of its own (about a
  // microsecond), and the loops that gain are those whose iterations tape
  // much less than the most, which the half above has already taped.
  if (runs().run.pastHalf)
    return 0;
  runs().run.pastHalf = true;
  auto runsAgain = [&](std::int64_t rest, double restRoom) {
    std::int64_t segment = 1;
    int snapshots = planSegments(restRoom, most, runs().run.stateBytes, rest, segment);
    return snapshots == 0 ? std::numeric_limits<std::int64_t>::max()
                          : reverseRuns(rest, snapshots, segment);
  };
  const std::int64_t now = runsAgain(left, room);
  std::int64_t good = 0;
  std::int64_t bad = static_cast<std::int64_t>(
                         std::min(std::floor(room / most), static_cast<double>(left))) +
                     1;
  while (bad - good > 1) { // bisection: `good` passes, `bad` fails (or is out of reach)
    std::int64_t mid = good + (bad - good) / 2;
    (runsAgain(left - mid, room - static_cast<double>(mid) * most) <= now ? good : bad) = mid;
  }
  return good;
}

double LoopCheckpoints::heldSinceStart() const {
  return static_cast<double>(Tape::current().bytes() - runs().run.tapeStart) +
         static_cast<double>(store().bytes() - runs().run.storeStart);
}

void LoopCheckpoints::releaseReserve() {
  reservedBytes -= runs().run.reserved;
  runs().run.reserved = 0;
}

void LoopCheckpoints::planRest() {
  DebugLoop saying(runs().run.site);
  const std::int64_t rest = runs().run.total - runs().run.taped;
  const double room = runs().run.room - heldSinceStart();
  std::int64_t segment = 1;
  // tapeNext() stopped while the rest's minimum (a snapshot and an
  // iteration, at the most) still fits. With loops inside: snapshots in
  // at most half of what is left, one iteration reversed at a time, as
  // planLoopReversal plans such a loop at its entry.
  int snapshots =
      runs().run.nested
          ? static_cast<int>(std::max(1.0, snapshotsThatFit(room / 2, runs().run.stateBytes, rest)))
          : std::max(1, planSegments(room, runs().run.iterationBytes, runs().run.stateBytes, rest, segment));
  runs().run.schedule.emplace(rest, snapshots, segment);
  runs().run.offset = store().acquire(static_cast<std::size_t>(snapshots) * runs().run.stateBytes);
  // Said when the split moves (a loop in another runs many times alike).
  thread_local std::int64_t saidTotal = -1, saidTaped = -1;
  if (debugEnabled() && (saidTotal != runs().run.total || saidTaped != runs().run.taped)) {
    saidTotal = runs().run.total;
    saidTaped = runs().run.taped;
    debugPrint("loop of %lld iterations: the first %lld taped (%.0f "
                 "bytes), then binomial checkpointing of the rest with %d snapshots, segments "
                 "of %lld iterations, %lld iterations run again\n",
                 static_cast<long long>(runs().run.total), static_cast<long long>(runs().run.taped),
                 runs().run.room - room, snapshots, static_cast<long long>(segment),
                 static_cast<long long>(reverseRuns(rest, snapshots, segment)));
  }
}

void LoopCheckpoints::startOnline(int snapshots, std::size_t stateBytes, std::int64_t segment) {
  beginRun(0, stateBytes); // the trip count comes with endOnline()
  snapshots_ = std::max(snapshots, 1);
  onlineSlots_ = std::max(snapshots_ / 2, 1);
  segment_ = segment;
  runs().run.offset = store().acquire(static_cast<std::size_t>(snapshots_ + 1) * stateBytes);
  stride_ = 1;
  taken_ = 0;
  nextDue_ = 0;
  Tape::current().notePeak();
}

bool LoopCheckpoints::makeRoom(std::int64_t n) {
  if (taken_ == onlineSlots_) {
    // Keep the snapshots before iterations 0, 2d, 4d, ...: slot i gets
    // what slot 2i held.
    for (int i = 1; 2 * i < taken_; ++i)
      std::memcpy(slotAt(i), slotAt(2 * i), runs().run.stateBytes);
    taken_ = (taken_ + 1) / 2;
    stride_ *= 2;
    nextDue_ = taken_ * stride_;
    if (n != nextDue_)
      return false;
  }
  beginSave(taken_);
  ++taken_;
  nextDue_ = taken_ * stride_;
  return true;
}

void LoopCheckpoints::endOnline(std::int64_t trips) {
  nextDue_ = -1;
  runs().run.stretches.emplace(trips, taken_, stride_, snapshots_, segment_);
}

void LoopCheckpoints::suspend() {
  // muted_ is false here: the forward phase ends at the action that sets
  // runs().run.reversed, before the next() that would mute the profile.
  runs().suspended.push_back(std::move(runs().run));
  runs().run = Run();
  active_ = false;
}

void LoopCheckpoints::resume() {
  runs().run = std::move(runs().suspended.back());
  runs().suspended.pop_back();
  active_ = true;
  muted_ = false;
  nextDue_ = -1;
}

void LoopCheckpoints::beginProbe(std::size_t stateBytes) {
  finish();
  ++probing;
  runs().run.stateBytes = stateBytes;
  runs().run.offset = store().acquire(stateBytes);
  detail::muteProfile(1); // the probe iteration runs again afterwards
}

void LoopCheckpoints::endProbe() {
  --probing;
  store().release(runs().run.offset);
  countRecomputedIterations(1);
  detail::muteProfile(-1);
}

void LoopCheckpoints::finish() {
  if (!active_)
    return;
  releaseReserve();
  if (runs().run.site && runs().run.nested) {
    // Every iteration measured (each was taped once, by a Tape action):
    // what the whole loop holds taped, for the next plan at this site.
    bool whole = runs().run.measured == runs().run.total && !probing;
    runs().run.site->wholeBytes = whole ? runs().run.wholeBytes : -1;
    runs().run.site->wholeSteps = runs().run.total;
  }
  // Every iteration is taped once; what else ran is recomputation: the
  // untaped Advance runs (those of the forward sweep included: the
  // iterations they ran are taped again later), and for a loop planned
  // online its whole untaped forward run.
  if (runs().run.schedule && runs().run.schedule->steps() > 0)
    countRecomputedIterations(runs().run.schedule->replayed());
  if (runs().run.stretches)
    countRecomputedIterations(runs().run.stretches->steps() + runs().run.stretches->replayed());
  runs().run.schedule.reset();
  runs().run.stretches.reset();
  nextDue_ = -1;
  store().release(runs().run.offset);
  active_ = false;
  if (muted_)
    detail::muteProfile(-1);
  runs().run.reversed = muted_ = runs().run.held = false;
}

} // namespace rt
} // namespace cgp
