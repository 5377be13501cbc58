// Unit tests of the binomial checkpointing schedule: every schedule for
// T <= 500 iterations and s <= 12 snapshot slots is valid (each iteration
// taped from the right state and reversed once, last first), replays
// exactly the optimum of the binomial formula (itself checked against a
// dynamic program over all possible splits), and never holds more than s
// snapshots; on segments of k iterations, never more than k taped.
#include "cgp/schedule.h"
#include "simulated_tape.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

using cgp::rt::BinomialSchedule;
using cgp::rt::ScheduleAction;

namespace {

/// The optimum by brute force: F[c][n] with c free slots besides the held
/// start, n iterations, minimised over every first split.
std::vector<std::vector<std::int64_t>> replaysByDynamicProgram(int maxFree, int maxSteps) {
  std::vector<std::vector<std::int64_t>> f(maxFree + 1, std::vector<std::int64_t>(maxSteps + 1, 0));
  for (int n = 1; n <= maxSteps; ++n)
    f[0][n] = static_cast<std::int64_t>(n) * (n - 1) / 2;
  for (int c = 1; c <= maxFree; ++c)
    for (int n = 2; n <= maxSteps; ++n) {
      std::int64_t best = INT64_MAX;
      for (int m = 1; m < n; ++m)
        best = std::min(best, m + f[c - 1][n - m] + f[c][m]);
      f[c][n] = best;
    }
  return f;
}

/// Runs a schedule on a simulated loop whose state is the iteration number
/// it is before, with a simulated tape of iteration numbers; fails the test
/// on any invalid action. Returns the iterations replayed beyond the
/// forward sweep's own.
std::int64_t simulate(std::int64_t steps, int snapshots, std::int64_t segment = 1) {
  BinomialSchedule schedule(steps, snapshots, segment);
  std::vector<std::int64_t> slots(snapshots, -1);
  SimulatedTape tape(steps);
  std::int64_t state = 0, advanced = 0;
  bool stateKnown = true;
  for (int guard = 0; guard < 100000000; ++guard) {
    ScheduleAction a = schedule.next();
    if (a.kind == ScheduleAction::Done)
      break;
    switch (a.kind) {
    case ScheduleAction::Store:
      REQUIRE(stateKnown);
      REQUIRE(a.slot >= 0);
      REQUIRE(a.slot < snapshots);
      REQUIRE(a.step == state);
      slots[a.slot] = state;
      break;
    case ScheduleAction::Restore:
      REQUIRE(a.slot >= 0);
      REQUIRE(a.slot < snapshots);
      REQUIRE(slots[a.slot] == a.step);
      state = slots[a.slot];
      stateKnown = true;
      break;
    case ScheduleAction::Advance:
      REQUIRE(stateKnown);
      REQUIRE(a.step == state);
      REQUIRE(a.to > a.step);
      REQUIRE(a.to <= tape.expected);
      advanced += a.to - a.step;
      state = a.to;
      break;
    case ScheduleAction::Tape:
      REQUIRE(stateKnown);
      REQUIRE(a.step == state);
      tape.tape(a);
      state = a.to;
      break;
    case ScheduleAction::Reverse:
      tape.reverse(a);
      stateKnown = false;
      break;
    default:
      FAIL("unknown action");
    }
  }
  REQUIRE(tape.expected == -1); // every iteration reversed, in order
  REQUIRE(tape.values.empty());
  REQUIRE(tape.peak <= static_cast<std::size_t>(segment)); // one segment's tape at a time
  REQUIRE(advanced == schedule.replayed());
  REQUIRE(schedule.peakSnapshots() <= snapshots);
  return schedule.replayed() - schedule.forwardAdvance();
}

} // namespace

TEST_CASE("binomial coefficients saturate instead of overflowing", "[schedule]") {
  CHECK(cgp::rt::binomialCapped(5, 2, 1000) == 10);
  CHECK(cgp::rt::binomialCapped(40, 20, INT64_MAX) == 137846528820LL);
  CHECK(cgp::rt::binomialCapped(200, 100, 1000000) == 1000000);
  CHECK(cgp::rt::binomialCapped(3, 5, 10) == 0);
}

TEST_CASE("the binomial formula is the optimum over all splits", "[schedule]") {
  const int maxSteps = 500, maxSlots = 12;
  auto f = replaysByDynamicProgram(maxSlots - 1, maxSteps);
  for (int s = 1; s <= maxSlots; ++s)
    for (int n = 1; n <= maxSteps; ++n)
      REQUIRE(cgp::rt::optimalReplays(n, s) == f[s - 1][n]);
  // Known values: one slot replays T(T-1)/2; T <= s + 1 needs T - 1.
  CHECK(cgp::rt::optimalReplays(10, 1) == 45);
  CHECK(cgp::rt::optimalReplays(5, 4) == 4);
}

TEST_CASE("schedules for T <= 500 and s <= 12 are valid and optimal", "[schedule]") {
  for (int s = 1; s <= 12; ++s)
    for (std::int64_t steps = 0; steps <= 500; ++steps) {
      std::int64_t extra = simulate(steps, s);
      REQUIRE(extra == (steps ? cgp::rt::optimalReplays(steps, s) - (steps - 1) : 0));
    }
}

TEST_CASE("schedules on segments reverse every iteration once, one segment taped at a time",
          "[schedule]") {
  for (std::int64_t segment = 1; segment <= 9; ++segment)
    for (int s = 1; s <= 6; ++s)
      for (std::int64_t steps = 0; steps <= 200; ++steps) {
        std::int64_t units = (steps + segment - 1) / segment;
        std::int64_t extra = simulate(steps, s, segment);
        // The optimum on segments, each replayed segment at most k iterations.
        REQUIRE(extra <= (units ? cgp::rt::optimalReplays(units, s) - (units - 1) : 0) * segment);
        if (s >= units)
          REQUIRE(extra == 0); // a snapshot per segment: nothing replayed
      }
  // 1000 iterations, 56 snapshots, segments of 18: every segment has its
  // snapshot, so the reverse sweep replays nothing.
  CHECK(simulate(1000, 56, 18) == 0);
  CHECK(simulate(1000, 56, 1) > 0);
}

TEST_CASE("long loops replay few iterations per iteration", "[schedule]") {
  // 10,000 iterations with 12 slots: C(17, 12) = 6188 < 10,000 <=
  // C(18, 12) = 18564, so r = 6 replays at most per iteration.
  CHECK(simulate(10000, 12) == cgp::rt::optimalReplays(10000, 12) - 9999);
  CHECK(cgp::rt::optimalReplays(10000, 12) == 6 * 10000 - cgp::rt::binomialCapped(18, 13, INT64_MAX));
  // 100,000 iterations with 20 slots: C(26, 20) = 230230 >= 100,000, r = 6.
  BinomialSchedule schedule(100000, 20);
  while (schedule.next().kind != ScheduleAction::Done) {
  }
  CHECK(schedule.replayed() == cgp::rt::optimalReplays(100000, 20));
  CHECK(schedule.replayed() == 6 * 100000 - cgp::rt::binomialCapped(26, 21, INT64_MAX));
  CHECK(schedule.peakSnapshots() <= 20);
}

TEST_CASE("segments count from the loop's end, so the forward sweep tapes a whole one",
          "[schedule]") {
  // 1000 iterations in segments of 833 with one slot: the short segment is
  // the first, [0, 167); the forward sweep tapes [167, 1000), which the
  // reverse sweep never runs again, and only 167 iterations run twice.
  BinomialSchedule schedule(1000, 1, 833);
  std::vector<std::vector<std::int64_t>> actions;
  for (ScheduleAction a = schedule.next(); a.kind != ScheduleAction::Done; a = schedule.next())
    actions.push_back({a.kind, a.step, a.kind == ScheduleAction::Store ||
                                               a.kind == ScheduleAction::Restore
                                           ? a.slot
                                           : a.to});
  std::vector<std::vector<std::int64_t>> expected = {
      {ScheduleAction::Store, 0, 0},      {ScheduleAction::Advance, 0, 167},
      {ScheduleAction::Tape, 167, 1000},  {ScheduleAction::Reverse, 167, 1000},
      {ScheduleAction::Restore, 0, 0},    {ScheduleAction::Tape, 0, 167},
      {ScheduleAction::Reverse, 0, 167}};
  CHECK(actions == expected);
  CHECK(schedule.forwardAdvance() == 167);
  CHECK(schedule.replayed() == 167); // the forward sweep's own advance
}
