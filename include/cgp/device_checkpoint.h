// cgp/device_checkpoint.h - loop checkpoints in gradients of CUDA kernels:
// a thread reverses a long loop of its own from a few snapshots of the
// loop's state instead of taping every iteration.
//
// The generated code is the host's (CheckpointedLoops.cpp in the tool, and
// cgp/checkpoint.h): at the loop's entry planLoopReversal() picks the
// snapshots and segment length, and the loop then follows the actions of
// LoopCheckpoints::next(). On the device everything is per thread and
// nothing is global: the budget is the one compiled in (--memory-budget,
// per thread; CGP_MEMORY_BUDGET is a host variable), the snapshots live on
// the thread's own tape (a region reserved at the loop's start, given back
// when its reverse ends: loops reverse last first, so the tape stays
// last-in first-out), and the schedule is the host's BinomialWalk with the
// snapshot positions in a fixed array (at most kMostSnapshots; a plan that
// would take more takes longer segments). Loops inside loops and loops
// whose iterations tape amounts the tool cannot bound are taped whole on
// the device; the tool decides which loops plan.
#ifndef CGP_DEVICE_CHECKPOINT_H
#define CGP_DEVICE_CHECKPOINT_H

#include "cgp/binomial_walk.h"
#include "cgp/device.h"
#include "cgp/reversal_plan.h"
#include "cgp/snapshot_cursor.h"

#include <cstdint>

namespace cgp {
namespace dev {

/// The most snapshots a loop keeps on the device.
constexpr int kMostSnapshots = 32;

/// With no budget, a loop whose whole tape fits in a thread's local tape
/// is taped whole: it stays in the thread's local memory and caches, no
/// malloc. Beyond it the default plan's replay allowance applies (a GPU
/// recomputes faster than it moves a large tape through memory).
constexpr double kSmallTape = static_cast<double>(kLocalTapeBytes);

using ScheduleAction = rt::ScheduleAction;

/// A loop's plan, made at its entry by planLoopReversal().
struct LoopSite {
  Tape *tape = nullptr;
  std::int64_t segment = 1; // iterations taped at once (with snapshots)
};

/// How to reverse a loop of `steps` iterations that tape `iterationBytes`
/// each (at the most) and whose state takes `stateBytes`: 0 to tape every
/// iteration, else the number of snapshots, with `site.segment` set to the
/// iterations to tape at once. `budget` (bytes per thread, -1 for none)
/// holds the thread's tape as it is now, `afterBytes` for what the code
/// after the loop tapes and a share for the loops after it that plan
/// (they would tape `laterLoopsBytes` whole); a budget below one snapshot
/// and one iteration gets that minimum. With no budget, `replayShare` is the
/// share of the iterations the plan may run again to hold less.
__device__ inline int planLoopReversal(Tape &tape, LoopSite &site, std::int64_t steps,
                                       double iterationBytes, std::size_t stateBytes,
                                       double afterBytes, std::int64_t budget,
                                       double laterLoopsBytes, double replayShare) {
  site.tape = &tape;
  site.segment = 1;
  if (steps <= 1)
    return 0;
  if (budget >= 0) {
    double room = sched::roomLeft(budget, static_cast<double>(tape.bytes()),
                                  afterBytes + sched::kLoopRecordBytes, laterLoopsBytes);
    if (static_cast<double>(steps) * iterationBytes <= room)
      return 0;
    int snapshots = sched::planSegments(room, iterationBytes, stateBytes, steps, site.segment,
                                        kMostSnapshots);
    return snapshots > 0 ? snapshots : 1;
  }
  if (replayShare > 0)
    return sched::planWithinReplays(replayShare, iterationBytes, stateBytes, steps,
                                    site.segment, kSmallTape, kMostSnapshots);
  return 0;
}

/// The snapshots and schedule of one run of a checkpointed loop, in one
/// thread. Generated code makes one per loop, a local of the gradient.
class LoopCheckpoints : public sched::SnapshotCursor {
public:
  /// A run of `steps` iterations with `snapshots` slots, on segments of
  /// `site.segment` iterations; with no snapshots, one Tape action of every
  /// iteration, then their Reverse action.
  __device__ void start(std::int64_t steps, int snapshots, std::size_t stateBytes,
                        LoopSite &site) {
    tape_ = site.tape;
    stateBytes_ = stateBytes;
    steps_ = steps < 0 ? 0 : steps;
    whole_ = snapshots <= 0;
    wholeStage_ = 0;
    held_ = false;
    if (!whole_) {
      walk_ = sched::BinomialWalk(steps_, snapshots < kMostSnapshots ? snapshots : kMostSnapshots,
                                  site.segment);
      base_ = tape_->reserve(static_cast<std::size_t>(walk_.snapshots()) * stateBytes);
    }
  }

  /// The next action of the schedule.
  __device__ ScheduleAction next() {
    if (held_) {
      held_ = false;
      return last_;
    }
    ScheduleAction a;
    if (whole_) {
      if (wholeStage_ < 2 && steps_ > 0) {
        a.kind = wholeStage_ == 0 ? ScheduleAction::Tape : ScheduleAction::Reverse;
        a.step = 0;
        a.to = steps_;
        ++wholeStage_;
      }
    } else {
      a = walk_.next(positions_);
    }
    last_ = a;
    return a;
  }

  /// The forward sweep stopped at a Reverse action (or Done): the reverse
  /// sweep's first next() gives it again.
  __device__ void hold() { held_ = true; }

  /// The loop is reversed: its snapshots leave the tape.
  __device__ void finish() {
    if (!whole_)
      tape_->discardTo(base_);
  }

  /// Points put() / getValue() / get() (sched::SnapshotCursor) at a slot.
  __device__ void beginSave(int slot) { cursor_ = slotAt(slot); }
  __device__ void beginLoad(int slot) { cursor_ = slotAt(slot); }

private:
  __device__ unsigned char *slotAt(int slot) {
    return tape_->at(base_ + static_cast<std::size_t>(slot) * stateBytes_);
  }

  Tape *tape_ = nullptr;
  std::size_t base_ = 0, stateBytes_ = 0;
  std::int64_t steps_ = 0;
  bool whole_ = true, held_ = false;
  int wholeStage_ = 0;
  ScheduleAction last_;
  sched::BinomialWalk walk_;
  std::int64_t positions_[kMostSnapshots];
};

} // namespace dev
} // namespace cgp

#endif // CGP_DEVICE_CHECKPOINT_H
