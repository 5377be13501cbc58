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
#ifndef CGP_SCHEDULE_H
#define CGP_SCHEDULE_H

#include <cstdint>
#include <vector>

namespace cgp {
namespace rt {

/// C(n, k), or `cap` if it is larger (no overflow).
std::int64_t binomialCapped(std::int64_t n, std::int64_t k, std::int64_t cap);

/// The least number of replayed iterations to reverse `steps` iterations
/// with `snapshots` slots (>= 1, the loop's start included).
std::int64_t optimalReplays(std::int64_t steps, int snapshots);

/// What the loop does next, in the reverse sweep (and in the forward sweep
/// for the first actions: the forward sweep runs the loop up to the last
/// iteration, taking snapshots on the way).
struct ScheduleAction {
  enum Kind : std::uint8_t {
    Store,   // save the state (before iteration `step`) in slot `slot`
    Restore, // load the state from slot `slot` (it is before iteration `step`)
    Advance, // run iterations [step, to) without taping them
    Reverse, // run iteration `step` taped, then its reverse sweep
    Done,    // every iteration has been reversed
  };
  Kind kind = Done;
  std::int64_t step = 0;
  std::int64_t to = 0;
  int slot = 0;

  bool isStore() const { return kind == Store; }
  bool isRestore() const { return kind == Restore; }
  bool isAdvance() const { return kind == Advance; }
  bool isReverse() const { return kind == Reverse; }
};

class BinomialSchedule {
public:
  /// A schedule for `steps` iterations and `snapshots` slots. The first
  /// action stores the initial state in slot 0.
  BinomialSchedule(std::int64_t steps, int snapshots);

  ScheduleAction next();

  std::int64_t steps() const { return steps_; }
  int snapshots() const { return snapshots_; }
  /// Iterations replayed so far (run by Advance actions).
  std::int64_t replayed() const { return replayed_; }
  /// Most snapshots held at once so far.
  int peakSnapshots() const { return peak_; }

private:
  std::int64_t split(std::int64_t from, std::int64_t end, int free) const;

  std::int64_t steps_;
  int snapshots_;
  std::vector<std::int64_t> held_; // positions of the snapshots, slot = index
  std::int64_t position_ = 0;      // the iteration the current state is before
  std::int64_t next_ = -1;         // the next iteration to reverse
  std::int64_t replayed_ = 0;
  int peak_ = 0;
  bool started_ = false;
};

} // namespace rt
} // namespace cgp

#endif // CGP_SCHEDULE_H
