// cgp/binomial_walk.h - the binomial checkpointing schedule, step by step,
// written once for the host runtime (rt::BinomialSchedule, schedule.h) and
// for gradients of CUDA kernels (dev::LoopCheckpoints, device.h).
//
// The walk follows the optimal recursion: to reverse the segments
// [from, end) with the state at `from` held and c free slots, run forward to
// a split point m, keep a snapshot there, reverse [m, end) with c - 1 free
// slots, then restore `from` and reverse [from, m) with c free slots. The
// least optimal m has a closed form (split()), so the recursion is never
// unfolded: the positions of the snapshots held are all the state there
// is, and the caller keeps them (an array of `snapshots` positions), so
// that the walk itself needs no allocation on either side.
//
// The arithmetic is exact in 64-bit integers: binomial coefficients are
// built factor by factor, each step exact, and capped before they could
// overflow.
#ifndef CGP_BINOMIAL_WALK_H
#define CGP_BINOMIAL_WALK_H

#include "cgp/host_device.h"
#include "cgp/schedule_action.h"

#include <cstdint>

namespace cgp {
namespace sched {

/// A value no count of iterations reaches; binomials are capped below it.
constexpr std::int64_t kHuge = INT64_MAX / 4;

CGP_HOST_DEVICE inline std::int64_t gcd(std::int64_t a, std::int64_t b) {
  while (b != 0) {
    std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// C(n, k), or `cap` if it is larger. C(n - k + i, i) is built for
/// i = 1..k; each step multiplies by (n - k + i) / i, which divides
/// exactly once the common factor of the running value and i is taken out.
CGP_HOST_DEVICE inline std::int64_t binomialCapped(std::int64_t n, std::int64_t k,
                                                   std::int64_t cap) {
  if (k < 0 || k > n)
    return 0;
  if (k > n - k)
    k = n - k;
  std::int64_t c = 1;
  for (std::int64_t i = 1; i <= k; ++i) {
    std::int64_t g = gcd(c, i);
    std::int64_t factor = (n - k + i) / (i / g); // i / g divides n - k + i
    std::int64_t base = c / g;
    if (base > cap / factor)
      return cap;
    c = base * factor;
    if (c >= cap)
      return cap;
  }
  return c;
}

/// C(s + r, s) >= n.
CGP_HOST_DEVICE inline bool reaches(std::int64_t s, std::int64_t r, std::int64_t n) {
  return binomialCapped(s + r, s, n) >= n;
}
/// The repetition number of `n` iterations with `s` slots (the held one
/// included): the least r with C(s + r, s) >= n, by doubling and bisection.
CGP_HOST_DEVICE inline std::int64_t repetitions(std::int64_t n, std::int64_t s) {
  std::int64_t hi = 1;
  while (!reaches(s, hi, n))
    hi *= 2;
  std::int64_t lo = hi / 2; // C(s + lo, s) < n, or lo = 0
  while (hi - lo > 1) {
    std::int64_t mid = lo + (hi - lo) / 2;
    if (reaches(s, mid, n))
      hi = mid;
    else
      lo = mid;
  }
  return reaches(s, lo, n) ? lo : hi;
}

/// The fewest replays to reverse `n` iterations, the state before the
/// first one held, with `free` more slots: with s = free + 1 slots and r
/// their repetition number, r * n - C(s + r, s + 1).
CGP_HOST_DEVICE inline std::int64_t fewestReplays(std::int64_t n, int free) {
  if (n <= 1)
    return 0;
  const std::int64_t s = static_cast<std::int64_t>(free) + 1;
  std::int64_t r = repetitions(n, s);
  return r * n - binomialCapped(s + r, s + 1, kHuge);
}

/// The least optimal split of [from, end) with `free` slots. With s = free
/// + 1 slots and r the repetition number of the n iterations, the first
/// part (reversed later, with s slots) may take up to C(s + r - 1, s)
/// iterations and the second (s - 1 slots) up to C(s + r - 1, s - 1); the
/// least m that keeps the second part within its bound and the first at
/// least C(s + r - 2, s) is optimal: where m + F(free - 1, n - m) +
/// F(free, m) first reaches its minimum (the unit tests check that the
/// schedules replay the optimum for every T up to 500 and s up to 12).
CGP_HOST_DEVICE inline std::int64_t split(std::int64_t from, std::int64_t end, int free) {
  const std::int64_t n = end - from;
  const std::int64_t s = static_cast<std::int64_t>(free) + 1;
  const std::int64_t r = repetitions(n, s);
  std::int64_t m = n - binomialCapped(s - 1 + r, s - 1, kHuge);
  if (r >= 2) {
    std::int64_t least = binomialCapped(s + r - 2, s, kHuge);
    if (m < least)
      m = least;
  }
  if (m < 1)
    m = 1;
  if (m > n - 1)
    m = n - 1;
  return from + m;
}

/// One run of the schedule over `steps` iterations in segments of
/// `segment`, with `snapshots` slots. next() takes the positions of the
/// snapshots held (slot = index), which the caller keeps.
class BinomialWalk {
public:
  CGP_HOST_DEVICE BinomialWalk() {}
  CGP_HOST_DEVICE BinomialWalk(std::int64_t steps, int snapshots, std::int64_t segment)
      : steps_(steps < 0 ? 0 : steps), snapshots_(snapshots < 1 ? 1 : snapshots),
        segment_(segment < 1 ? 1 : segment), units_((steps_ + segment_ - 1) / segment_),
        next_(units_ - 1) {}

  /// The next action; the first stores the initial state in slot 0. After
  /// a segment's Tape action comes its Reverse action.
  CGP_HOST_DEVICE rt::ScheduleAction next(std::int64_t *held) {
    if (reversePending_) {
      reversePending_ = false;
      return pendingReverse_;
    }
    rt::ScheduleAction a = nextOnSegments(held);
    // Segments to iterations.
    switch (a.kind) {
    case rt::ScheduleAction::Store:
    case rt::ScheduleAction::Restore:
      a.step = unitStart(a.step);
      return a;
    case rt::ScheduleAction::Advance:
      a.step = unitStart(a.step);
      a.to = unitStart(a.to);
      replayed_ += a.to - a.step;
      return a;
    case rt::ScheduleAction::Reverse:
      a.to = unitStart(a.step + 1);
      a.step = unitStart(a.step);
      pendingReverse_ = a;
      reversePending_ = true;
      a.kind = rt::ScheduleAction::Tape;
      return a;
    default:
      return a;
    }
  }

  CGP_HOST_DEVICE std::int64_t steps() const { return steps_; }
  CGP_HOST_DEVICE int snapshots() const { return snapshots_; }
  CGP_HOST_DEVICE std::int64_t segment() const { return segment_; }
  CGP_HOST_DEVICE std::int64_t replayed() const { return replayed_; }
  /// The iterations the forward sweep itself advances (all but the last
  /// segment, which it tapes).
  CGP_HOST_DEVICE std::int64_t forwardAdvance() const { return steps_ - lastSegment(); }
  CGP_HOST_DEVICE int peakSnapshots() const { return peak_; }

private:
  /// The first iteration of segment `unit` (steps_ for units_): segments
  /// end at steps_, steps_ - k, ..., and the first takes what is left.
  CGP_HOST_DEVICE std::int64_t unitStart(std::int64_t unit) const {
    std::int64_t start = steps_ - (units_ - unit) * segment_;
    return start < 0 ? 0 : start;
  }
  CGP_HOST_DEVICE std::int64_t lastSegment() const { return steps_ - unitStart(units_ - 1); }

  /// The next action on segments (Reverse meaning: tape and reverse one).
  CGP_HOST_DEVICE rt::ScheduleAction nextOnSegments(std::int64_t *held) {
    rt::ScheduleAction a;
    if (!started_) {
      started_ = true;
      if (units_ == 0)
        return a;
      held[0] = 0;
      count_ = peak_ = 1;
      a.kind = rt::ScheduleAction::Store;
      return a;
    }
    if (next_ < 0)
      return a;
    // Snapshots past the next segment to reverse are no longer needed.
    while (count_ > 1 && held[count_ - 1] > next_)
      --count_;
    std::int64_t top = held[count_ - 1];
    // The live state is usable if it lies between the top snapshot and the
    // segment to reverse; otherwise restore the top snapshot.
    if (position_ < top || position_ > next_) {
      position_ = top;
      a.kind = rt::ScheduleAction::Restore;
      a.step = top;
      a.slot = count_ - 1;
      return a;
    }
    if (position_ == next_) {
      a.kind = rt::ScheduleAction::Reverse;
      a.step = next_;
      --next_;
      position_ = -1; // the reverse sweep leaves the state undefined
      return a;
    }
    int free = snapshots_ - count_;
    if (position_ == top && free > 0) {
      // From a snapshot with slots to spare: run to the best split point.
      std::int64_t m = split(position_, next_ + 1, free);
      a.kind = rt::ScheduleAction::Advance;
      a.step = position_;
      a.to = m;
      position_ = m;
      return a;
    }
    if (position_ != top) {
      // Just advanced to a split point: keep a snapshot there.
      held[count_++] = position_;
      if (count_ > peak_)
        peak_ = count_;
      a.kind = rt::ScheduleAction::Store;
      a.step = position_;
      a.slot = count_ - 1;
      return a;
    }
    // No slot left: run to the segment to reverse.
    a.kind = rt::ScheduleAction::Advance;
    a.step = position_;
    a.to = next_;
    position_ = next_;
    return a;
  }

  std::int64_t steps_ = 0;
  int snapshots_ = 1;
  std::int64_t segment_ = 1;
  std::int64_t units_ = 0;    // segments: ceil(steps / segment)
  std::int64_t position_ = 0; // the segment the current state is before
  std::int64_t next_ = -1;    // the next segment to reverse
  std::int64_t replayed_ = 0; // in iterations
  int count_ = 0;             // snapshots held
  int peak_ = 0;
  bool started_ = false;
  bool reversePending_ = false;
  rt::ScheduleAction pendingReverse_;
};

} // namespace sched
} // namespace cgp

#endif // CGP_BINOMIAL_WALK_H
