// Unit tests of the runtime's loop checkpoints: sizes, the budget, loop
// plans, snapshot storage, and dropping a probe run from the tape.
#include "cgp/checkpoint.h"

#include <catch2/catch.hpp>

#include <cstdlib>

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

TEST_CASE("loops tape every iteration when it fits, else take what fits", "[checkpoint]") {
  unsetenv("CGP_MEMORY_BUDGET");
  Tape::current().clear();
  LoopSite site;
  // No budget: always tape.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, -1) == 0);
  // Fits: 1000 * 100 <= 200000.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 200000) == 0);
  // Does not fit: (20000 - 100) / 50 = 398 snapshots.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 20000) == 398);
  // What comes after the loop is kept out of the room.
  CHECK(planLoopReversal(site, 1000, 100, 50, 10000, 20000) == 198);
  // Below the minimum: one snapshot anyway.
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 10) == 1);
  // Never more snapshots than iterations.
  CHECK(planLoopReversal(site, 10, 1000, 1, 0, 5000) == 10);
  // CGP_MEMORY_BUDGET overrides the compiled budget.
  setenv("CGP_MEMORY_BUDGET", "1MiB", 1);
  CHECK(memoryBudget(20000) == 1048576);
  CHECK(planLoopReversal(site, 1000, 100, 50, 0, 20000) == 0);
  setenv("CGP_MEMORY_BUDGET", "nonsense", 1);
  CHECK(memoryBudget(20000) == 20000);
  unsetenv("CGP_MEMORY_BUDGET");
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

TEST_CASE("finish() counts the replayed iterations beyond the forward run", "[checkpoint][stats]") {
  resetStats();
  {
    LoopCheckpoints c;
    c.start(37, 1, 8);
    while (c.next().kind != ScheduleAction::Done) {
    }
    c.finish();
  }
  CHECK(stats().recomputedIterations ==
        static_cast<std::uint64_t>(optimalReplays(37, 1) - 36));
  CHECK(CheckpointStore::current().bytes() == 0);
  resetStats();
}

TEST_CASE("discardTo() drops a probe run across chunks", "[tape]") {
  Tape &t = Tape::current();
  t.clear();
  t.push(1.5);
  const std::size_t mark = t.bytes();
  for (int i = 0; i < 100000; ++i)
    t.push(static_cast<double>(i)); // more than one chunk
  t.discardTo(mark);
  CHECK(t.bytes() == mark);
  t.push(2.5);
  CHECK(t.pop<double>() == 2.5);
  CHECK(t.pop<double>() == 1.5);
  CHECK(t.bytes() == 0);
}
