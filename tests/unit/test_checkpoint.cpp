// Unit tests of the runtime's loop checkpoints: sizes, the budget, loop
// plans, snapshot storage, runs of nested loops, dropping a probe run from
// the tape, and the online checkpoints of loops whose trip count is
// unknown at their entry.
#include "cgp/checkpoint.h"
#include "simulated_tape.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <vector>

using namespace cgp::rt;

TEST_CASE("sizes are read with binary units", "[checkpoint]") {
  std::int64_t b = 0;
  CHECK(parseByteSize("2048", b));
  CHECK(b == 2048);
  CHECK(parseByteSize("2KiB", b));
  CHECK(b == 2048);
  CHECK(parseByteSize("64kb", b));
  CHECK(b == 65536);
  CHECK(parseByteSize("1MiB", b));
  CHECK(b == 1048576);
  CHECK(parseByteSize("1G", b));
  CHECK(b == 1073741824);
  CHECK_FALSE(parseByteSize("", b));
  CHECK_FALSE(parseByteSize("lots", b));
  CHECK_FALSE(parseByteSize("12 MiB", b));
  CHECK_FALSE(parseByteSize("-5", b));
  CHECK_FALSE(parseByteSize("3TiB", b));
}

TEST_CASE("an element span is the least that holds every span added", "[checkpoint]") {
  cgp::rt::ElementSpan span;
  CHECK(span.size() == 0);
  span.add(5, 5); // empty: nothing
  span.add(7, 3);
  CHECK(span.size() == 0);
  span.add(4, 9);
  CHECK(span.first == 4);
  CHECK(span.size() == 5);
  span.add(1, 2); // below, with a gap: the span holds what lies between
  span.add(6, 12);
  CHECK(span.first == 1);
  CHECK(span.end == 12);
  CHECK(span.size() == 11);
  span.add(-3, -3);
  CHECK(span.first == 1);
}

TEST_CASE("loops tape every iteration when it fits, else take what fits", "[checkpoint]") {
  unsetenv("CGP_MEMORY_BUDGET");
  Tape::current().clear();
  LoopSite site;
  // No budget: always tape.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, -1) == 0);
  // Fits: 1000 * 100 <= 200000.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 200000) == 0);
  // Does not fit. One iteration's tape leaves room for (20000 - 16 - 100)
  // / 50 = 397 snapshots (16 bytes: the loop's own records), 1000 - 397
  // replays. From segments of 3 on there is room for a snapshot per
  // segment, nothing replayed; among those, the longest segment that still
  // fits: 182 iterations (18200 bytes of tape) and 6 snapshots.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 20000) == 6);
  CHECK(site.segment == 182);
  CHECK(6 * 50 + 182 * 100 + 16 <= 20000);
  // What comes after the loop is kept out of the room: 10000 bytes, so
  // segments of 91 iterations and 11 snapshots.
  CHECK(planLoopReversal(site, 1000, 100, 50, 10000, 20000) == 11);
  CHECK(site.segment == 91);
  CHECK(11 * 50 + 91 * 100 + 16 + 10000 <= 20000);
  // Loops after it that plan their own reversal get what they would tape
  // whole when that fits in half the room (5000 bytes: the plan of 5000
  // bytes after the loop)...
  int withAfter = planLoopReversal(site, 1000, 100, 50, 5000, 20000);
  std::int64_t segmentWithAfter = site.segment;
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 20000, false, 5000) == withAfter);
  CHECK(site.segment == segmentWithAfter);
  // ...and half the room when it does not (their estimate is 1 MB): 9992 of
  // the 19984 bytes are left to this loop, about the plan of 10000 bytes
  // after it. Before the half, this loop got its minimum, one snapshot, and
  // replayed 499500 iterations.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 20000, false, 1e6) == 11);
  CHECK(site.segment == 91);
  // Everything, later loops' tapes too, fits: tape every iteration.
  CHECK(planLoopReversal(site, 100, 100, 50, 0, 20000, false, 5000) == 0);
  // The same share for a loop of unknown trip count: half of the 19984
  // bytes left for segments of 20 planned iterations (2 x 100 bytes, a
  // probe's margin) and snapshots; the same as with 9992 bytes after it.
  CHECK(planOnlineReversal(site, 100, 50, 0, 20000, false, false, 1e6) ==
        planOnlineReversal(site, 100, 50, 9992, 20000));
  // A large iteration tape: segments of 2 replay least (199 snapshots for
  // 500 segments; segments of 1 and 3 replay more), within the budget with
  // the loop's 16 bytes of records.
  CHECK(planLoopReversal(site, 1000, 5000, 50, 0, 20000) == 199);
  CHECK(site.segment == 2);
  CHECK(199 * 50 + 2 * 5000 + 16 <= 20000);
  // Below the minimum: one snapshot anyway.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 10) == 1);
  CHECK(site.segment == 1);
  // Never more snapshots than segments: 10 iterations of 1000 bytes in 5000
  // bytes: segments of 4, 3 of them, 3 snapshots.
  CHECK(planLoopReversal(site, 10, 1000, 1, 0, 5000) == 3);
  CHECK(site.segment == 4);
  // A budget that holds most of the loop: the forward sweep tapes one long
  // last segment, and the reverse sweep runs the iterations before it again.
  // 1000 iterations of 6144 bytes (the LSTM benchmark's) in half of
  // 10240000 bytes, state 2048: segments of 832 (the longest beside a
  // snapshot), two of them, so 168 iterations run twice. With the segments
  // counted from the loop's start, the same plan ran 832 twice, and the
  // lengths tried stopped at 826.
  CHECK(planLoopReversal(site, 1000, 6144, 2048, 0, 5120000) == 2);
  CHECK(site.segment == 832);
  CHECK(2 * 2048 + 832 * 6144 + 16 <= 5120000);
  // CGP_MEMORY_BUDGET overrides the compiled budget.
  setenv("CGP_MEMORY_BUDGET", "1MiB", 1);
  CHECK(memoryBudget(20000) == 1048576);
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 20000) == 0);
  setenv("CGP_MEMORY_BUDGET", "nonsense", 1);
  CHECK(memoryBudget(20000) == 20000);
  CHECK(memoryBudget(30000) == 30000); // parsed once, still not a size
  // Each new value is read (the runtime parses a value once, not once per call).
  setenv("CGP_MEMORY_BUDGET", "2KiB", 1);
  CHECK(memoryBudget(20000) == 2048);
  CHECK(memoryBudget(20000) == 2048);
  setenv("CGP_MEMORY_BUDGET", "3000", 1);
  CHECK(memoryBudget(20000) == 3000);
  unsetenv("CGP_MEMORY_BUDGET");
  CHECK(memoryBudget(20000) == 20000);
}

TEST_CASE("with no budget, the default plan runs at most its replay share again",
          "[checkpoint]") {
  unsetenv("CGP_MEMORY_BUDGET");
  Tape::current().clear();
  LoopSite site;
  auto plan = [&](std::int64_t steps, double iterationBytes, std::size_t stateBytes,
                  double share) {
    return planLoopReversal(site, steps, iterationBytes, stateBytes, 0, -1, false, 0,
                            IterationTapes::Alike, 0, share);
  };
  // The LSTM benchmark's loop (1000 iterations of 6144 bytes, state 2048)
  // with a fifth of its iterations to run again: the last 800 taped, the
  // first 200 run again from one snapshot, the state at the loop's entry.
  CHECK(plan(1000, 6144, 2048, 0.2) == 1);
  CHECK(site.segment == 800);
  // Without a share, or with less than one iteration's worth: tape it all.
  CHECK(plan(1000, 6144, 2048, 0) == 0);
  CHECK(plan(1000, 6144, 2048, 0.0009) == 0);
  CHECK(plan(1, 6144, 2048, 0.2) == 0);
  // A loop cheap beside the primal may run every iteration again: segments
  // near sqrt(1000 * 50 / 100) = 22 iterations, a snapshot for each but
  // the last, far less memory than the 100000 bytes of its tape.
  int snapshots = plan(1000, 100, 50, 1.0);
  CHECK(site.segment == 22);
  CHECK(snapshots == 45);
  CHECK(22 * 100 + snapshots * 50 < 1000 * 100);
  // A state larger than the tape it saves: tape every iteration.
  CHECK(plan(10000, 8, 80000, 0.2) == 0);
  // A whole tape of at most 64 KiB: taped (8192 iterations of 8 bytes),
  // one iteration more and a fifth of them runs again.
  CHECK(plan(8192, 8, 16, 0.2) == 0);
  CHECK(plan(8193, 8, 16, 0.2) == 1);
  CHECK(site.segment == 8193 - 1638);
  // With a budget in force, the budget decides (here: it all fits).
  setenv("CGP_MEMORY_BUDGET", "1GiB", 1);
  CHECK(plan(1000, 6144, 2048, 0.2) == 0);
  unsetenv("CGP_MEMORY_BUDGET");

  // The schedule of the first plan: the forward sweep runs 200 iterations
  // untaped and tapes 800, the reverse sweep runs the 200 again, taped; no
  // other iteration runs again, every one is reversed in order, and the
  // tape holds at most 800 iterations.
  resetStats();
  {
    REQUIRE(plan(1000, 6144, 2048, 0.2) == 1);
    LoopCheckpoints c;
    c.start(1000, 1, 2048, site);
    SimulatedTape tape(1000);
    std::int64_t advanced = 0;
    for (;;) {
      ScheduleAction a = c.next();
      if (a.kind == ScheduleAction::Done)
        break;
      if (a.isAdvance())
        advanced += a.to - a.step;
      if (a.isTape())
        tape.tape(a);
      if (a.isReverse())
        tape.reverse(a);
    }
    c.finish();
    CHECK(tape.expected == -1);
    CHECK(advanced == 200);
    CHECK(tape.peak == 800);
  }
  CHECK(stats().recomputedIterations == 200); // the 200 run twice
  resetStats();
}

TEST_CASE("a changed plan at one site counts a retrace", "[checkpoint][stats]") {
  resetStats();
  LoopSite site;
  planLoopReversal(site, 1000, 100, 50, 0, 20000);
  planLoopReversal(site, 1000, 100, 50, 0, 20000);
  CHECK(stats().retraces == 0);
  planLoopReversal(site, 2000, 100, 50, 0, 20000); // a new trip count
  CHECK(stats().retraces == 1);
  resetStats();
}

TEST_CASE("snapshots keep scalars and arrays, slot by slot", "[checkpoint]") {
  LoopCheckpoints c;
  double h[3] = {1, 2, 3};
  int n = 7;
  const std::size_t state = sizeof h + sizeof n;
  c.start(10, 3, state);
  CHECK(CheckpointStore::current().bytes() >= 3 * state);
  c.beginSave(1);
  c.put(h);
  c.put(n);
  h[0] = h[1] = h[2] = 0;
  n = 0;
  c.beginSave(2);
  c.put(h);
  c.put(n);
  c.beginLoad(1);
  c.get(h);
  c.get(n);
  CHECK(h[0] == 1);
  CHECK(h[2] == 3);
  CHECK(n == 7);
  resetStats();
  c.finish();
  CHECK(CheckpointStore::current().bytes() == 0);
}

TEST_CASE("finish() counts every untaped run of an iteration as recomputed", "[checkpoint][stats]") {
  // Each iteration is taped once, in its segment; the forward sweep's
  // untaped runs of the others are extra work as much as the reverse
  // sweep's: 36 + 35 + ... + 1 with one snapshot.
  resetStats();
  {
    LoopCheckpoints c;
    c.start(37, 1, 8);
    while (c.next().kind != ScheduleAction::Done) {
    }
    c.finish();
  }
  CHECK(stats().recomputedIterations == static_cast<std::uint64_t>(optimalReplays(37, 1)));
  CHECK(optimalReplays(37, 1) == 36 * 37 / 2);
  CHECK(CheckpointStore::current().bytes() == 0);
  resetStats();
}

TEST_CASE("runs of a nested loop are put aside and reversed last first", "[checkpoint]") {
  // A loop inside another loop: three runs of 40, 17 and 3 iterations,
  // each on its own schedule, before the first is reversed.
  resetStats();
  LoopCheckpoints inner;
  const std::int64_t steps[3] = {40, 17, 3};
  const std::size_t state = 24;
  std::vector<SimulatedTape> tapes;
  for (std::int64_t n : steps) {
    tapes.emplace_back(n);
    inner.start(n, 2, state, 2);
    for (;;) { // forward phase: up to the last segment, taped
      ScheduleAction a = inner.next();
      if (a.isTape())
        tapes.back().tape(a);
      if (a.isReverse() || a.kind == ScheduleAction::Done)
        break;
    }
    inner.hold();
    inner.suspend();
  }
  // Every run keeps its two snapshots until it is reversed.
  CHECK(CheckpointStore::current().bytes() == 3 * 2 * state);
  for (int run = 2; run >= 0; --run) {
    inner.resume();
    for (;;) {
      ScheduleAction a = inner.next();
      if (a.kind == ScheduleAction::Done)
        break;
      if (a.isTape())
        tapes[run].tape(a);
      if (a.isReverse())
        tapes[run].reverse(a);
    }
    CHECK(tapes[run].expected == -1); // every iteration reversed, in order
    inner.finish();
    CHECK(CheckpointStore::current().bytes() == static_cast<std::size_t>(run) * 2 * state);
  }
  resetStats();
}

TEST_CASE("nested plans: probes tape, and a loop leaves room to the loops inside it",
          "[checkpoint]") {
  unsetenv("CGP_MEMORY_BUDGET");
  Tape::current().clear();
  LoopSite site;
  // While a probe measures an iteration of the loop around it, a loop
  // tapes, whatever the budget.
  LoopCheckpoints outer;
  outer.beginProbe(8);
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 2000) == 0);
  CHECK(planOnlineReversal(site, 100, 50, 0, 2000) == 0);
  outer.endProbe();
  CHECK(site.steps == -1); // a probe's plan is not one to remember
  // One iteration above the budget: the minimum, one snapshot.
  CHECK(planLoopReversal(site, 1000, 50000, 50, 0, 20000) == 1);
  CHECK_FALSE(site.leavesRoom); // no loop inside plans
  // When loops inside plan their own reversal, what an iteration tapes is
  // unknown (no probe measures it): whatever the size passed, half the room
  // for this loop's snapshots, one iteration per segment, and the loops
  // inside measure and plan.
  for (double iterationBytes : {100.0, 15000.0, 50000.0}) {
    CHECK(planLoopReversal(site, 1000, iterationBytes, 50, 0, 20000, true) ==
          (20000 - 16) / 2 / 50);
    CHECK(site.segment == 1);
    CHECK(site.leavesRoom);
  }
  CHECK(planLoopReversal(site, 10, 100, 50, 0, 20000, true) == 10); // one per iteration
  CHECK(planLoopReversal(site, 1000, 100, 50000, 0, 20000, true) == 1); // the minimum
  // A single iteration is taped, and the loops inside it plan.
  CHECK(planLoopReversal(site, 1, 100, 50, 0, 20000, true) == 0);
  CHECK(site.leavesRoom);
  // Without a budget, everything tapes.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, -1, true) == 0);
  CHECK_FALSE(site.leavesRoom);
  // The same for loops of unknown trip count: one slot beyond the
  // snapshots (startOnline), half the room.
  CHECK(planOnlineReversal(site, 100, 50, 0, 20000, true) == (20000 - 16) / 2 / 50 - 1);
  CHECK(site.segment == 1);
  CHECK(site.leavesRoom);
  CHECK(planOnlineReversal(site, 100, 50, 0, 20000) > 0);
  CHECK(site.segment > 1);
  CHECK_FALSE(site.leavesRoom);
}

TEST_CASE("discardTo() drops a probe run across chunks", "[tape]") {
  Tape &t = Tape::current();
  t.clear();
  t.push(1.5);
  const std::size_t mark = t.bytes();
  for (int i = 0; i < 100000; ++i)
    t.push(static_cast<double>(i)); // more than one chunk
  const std::size_t held = t.bytes();
  t.discardTo(mark);
  CHECK(t.bytes() == mark);
  CHECK(t.peakBytes() >= held);
  t.push(2.5);
  CHECK(t.pop<double>() == 2.5);
  CHECK(t.pop<double>() == 1.5);
  CHECK(t.bytes() == 0);
  // What a probe held counts in the peak, even within one chunk.
  resetStats();
  for (int i = 0; i < 10; ++i)
    t.push(static_cast<double>(i));
  t.discardTo(0);
  CHECK(stats().peakTapeBytes >= 10 * sizeof(double));
}

TEST_CASE("loops of unknown trip count: online snapshots, then every stretch reversed",
          "[checkpoint][schedule]") {
  // The state is the number of the iteration it is before; a snapshot and
  // a replay must give it back exactly. Every iteration must be taped from
  // the right state and reversed once, last first, with at most one
  // segment on the tape and no slot beyond the snapshots + 1 acquired.
  for (std::int64_t segment = 1; segment <= 4; ++segment)
    for (int snapshots = 1; snapshots <= 7; ++snapshots)
      for (std::int64_t trips = 0; trips <= 160; ++trips) {
        LoopCheckpoints c;
        c.startOnline(snapshots, sizeof(std::int64_t), segment);
        std::int64_t x = 0;
        for (std::int64_t n = 0; n < trips; ++n) {
          if (c.due(n))
            c.put(x);
          x = x + 1;
        }
        c.endOnline(trips);
        REQUIRE(c.steps() == trips);
        SimulatedTape tape(trips);
        for (ScheduleAction a = c.next(); a.kind != ScheduleAction::Done; a = c.next()) {
          switch (a.kind) {
          case ScheduleAction::Restore:
            REQUIRE(a.slot >= 0);
            REQUIRE(a.slot <= snapshots);
            c.beginLoad(a.slot);
            c.get(x);
            REQUIRE(x == a.step);
            break;
          case ScheduleAction::Store:
            REQUIRE(a.slot >= 0);
            REQUIRE(a.slot <= snapshots);
            REQUIRE(x == a.step);
            c.beginSave(a.slot);
            c.put(x);
            break;
          case ScheduleAction::Advance:
            REQUIRE(x == a.step);
            REQUIRE(a.to > a.step);
            x = a.to;
            break;
          case ScheduleAction::Tape:
            REQUIRE(x == a.step);
            tape.tape(a);
            x = a.to;
            break;
          case ScheduleAction::Reverse:
            tape.reverse(a);
            x = -1; // the reverse leaves the state undefined
            break;
          default:
            FAIL("unknown action");
          }
        }
        REQUIRE(tape.expected == -1);
        REQUIRE(tape.values.empty());
        REQUIRE(tape.peak <= static_cast<std::size_t>(segment));
        c.finish();
        REQUIRE(CheckpointStore::current().bytes() == 0);
      }
}

TEST_CASE("online plans keep snapshots and a segment's tape within the budget",
          "[checkpoint]") {
  unsetenv("CGP_MEMORY_BUDGET");
  Tape::current().clear();
  LoopSite site;
  CHECK(planOnlineReversal(site, 100, 50, 0, -1) == 0); // no budget: tape
  // 20000 bytes, iterations planned at twice the 100 bytes measured: a
  // segment of (20000 - 16) / 2 / 200 = 49 iterations, and (20000 - 16 -
  // 9800) / 50 - 1 = 202 snapshots (one more slot acquired).
  CHECK(planOnlineReversal(site, 100, 50, 0, 20000) == 202);
  CHECK(site.segment == 49);
  CHECK(203 * 50 + 49 * 200 + 16 <= 20000);
  // Large budgets: at most 1024 snapshots.
  CHECK(planOnlineReversal(site, 100, 50, 0, 1 << 30) == 1024);
  // Below the minimum: one snapshot anyway.
  CHECK(planOnlineReversal(site, 100, 50, 0, 10) == 1);
}

namespace {

/// Runs a counted loop of `steps` iterations on `site`'s plan, both sweeps,
/// as generated code does: iteration i pushes `doubles(i)` copies of i on
/// the real tape when taped, and its reverse pops and checks them. The
/// state is the number of the iteration it is before. `local` stands for a
/// variable declared in the body, left out of snapshots: iteration i sets
/// it to i, taping its old value, and its reverse reads it, then pops the
/// old value back (Keep actions keep it where iterations taped first end).
/// Returns the most tape and snapshot bytes held at once.
template <class Doubles>
std::size_t runCountedLoop(LoopSite &site, int snapshots, std::int64_t steps, Doubles doubles) {
  Tape &tape = Tape::current();
  LoopCheckpoints c;
  c.start(steps, snapshots, sizeof(std::int64_t), site);
  std::int64_t x = 0, expected = steps - 1, local = -1;
  std::size_t peak = 0;
  bool forward = true;
  for (ScheduleAction a = c.next(); a.kind != ScheduleAction::Done; a = c.next()) {
    peak = std::max(peak, tape.bytes() + CheckpointStore::current().bytes());
    switch (a.kind) {
    case ScheduleAction::Store:
      REQUIRE(x == a.step);
      c.beginSave(a.slot);
      c.put(x);
      break;
    case ScheduleAction::Restore:
      c.beginLoad(a.slot);
      c.get(x);
      REQUIRE(x == a.step);
      local = -999; // not in the snapshot
      break;
    case ScheduleAction::Advance:
      REQUIRE(x == a.step);
      x = a.to;
      local = a.to - 1;
      break;
    case ScheduleAction::Tape:
      REQUIRE(x == a.step);
      for (std::int64_t i = a.step; i < a.to; ++i) {
        tape.push(local);
        local = i;
        for (int n = doubles(i); n > 0; --n)
          tape.push(static_cast<double>(i));
      }
      x = a.to;
      break;
    case ScheduleAction::Keep:
      REQUIRE(site.keptBytes > 0);
      if (forward)
        tape.push(local);
      else
        local = tape.pop<std::int64_t>();
      break;
    case ScheduleAction::Reverse:
      peak = std::max(peak, tape.bytes() + CheckpointStore::current().bytes());
      if (forward) { // the forward sweep stops here; the reverse sweep takes it again
        forward = false;
        c.hold();
        break;
      }
      for (std::int64_t i = a.to - 1; i >= a.step; --i) {
        REQUIRE(i == expected);
        REQUIRE(local == i); // what iteration i left, as a plain tape gives it
        for (int n = doubles(i); n > 0; --n)
          REQUIRE(tape.pop<double>() == static_cast<double>(i));
        local = tape.pop<std::int64_t>();
        --expected;
      }
      x = -1;
      break;
    default:
      FAIL("unknown action");
    }
  }
  REQUIRE(expected == -1); // every iteration reversed once, last first
  REQUIRE(c.steps() == steps);
  c.finish();
  REQUIRE(CheckpointStore::current().bytes() == 0);
  REQUIRE(tape.bytes() == 0);
  return peak;
}

} // namespace

TEST_CASE("a loop whose iterations tape different amounts tapes first while they fit",
          "[checkpoint]") {
  unsetenv("CGP_MEMORY_BUDGET");
  Tape::current().clear();
  resetStats();
  // 1000 iterations of at most 136 bytes (17 values) do not fit in 64 KiB
  // at the most; every 16th tapes 136, the others 16: 23440 bytes in all.
  const std::int64_t budget = 65536;
  const IterationTapes uneven = IterationTapes::UnevenlyKeepingLocals;
  auto rare = [](std::int64_t i) { return i % 16 == 15 ? 16 : 1; };
  LoopSite site;
  int snapshots = planLoopReversal(site, 1000, 136, 8, 0, budget, false, 0, uneven, 8);
  REQUIRE(snapshots >= 1);
  CHECK(site.tapeFirst);
  // All of it is taped as it runs: no snapshot, nothing run again.
  std::size_t peak = runCountedLoop(site, snapshots, 1000, rare);
  CHECK(peak == 8 * (1000 / 16 * 16 + (1000 - 1000 / 16)) + 8 * 1000);
  CHECK(stats().recomputedIterations == 0);

  // Every iteration tapes the most: the first ones keep to half the room,
  // the rest is checkpointed in what they leave, and the budget holds.
  auto costly = [](std::int64_t) { return 16; };
  site = LoopSite();
  snapshots = planLoopReversal(site, 1000, 136, 8, 0, budget, false, 0, uneven, 8);
  peak = runCountedLoop(site, snapshots, 1000, costly);
  CHECK(peak <= static_cast<std::size_t>(budget));
  CHECK(peak > static_cast<std::size_t>(budget) / 2);

  // Mixed: a costly stretch in the middle, under several budgets and trip
  // counts; every iteration is reversed in order and the budget holds.
  auto middle = [](std::int64_t i) { return i >= 300 && i < 500 ? 16 : 2; };
  for (std::int64_t b : {4096, 9000, 20000, 65536})
    for (std::int64_t steps : {2, 50, 999, 1000}) {
      site = LoopSite();
      snapshots = planLoopReversal(site, steps, 136, 8, 0, b, false, 0, uneven, 8);
      if (snapshots == 0)
        continue; // it fits at the most: the generated code tapes it plainly
      peak = runCountedLoop(site, snapshots, steps, middle);
      CHECK(peak <= static_cast<std::size_t>(b));
    }

  // Iterations that tape alike never tape first, and their plan reverses
  // the body's own variables right without Keep actions.
  site = LoopSite();
  snapshots = planLoopReversal(site, 1000, 136, 8, 0, budget);
  CHECK_FALSE(site.tapeFirst);
  runCountedLoop(site, snapshots, 1000, costly);
  resetStats();
}

TEST_CASE("a loop with loops inside tapes first once its last run fitted in half the room",
          "[checkpoint]") {
  unsetenv("CGP_MEMORY_BUDGET");
  Tape::current().clear();
  const std::int64_t budget = 65536;
  const IterationTapes uneven = IterationTapes::UnevenlyKeepingLocals;
  // Iterations that hold 8 + 8 * 20 bytes taped (what their loops inside
  // taped, here pushed by the simulated body): 100 of them, 16800 bytes.
  auto light = [](std::int64_t) { return 20; };
  LoopSite site;
  // The first run: snapshots, every iteration but the last run twice, and
  // what each held taped is measured.
  int snapshots = planLoopReversal(site, 100, 1e6, 8, 0, budget, true, 0, uneven, 8);
  REQUIRE(snapshots >= 1);
  CHECK(site.leavesRoom);
  CHECK_FALSE(site.tapeFirst);
  resetStats();
  runCountedLoop(site, snapshots, 100, light);
  CHECK(stats().recomputedIterations == 99);
  CHECK(site.wholeSteps == 100);
  CHECK(site.wholeBytes == 100 * (8 + 8 * 20));
  // The second: it fits in half the room, so it tapes as it goes and
  // nothing runs twice; no retrace (the same plan, measured to fit).
  resetStats();
  snapshots = planLoopReversal(site, 100, 1e6, 8, 0, budget, true, 0, uneven, 8);
  CHECK(site.tapeFirst);
  CHECK(stats().retraces == 0);
  std::size_t peak = runCountedLoop(site, snapshots, 100, light);
  CHECK(stats().recomputedIterations == 0);
  CHECK(peak == 100 * (8 + 8 * 20));
  // Scaled to another trip count: 150 of them (25200 bytes) still fit in
  // half the room, 250 (42000) do not.
  CHECK(planLoopReversal(site, 150, 1e6, 8, 0, budget, true, 0, uneven, 8) >= 1);
  CHECK(site.tapeFirst);
  CHECK(planLoopReversal(site, 250, 1e6, 8, 0, budget, true, 0, uneven, 8) >= 1);
  CHECK_FALSE(site.tapeFirst);
  // Other data: iterations that hold 808 bytes each, 80800 in all. The
  // plan from the light run tapes first; it stops before half the room,
  // the rest is checkpointed in the half kept, and the budget holds.
  auto heavy = [](std::int64_t) { return 100; };
  snapshots = planLoopReversal(site, 100, 1e6, 8, 0, budget, true, 0, uneven, 8);
  REQUIRE(site.tapeFirst);
  resetStats();
  peak = runCountedLoop(site, snapshots, 100, heavy);
  CHECK(peak <= static_cast<std::size_t>(budget));
  CHECK(stats().recomputedIterations > 0);
  CHECK(site.wholeBytes == 100 * (8 + 8 * 100));
  // So the next run plans as the first did.
  planLoopReversal(site, 100, 1e6, 8, 0, budget, true, 0, uneven, 8);
  CHECK_FALSE(site.tapeFirst);
  // Without a budget it tapes, and loops alike never tape first.
  CHECK(planLoopReversal(site, 100, 1e6, 8, 0, -1, true, 0, uneven, 8) == 0);
  site = LoopSite();
  site.wholeBytes = 10;
  site.wholeSteps = 100;
  planLoopReversal(site, 100, 1e6, 8, 0, budget, true);
  CHECK_FALSE(site.tapeFirst);
  resetStats();
}
