// schedule.cpp - binomial checkpointing schedules (see cgp/schedule.h).
//
// The schedule follows the optimal recursion: to reverse the iterations
// [from, end) with the state at `from` held and c free slots, run forward to
// a split point m, keep a snapshot there, reverse [m, end) with c - 1 free
// slots, then restore `from` and reverse [from, m) with c free slots. The
// cost of a split is (m - from) + F(c - 1, end - m) + F(c, m - from), where
// F is the closed-form optimum; the least m that minimises it has a closed
// form too (see split()). The recursion is never unfolded:
// the snapshot positions held are all the state there is.
#include "cgp/schedule.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace cgp {
namespace rt {
namespace {

constexpr std::int64_t kHuge = std::numeric_limits<std::int64_t>::max() / 4;

/// C(s + r, s) >= n, computed as a product over min(s, r) factors that
/// stops as soon as it reaches n.
bool reaches(std::int64_t s, std::int64_t r, std::int64_t n) {
  std::int64_t k = s < r ? s : r, top = s + r;
  unsigned __int128 c = 1;
  for (std::int64_t i = 1; i <= k; ++i) {
    c = c * static_cast<unsigned __int128>(top - k + i) / static_cast<unsigned __int128>(i);
    if (c >= static_cast<unsigned __int128>(n))
      return true;
  }
  return c >= static_cast<unsigned __int128>(n);
}

/// The repetition number of `n` iterations with `s` slots (the held one
/// included): the least r with C(s + r, s) >= n, found by doubling and
/// bisection, O(min(s, r) log r).
std::int64_t repetitions(std::int64_t n, std::int64_t s) {
  std::int64_t hi = 1;
  while (!reaches(s, hi, n))
    hi *= 2;
  std::int64_t lo = hi / 2; // C(s + lo, s) < n, or lo = 0
  while (hi - lo > 1) {
    std::int64_t mid = lo + (hi - lo) / 2;
    (reaches(s, mid, n) ? hi : lo) = mid;
  }
  return reaches(s, lo, n) ? lo : hi;
}

/// The fewest replays to reverse `n` iterations, the state before the
/// first one held, with `free` more slots: with s = free + 1 slots and r
/// their repetition number, it is r * n - C(s + r, s + 1).
std::int64_t fewestReplays(std::int64_t n, int free) {
  if (n <= 1)
    return 0;
  const std::int64_t s = static_cast<std::int64_t>(free) + 1; // the held one included
  std::int64_t r = repetitions(n, s);
  return r * n - binomialCapped(s + r, s + 1, kHuge);
}

} // namespace

std::int64_t binomialCapped(std::int64_t n, std::int64_t k, std::int64_t cap) {
  if (k < 0 || k > n)
    return 0;
  if (k > n - k)
    k = n - k;
  // C(n, k) = prod_{i=1..k} (n - k + i) / i, exact at every step.
  std::int64_t c = 1;
  for (std::int64_t i = 1; i <= k; ++i) {
    std::int64_t factor = n - k + i;
    if (c > cap / factor)
      return cap;
    c = c * factor / i;
    if (c >= cap)
      return cap;
  }
  return c;
}

std::int64_t optimalReplays(std::int64_t steps, int snapshots) {
  assert(snapshots >= 1);
  return fewestReplays(steps, snapshots - 1);
}

BinomialSchedule::BinomialSchedule(std::int64_t steps, int snapshots, std::int64_t segment)
    : steps_(steps < 0 ? 0 : steps), snapshots_(snapshots < 1 ? 1 : snapshots),
      segment_(segment < 1 ? 1 : segment), units_((steps_ + segment_ - 1) / segment_),
      next_(units_ - 1) {
  held_.reserve(static_cast<std::size_t>(snapshots_));
}

ScheduleAction BinomialSchedule::next() {
  if (reversePending_) {
    reversePending_ = false;
    return pendingReverse_;
  }
  ScheduleAction a = nextOnSegments();
  // Segments to iterations.
  switch (a.kind) {
  case ScheduleAction::Store:
  case ScheduleAction::Restore:
    a.step = unitStart(a.step);
    return a;
  case ScheduleAction::Advance:
    a.step = unitStart(a.step);
    a.to = unitStart(a.to);
    replayed_ += a.to - a.step;
    return a;
  case ScheduleAction::Reverse:
    // Tape the segment, then reverse it.
    a.to = unitStart(a.step + 1);
    a.step = unitStart(a.step);
    pendingReverse_ = a;
    reversePending_ = true;
    a.kind = ScheduleAction::Tape;
    return a;
  default:
    return a;
  }
}

std::int64_t BinomialSchedule::split(std::int64_t from, std::int64_t end, int free) const {
  // The least optimal split in closed form. With s = free + 1 slots and r
  // the repetition number of the n iterations, the first part (reversed
  // later, with s slots) may take up to C(s + r - 1, s) iterations and the
  // second (s - 1 slots) up to C(s + r - 1, s - 1); the least m that keeps
  // the second part within its bound and the first at least C(s + r - 2, s)
  // is optimal. This is the m where m + F(free - 1, n - m) + F(free, m)
  // first reaches its minimum (checked against that sum for n < 700 and up
  // to 14 slots when written; the unit tests check that the schedules
  // replay the optimum for every T up to 500 and s up to 12). A search on
  // the sum cost ~50 repetition numbers per split, which cheap loop bodies
  // felt.
  const std::int64_t n = end - from;
  const std::int64_t s = static_cast<std::int64_t>(free) + 1;
  const std::int64_t r = repetitions(n, s);
  std::int64_t m = n - binomialCapped(s - 1 + r, s - 1, kHuge);
  if (r >= 2)
    m = std::max(m, binomialCapped(s + r - 2, s, kHuge));
  m = std::min(std::max(m, std::int64_t{1}), n - 1);
  return from + m;
}

ScheduleAction BinomialSchedule::nextOnSegments() {
  ScheduleAction a;
  if (!started_) {
    started_ = true;
    if (units_ == 0)
      return a;
    held_.push_back(0);
    peak_ = 1;
    a.kind = ScheduleAction::Store;
    return a;
  }
  if (next_ < 0)
    return a;
  // Snapshots past the next iteration to reverse are no longer needed.
  while (held_.size() > 1 && held_.back() > next_)
    held_.pop_back();
  std::int64_t top = held_.back();
  // The live state is usable if it lies between the top snapshot and the
  // iteration to reverse; otherwise restore the top snapshot.
  if (position_ < top || position_ > next_) {
    position_ = top;
    a.kind = ScheduleAction::Restore;
    a.step = top;
    a.slot = static_cast<int>(held_.size()) - 1;
    return a;
  }
  if (position_ == next_) {
    a.kind = ScheduleAction::Reverse;
    a.step = next_;
    --next_;
    position_ = -1; // the reverse sweep leaves the state undefined
    return a;
  }
  int free = snapshots_ - static_cast<int>(held_.size());
  if (position_ == top && free > 0) {
    // From a snapshot with slots to spare: run to the best split point.
    std::int64_t m = split(position_, next_ + 1, free);
    a.kind = ScheduleAction::Advance;
    a.step = position_;
    a.to = m;
    position_ = m;
    return a;
  }
  if (position_ != top) {
    // Just advanced to a split point: keep a snapshot there.
    held_.push_back(position_);
    if (static_cast<int>(held_.size()) > peak_)
      peak_ = static_cast<int>(held_.size());
    a.kind = ScheduleAction::Store;
    a.step = position_;
    a.slot = static_cast<int>(held_.size()) - 1;
    return a;
  }
  // No slot left: run to the iteration to reverse.
  a.kind = ScheduleAction::Advance;
  a.step = position_;
  a.to = next_;
  position_ = next_;
  return a;
}

} // namespace rt
} // namespace cgp
