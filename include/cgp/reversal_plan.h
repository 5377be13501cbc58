// cgp/reversal_plan.h - how many snapshots, and segments of how many
// iterations, reverse a loop within a number of bytes: the arithmetic of
// loop plans, written once for the host runtime (rt::planLoopReversal,
// checkpoint.cpp) and for gradients of CUDA kernels
// (dev::planLoopReversal, device.h).
//
// A loop keeps to its room by taking as many snapshots as fit beside the
// tape of one segment of k iterations; planSegments() tries segment
// lengths and keeps the one that runs the fewest iterations again (k = 1
// is classic binomial checkpointing; a k that leaves a snapshot per
// segment replays none). planWithinReplays() is the other way round: with
// no budget, the least memory that runs at most a share of the iterations
// again.
#ifndef CGP_REVERSAL_PLAN_H
#define CGP_REVERSAL_PLAN_H

#include "cgp/binomial_walk.h"
#include "cgp/host_device.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace cgp {
namespace sched {

/// What a planned loop keeps on the tape of its own (its trip count or
/// plan, its start): kept out of its room.
constexpr double kLoopRecordBytes = 16;

CGP_HOST_DEVICE inline double lesser(double a, double b) { return a < b ? a : b; }
CGP_HOST_DEVICE inline double greater(double a, double b) { return a < b ? b : a; }

/// Snapshots of `stateBytes` that fit in `room` bytes, at most one per
/// iteration (0 when none fits). Snapshots of nothing (a loop whose state
/// stays in place, the caller's rows it fills) fit while the room is not
/// negative: one per iteration.
CGP_HOST_DEVICE inline double snapshotsThatFit(double room, std::size_t stateBytes,
                                               std::int64_t steps) {
  double fit = stateBytes ? floor(room / static_cast<double>(stateBytes))
                          : (room >= 0 ? static_cast<double>(steps) : 0.0);
  return greater(0.0, lesser(fit, static_cast<double>(steps)));
}

/// What a loop may use of the budget: what is not in use and not needed by
/// what follows it (`after`), less a share for the loops after it that plan
/// their own reversal (they would tape `laterLoops` whole): all of that if
/// it fits in half of what is left, else half, since they fit themselves
/// in what they find. Without the share, one loop took all of a 2 KiB
/// budget and left the next its minimum (one snapshot: 12.5 million
/// replayed iterations for two loops of 5000), or, with the later loops'
/// full estimate reserved, the other way round.
CGP_HOST_DEVICE inline double roomLeft(std::int64_t budget, double inUse, double after,
                                       double laterLoops) {
  double left = static_cast<double>(budget) - inUse - after;
  return left - lesser(laterLoops, greater(left, 0.0) / 2);
}

/// Iterations the reverse sweep runs untaped, beyond the forward sweep's
/// own: the binomial count on segments, k iterations per replayed segment
/// (the first segment may be shorter: an upper bound there).
CGP_HOST_DEVICE inline std::int64_t extraReplays(std::int64_t steps, int snapshots,
                                                 std::int64_t segment) {
  std::int64_t units = (steps + segment - 1) / segment;
  return (fewestReplays(units, snapshots - 1) - (units - 1)) * segment;
}

/// Iterations the reverse sweep runs, untaped or taped, for segments of
/// `segment`: the replays, and every iteration but the last segment's
/// (which the forward sweep tapes) once more, taped.
CGP_HOST_DEVICE inline std::int64_t reverseRuns(std::int64_t steps, int snapshots,
                                                std::int64_t segment) {
  return extraReplays(steps, snapshots, segment) + steps - (segment < steps ? segment : steps);
}

/// The segment length (and its snapshots) that runs the fewest iterations
/// again within `room` bytes: every length up to 64, then lengths growing
/// by an eighth, while a segment's tape leaves room for a snapshot. Ties go
/// to the longer segment: fewer snapshots to store and restore, and fewer
/// actions. At most `mostSnapshots` snapshots.
CGP_HOST_DEVICE inline void pickSegment(double room, double iterationBytes,
                                        std::size_t stateBytes, std::int64_t steps,
                                        std::int64_t &segment, int &snapshots,
                                        double mostSnapshots) {
  std::int64_t best = reverseRuns(steps, snapshots, segment);
  auto consider = [&](std::int64_t k) {
    double fit = lesser(snapshotsThatFit(room - static_cast<double>(k) * iterationBytes,
                                         stateBytes, (steps + k - 1) / k),
                        mostSnapshots);
    if (fit < 1)
      return false;
    std::int64_t runs = reverseRuns(steps, static_cast<int>(fit), k);
    if (runs <= best) {
      best = runs;
      segment = k;
      snapshots = static_cast<int>(fit);
    }
    return true;
  };
  std::int64_t k = 2;
  while (k <= steps && consider(k))
    k = k < 64 ? k + 1 : k + k / 8;
  // The longest segment beside one snapshot, which the steps above may
  // have skipped: it leaves the fewest iterations to run again when the
  // budget holds most of the loop.
  double longest = iterationBytes > 0
                       ? floor((room - static_cast<double>(stateBytes)) / iterationBytes)
                       : static_cast<double>(steps);
  if (longest > 1 && longest < static_cast<double>(steps))
    consider(static_cast<std::int64_t>(longest));
}

/// The snapshots and segment length that reverse `steps` iterations of
/// `iterationBytes` each within `room` with the fewest iterations run
/// again; 0 snapshots when one snapshot beside one iteration does not fit.
/// At most `mostSnapshots` snapshots (the device keeps their positions in
/// a fixed array).
CGP_HOST_DEVICE inline int planSegments(double room, double iterationBytes,
                                        std::size_t stateBytes, std::int64_t steps,
                                        std::int64_t &segment, double mostSnapshots = 1e18) {
  segment = 1;
  double fit = lesser(snapshotsThatFit(room - iterationBytes, stateBytes, steps), mostSnapshots);
  if (fit < 1)
    return 0;
  int snapshots = static_cast<int>(fit);
  pickSegment(room, iterationBytes, stateBytes, steps, segment, snapshots, mostSnapshots);
  return snapshots;
}

/// With no budget in force, the default plan's replay allowance: the
/// segments (and their snapshots) that run at most `share` of `steps`
/// iterations again, with the least memory; 0 snapshots when taping every
/// iteration holds less, or its whole tape is at most `smallTape` bytes (a
/// tape that small stays in a core's cache, and the schedule's few actions
/// would cost a short call more time than the memory is worth). With a
/// snapshot per segment nothing is replayed beyond the forward sweep's
/// untaped run, and every iteration before the last segment runs once
/// more, taped: the last segment holds at least steps - share * steps
/// iterations. Shorter segments, more of them, would run more again;
/// longer ones pay only when snapshots outweigh tape (the memory,
/// k * iterationBytes + snapshots * stateBytes, is least near
/// k = sqrt(steps * stateBytes / iterationBytes)).
CGP_HOST_DEVICE inline int planWithinReplays(double share, double iterationBytes,
                                             std::size_t stateBytes, std::int64_t steps,
                                             std::int64_t &segment, double smallTape,
                                             double mostSnapshots = 1e18) {
  const double perIteration = greater(iterationBytes, 1.0);
  if (static_cast<double>(steps) * perIteration <= smallTape)
    return 0;
  std::int64_t again = static_cast<std::int64_t>(floor(share * static_cast<double>(steps)));
  if (again > steps - 1)
    again = steps - 1;
  if (again < 1)
    return 0;
  const double balanced =
      sqrt(static_cast<double>(steps) * static_cast<double>(stateBytes) / perIteration);
  std::int64_t k = llround(balanced);
  if (k > steps)
    k = steps;
  if (k < steps - again)
    k = steps - again;
  std::int64_t units = (steps + k - 1) / k;
  if (static_cast<double>(units) > mostSnapshots)
    return 0;
  // A slot for each segment but the last, which the forward sweep tapes.
  int snapshots = static_cast<int>(units);
  if (snapshots > 1 && extraReplays(steps, snapshots - 1, k) == 0)
    --snapshots;
  double memory = static_cast<double>(k) * perIteration +
                  static_cast<double>(snapshots) * static_cast<double>(stateBytes);
  if (k >= steps || memory >= static_cast<double>(steps) * perIteration)
    return 0;
  segment = k;
  return snapshots;
}

} // namespace sched
} // namespace cgp

#endif // CGP_REVERSAL_PLAN_H
