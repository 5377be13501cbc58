// cgp/schedule.h - binomial checkpointing schedules for reversing loops.
//
// To reverse a loop of T iterations without taping every one, a gradient
// keeps snapshots of the loop's state at a few iterations and, for each
// iteration in reverse order, restores the nearest snapshot, runs forward
// to that iteration (a "replayed" iteration), then runs it taped and
// reverses it. With s snapshot slots (one of them holding the state at the
// loop's start) the fewest replayed iterations any schedule can achieve is
//
//     replays(s, T) = r*T - C(s + r, s + 1),  r the least with C(s + r, s) >= T
//
// (Griewank and Walther's binomial bound; with r replays of each iteration
// at most C(s + r, s) iterations can be reversed). BinomialSchedule yields,
// one action at a time, a schedule that reaches this bound while never
// holding more than s snapshots, deciding each split when it gets there,
// so it needs memory for s positions only, whatever T is.
//
// With room on the tape for k iterations, the schedule works on segments
// of k iterations instead: snapshots are taken at segment boundaries, and a
// segment is reversed by running its k iterations taped (a Tape action) and
// then reversing them, last first (a Reverse action). The replay count is
// then that of ceil(T / k) steps, k iterations each; a budget that holds a
// snapshot per segment replays nothing at all. Segments are counted from
// the loop's end: when k does not divide T the first one is the short one,
// so that the last, which the forward sweep tapes and the reverse sweep
// never runs again, is a whole k (with T = 1000 and k = 833, 167 iterations
// run again instead of 833).
#ifndef CGP_SCHEDULE_H
#define CGP_SCHEDULE_H

#include "cgp/binomial_walk.h"
#include "cgp/schedule_action.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace cgp {
namespace rt {

/// C(n, k), or `cap` if it is larger (no overflow).
inline std::int64_t binomialCapped(std::int64_t n, std::int64_t k, std::int64_t cap) {
  return sched::binomialCapped(n, k, cap);
}

/// The least number of replayed iterations to reverse `steps` iterations
/// with `snapshots` slots (>= 1, the loop's start included).
inline std::int64_t optimalReplays(std::int64_t steps, int snapshots) {
  return sched::fewestReplays(steps, snapshots - 1);
}

class BinomialSchedule {
public:
  /// A schedule for `steps` iterations, `snapshots` slots and segments of
  /// `segment` iterations. The first action stores the initial state in
  /// slot 0.
  BinomialSchedule(std::int64_t steps, int snapshots, std::int64_t segment = 1)
      : walk_(steps, snapshots, segment), held_(static_cast<std::size_t>(walk_.snapshots())) {}

  ScheduleAction next() { return walk_.next(held_.data()); }

  std::int64_t steps() const { return walk_.steps(); }
  int snapshots() const { return walk_.snapshots(); }
  std::int64_t segment() const { return walk_.segment(); }
  /// Iterations replayed so far (run by Advance actions).
  std::int64_t replayed() const { return walk_.replayed(); }
  /// The iterations the forward sweep itself advances (all but the last
  /// segment, which it tapes): replayed() - this is what the reverse
  /// sweep recomputes.
  std::int64_t forwardAdvance() const { return walk_.forwardAdvance(); }
  /// Most snapshots held at once so far.
  int peakSnapshots() const { return walk_.peakSnapshots(); }

private:
  sched::BinomialWalk walk_;
  std::vector<std::int64_t> held_; // segments the snapshots are before, slot = index
};

/// The reverse of a loop whose trip count is known only once it has ended
/// (a while loop). While it ran, LoopCheckpoints kept snapshots before the
/// iterations 0, d, 2d, ... (`count` of them, slots 0 to count - 1, thinned
/// to every other one and d doubled whenever they filled their share of the
/// slots). This schedule reverses the stretch after each snapshot, last
/// stretch first: restore its snapshot, then a BinomialSchedule over the
/// stretch with the slots that earlier snapshots do not hold.
class StretchSchedule {
public:
  StretchSchedule(std::int64_t trips, int count, std::int64_t stride, int snapshots,
                  std::int64_t segment);

  ScheduleAction next();

  std::int64_t steps() const { return trips_; }
  /// Iterations replayed so far (run by Advance actions); the loop itself
  /// ran untaped before, so all of them are recomputed.
  std::int64_t replayed() const { return replayed_; }
  /// Most snapshots held at once so far (the stretches' start snapshots
  /// included).
  int peakSnapshots() const { return peak_; }

private:
  std::int64_t trips_, stride_, segment_;
  int count_, snapshots_;
  int stretch_;                         // the stretch being reversed (-1: done)
  std::int64_t from_ = 0;               // its first iteration
  std::optional<BinomialSchedule> sub_; // its schedule
  std::int64_t replayed_ = 0;
  int peak_ = 0;
};

} // namespace rt
} // namespace cgp

#endif // CGP_SCHEDULE_H
