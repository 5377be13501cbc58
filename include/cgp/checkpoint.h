// cgp/checkpoint.h - loop checkpoints: what generated code calls to reverse a
// loop without taping every iteration.
//
// At the entry of a loop whose trip count it knows, a gradient asks
// planLoopReversal() whether the loop's tape fits the memory budget. If it
// does not, the loop keeps snapshots of its state (the variables its body
// writes) in a LoopCheckpoints and follows a BinomialSchedule: the forward
// sweep runs the loop up to its last segment, taking snapshots on the way;
// the reverse sweep restores snapshots, replays iterations untaped, and runs
// each segment of iterations taped right before reversing it (a segment is
// as many iterations as the budget leaves tape room for, next to the
// snapshots; planLoopReversal picks the length). Snapshot memory comes
// from a thread-local store that keeps its storage between calls, and it
// counts in peak_tape_bytes.
#ifndef CGP_CHECKPOINT_H
#define CGP_CHECKPOINT_H

#include "cgp/profile.h"
#include "cgp/schedule_action.h"
#include "cgp/snapshot_cursor.h"
#include "cgp/tape.h"

#include <cstdint>
#include <cstring>

namespace cgp {
namespace rt {

/// Reads a size: plain bytes, or a number with KiB, MiB or GiB (K, M, G
/// and KB, MB, GB mean the same binary units). Returns false if malformed.
bool parseByteSize(const char *text, std::int64_t &bytes);

/// The budget in force: CGP_MEMORY_BUDGET if set, else `compiled` (-1 for
/// none). A malformed CGP_MEMORY_BUDGET is ignored, and said on stderr once
/// per process.
std::int64_t memoryBudget(std::int64_t compiled);

/// True when CGP_DEBUG is set to a non-empty value other than 0.
bool debugEnabled();

/// At the end of a gradient: under CGP_DEBUG=1, says if the call held more
/// than the budget (a loop that could not be checkpointed, or a budget
/// below the minimum). For a gradient built without --memory-budget
/// (`compiledBudget` -1) that held more than CGP_MEMORY_BUDGET, says so once
/// per process, whatever CGP_DEBUG says.
void endCall(std::int64_t compiledBudget);

/// Thread-local storage for snapshots, used last-in first-out.
class CheckpointStore {
public:
  CheckpointStore() = default;
  CheckpointStore(const CheckpointStore &) = delete;
  CheckpointStore &operator=(const CheckpointStore &) = delete;
  ~CheckpointStore();
  static CheckpointStore &current();
  std::size_t acquire(std::size_t bytes); // returns an offset
  void release(std::size_t offset);       // frees everything from offset on
  unsigned char *at(std::size_t offset) { return buffer_ + offset; }
  std::size_t bytes() const { return used_; }

private:
  unsigned char *buffer_ = nullptr; // grown by acquire(), never shrunk
  std::size_t capacity_ = 0, used_ = 0;
};

/// What the iterations of a counted loop tape, as the tool knows it when
/// compiling (planLoopReversal's last argument): the same bytes each, or
/// amounts that vary, so that the loop may tape its first iterations while
/// they fit. `UnevenlyKeepingLocals`: and its body tapes old values of
/// variables declared in it, which its snapshots leave out; where the
/// iterations taped first end, a Keep action pushes their values, and the
/// reverse sweep's Keep action pops them back before reversing those
/// iterations (the reverse of the last of them reads them, and the next
/// iteration, whose reverse restores them in a plain tape, ran again from
/// a snapshot that does not hold them).
enum class IterationTapes { Alike, Unevenly, UnevenlyKeepingLocals };

/// The elements [first, end) of a caller's buffer that a loop overwrites
/// in place, which its snapshots hold: generated code adds, at the loop's
/// entry, the span each of the loop's assignments writes over all its
/// iterations, and the union of those spans (with whatever lies between)
/// is what a snapshot copies.
struct ElementSpan {
  std::int64_t first = 0, end = 0;
  /// Widens the span to hold [low, high) (nothing if that is empty).
  void add(std::int64_t low, std::int64_t high) {
    if (high <= low)
      return;
    if (end <= first) {
      first = low;
      end = high;
    } else {
      first = low < first ? low : first;
      end = high > end ? high : end;
    }
  }
  std::size_t size() const { return end > first ? static_cast<std::size_t>(end - first) : 0; }
};

/// What one loop site (a loop in the generated code) decided last time, to
/// count re-plans ("retraces").
struct LoopSite {
  /// The loop's line in the kernel's source, which CGP_DEBUG names (0:
  /// not known).
  constexpr explicit LoopSite(int sourceLine = 0) : line(sourceLine) {}
  int line = 0;
  std::int64_t steps = -1;
  int snapshots = -1;
  std::int64_t budget = -2;
  std::int64_t segment = 1; // iterations taped at once (with snapshots > 0)
  /// Loops inside this one measure and plan their own reversal (else they
  /// tape): set by the last plan, with nestedPlans and a budget in force.
  bool leavesRoom = false;
  /// The plan tapes iterations first, while they fit, and plans the rest
  /// when they stop fitting (LoopCheckpoints::start): set when what an
  /// iteration tapes varies, so that `iterationBytes` is only the most, or
  /// when loops inside plan their own reversal (with leavesRoom).
  /// `room` is what the loop may hold, tape and snapshots, from its entry.
  bool tapeFirst = false;
  /// What its Keep action pushes (IterationTapes::UnevenlyKeepingLocals;
  /// 0: no Keep action).
  double keptBytes = 0;
  double room = 0;
  double iterationBytes = 0;
  /// The replay share the last plan was made with (retraces count changes).
  double replayShare = 0;
  /// With loops inside that plan: the tape and snapshot bytes its last run
  /// of `wholeSteps` iterations held, all of them taped (-1: not known).
  double wholeBytes = -1;
  std::int64_t wholeSteps = -1;
};

/// How to reverse a loop of `steps` iterations whose taped iterations take
/// about `iterationBytes` each and whose state takes `stateBytes`: 0 to
/// tape every iteration, else the number of snapshots (>= 1) that keeps the
/// tape and the snapshots within the budget (`compiledBudget`, or
/// CGP_MEMORY_BUDGET), with `site.segment` set to the number of iterations
/// to tape at once: the pair that replays the fewest iterations.
/// `afterBytes` estimates what the code after the loop will push, outside
/// loops that plan their own reversal; those would tape `laterLoopsBytes`
/// whole, and get that much room at most, or half of what is left.
/// `nestedPlans`: the loop's body holds loops that plan their own reversal
/// at their entry, so what one iteration tapes is known only when it runs
/// (`iterationBytes` is not used): under a budget, the loop keeps snapshots
/// in at most half the room, one iteration per segment (none for a single
/// iteration), and leaves the rest to them. With `tapes` other than Alike
/// it first tapes its iterations, one at a time, while the run holds less
/// than half the room, with the other half reserved, so that the loops
/// inside plan within the first half (site.tapeFirst); the iterations left
/// then get the nested plan above in what is left, at least half the room.
/// When all of it fits, nothing runs twice. While a probe measures an
/// iteration of an enclosing loop, every loop tapes (returns 0).
/// `tapes`: whether iterations tape alike or unevenly (by their branches,
/// or as inner loops a probe measured once), `iterationBytes` being then
/// the most (or one measure). Unevenly, unless loops inside plan, the loop
/// may tape its iterations while they fit and plan the rest in the room
/// they actually left (site.tapeFirst, when taping the first half of the
/// room's worth, at the most each, would not run many more iterations
/// again than the plan at entry): a loop whose costly branch runs rarely
/// then tapes whole, as its tape fits. `keptBytes`: what its Keep action
/// pushes (IterationTapes::UnevenlyKeepingLocals), kept out of the room
/// of the rest.
/// `replayShare`: with no budget in force, the share of the loop's
/// iterations the default plan may run again in the reverse sweep (its
/// part of the replay allowance, PlanOptions::replayAllowance): the plan
/// tapes the last iterations and keeps snapshots for the first ones,
/// running at most that share again, with the least memory. 0 (the
/// default), no gain in memory or a whole tape of at most 64 KiB in a call:
/// tape every iteration. `runsPerCall`: for a loop inside others, about how
/// often it runs in a call (the tool's estimate), each run's tape or
/// snapshots kept until the reverse sweep reverses it.
int planLoopReversal(LoopSite &site, std::int64_t steps, double iterationBytes,
                     std::size_t stateBytes, double afterBytes, std::int64_t compiledBudget,
                     bool nestedPlans = false, double laterLoopsBytes = 0,
                     IterationTapes tapes = IterationTapes::Alike, double keptBytes = 0,
                     double replayShare = 0, double runsPerCall = 1);

/// How to reverse a loop whose trip count is unknown at its entry: 0 to
/// tape every iteration (no budget in force), else the most snapshot slots
/// online checkpointing may use (LoopCheckpoints::startOnline), with
/// `site.segment` set to the iterations to tape at once, all within the
/// budget. Said under CGP_DEBUG=1 when it changes. `iterationBytes` comes
/// from a probe of one iteration, and the plan allows for twice that,
/// unless `mostBytes` says it is the most any iteration tapes.
int planOnlineReversal(LoopSite &site, double iterationBytes, std::size_t stateBytes,
                       double afterBytes, std::int64_t compiledBudget, bool nestedPlans = false,
                       bool mostBytes = false, double laterLoopsBytes = 0);

/// The snapshots and schedule of one run of a checkpointed loop.
class LoopCheckpoints : public sched::SnapshotCursor {
public:
  LoopCheckpoints();
  ~LoopCheckpoints();
  LoopCheckpoints(const LoopCheckpoints &) = delete;
  LoopCheckpoints &operator=(const LoopCheckpoints &) = delete;
  // Generated code declares it `thread_local`, like its LoopSite: a local
  // object with a destructor gives the gradient cleanup paths at every call
  // that may throw, and with them GCC kept the MoE benchmark's accumulators
  // in memory in the hot loops (1.9x store-all's time with the code that
  // could checkpoint, 1.0-1.1x without cleanup paths). A kernel's gradient
  // does not call itself, so one object per loop and thread is enough;
  // each start() begins a fresh run, and it keeps its storage between calls.
  // Its state (the schedules) lives in checkpoint.cpp, so that this header,
  // which generated code includes, needs no standard containers.

  /// A run of `steps` iterations with `snapshots` slots on segments of
  /// `segment` iterations; with no snapshots, a run that tapes every
  /// iteration: one Tape action of them all, then one Reverse action.
  void start(std::int64_t steps, int snapshots, std::size_t stateBytes, std::int64_t segment = 1);
  /// As above, with the segment of `site`'s plan; when that plan tapes
  /// first (site.tapeFirst), the schedule begins with Tape actions of the
  /// first iterations: all that are left when, at the most each, they fit
  /// in what the bytes actually pushed leave of site.room; else a few more
  /// as long as, at the most each, they leave the rest a plan that runs no
  /// more iterations again (tapeNext()). Past them, a BinomialSchedule over
  /// the rest, in the room that is left, and, after it, one Reverse action
  /// of the iterations taped first.
  void start(std::int64_t steps, int snapshots, std::size_t stateBytes, LoopSite &site);

  /// A loop whose trip count is unknown at its entry (a while loop), run
  /// untaped: up to `snapshots` slots, half of them for the snapshots the
  /// loop takes while it runs (the rest serve the reverse of each stretch).
  void startOnline(int snapshots, std::size_t stateBytes, std::int64_t segment);
  /// Before iteration n of such a loop (0, 1, ... in order): true if its
  /// state is to be saved now, with put(). Every d-th iteration; when the
  /// slots fill up, every other snapshot is dropped and d doubles.
  bool due(std::int64_t n) { return CGP_RT_UNLIKELY(n == nextDue_) && makeRoom(n); }
  /// The loop ended after `trips` iterations: from here on, next() gives
  /// the actions that reverse it (a StretchSchedule).
  void endOnline(std::int64_t trips);

  /// The next action of the schedule.
  ScheduleAction next();
  /// The forward sweep stopped at a Reverse action (or Done): the reverse
  /// sweep's first next() gives it again.
  void hold();
  /// A loop nested in another loop runs many times before the first of
  /// those runs is reversed: after hold(), suspend() puts this run (its
  /// schedule, and its snapshots, which stay in the store) aside, and the
  /// reverse sweep's resume() takes back the last one put aside. Runs are
  /// reversed last first, so the store stays last-in first-out.
  void suspend();
  void resume();
  std::int64_t steps() const;
  /// Frees the snapshots and counts the replayed iterations.
  void finish();

  /// One slot to keep the state while a probe run measures the tape of one
  /// iteration (the iteration is then run again: one replay).
  void beginProbe(std::size_t stateBytes);
  void endProbe();

  /// Points put() / getValue() / get() (sched::SnapshotCursor) at a slot.
  void beginSave(int slot) { cursor_ = slotAt(slot); }
  void beginLoad(int slot) { cursor_ = slotAt(slot); }

private:
  struct Run;  // one run of the loop (checkpoint.cpp)
  struct Runs; // the current run and those put aside (suspend())
  Runs &runs() const { return *runs_; }
  /// Where snapshot `slot` of the current run is in the store.
  unsigned char *slotAt(int slot);

  bool makeRoom(std::int64_t n);
  /// A run that tapes every iteration (start() with no snapshots).
  void startWhole(std::int64_t steps, std::size_t stateBytes);
  /// Ends the last run and starts a fresh one of `steps` iterations.
  void beginRun(std::int64_t steps, std::size_t stateBytes);
  /// The next action of a counted loop: its taped first iterations (if its
  /// plan tapes first), its schedule, then the reverse of those iterations.
  ScheduleAction nextCounted();
  /// While a plan tapes first: how many of the `left` iterations to tape
  /// next, with `room` bytes not yet taped (0: plan the rest now).
  std::int64_t tapeNext(std::int64_t left, double room);
  /// The taped first iterations end at Run::taped: the rest of the loop
  /// gets a schedule of its own, within the room they leave.
  void planRest();
  ScheduleAction nextCountedAction();
  /// Tape and store bytes held since this run started.
  double heldSinceStart() const;
  /// Gives back what this run reserved (Run::reserved).
  void releaseReserve();

  Runs *runs_;

  // While an online loop runs: the next iteration to snapshot, the stride,
  // snapshots taken (slots 0..taken_-1) and how many it may take.
  std::int64_t nextDue_ = -1, stride_ = 1, segment_ = 1;
  int taken_ = 0, onlineSlots_ = 0, snapshots_ = 0;
  bool active_ = false;
  bool muted_ = false; // see next()
};

} // namespace rt
} // namespace cgp

#endif // CGP_CHECKPOINT_H
