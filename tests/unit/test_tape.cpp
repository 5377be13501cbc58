// test_tape.cpp - unit tests of the runtime cgp_rt: the chunked, thread-local
// tape (LIFO round trips, chunk crossings, storage kept between calls, peaks)
// and the CGP_STATS counters with the exact `cgp-stats:` line format.
#include "cgp/runtime.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <thread>

using cgp::rt::Tape;

namespace {
// A private tape per test: Tape::current() is shared by every test of a thread.
struct Big {
  std::array<unsigned char, 300 * 1024> bytes; // larger than the first chunks
};

// Pushes value i of a fixed mixed-type sequence; popValue checks it back.
void pushValue(Tape &tape, std::uint64_t i) {
  switch (i % 6) {
  case 0: tape.push(static_cast<double>(i) * 0.5); break;
  case 1: tape.push(static_cast<float>(i % 1000) + 0.25f); break;
  case 2: tape.push(static_cast<int>(i) * -3); break;
  case 3: tape.push(i % 4 == 3); break;
  case 4: tape.push(static_cast<std::int64_t>(i) * 1000003); break;
  default: tape.push(static_cast<unsigned char>(i * 7)); break;
  }
}

std::size_t sizeOfValue(std::uint64_t i) {
  static const std::size_t sizes[] = {sizeof(double), sizeof(float), sizeof(int),
                                      sizeof(bool), sizeof(std::int64_t), 1};
  return sizes[i % 6];
}

bool popValue(Tape &tape, std::uint64_t i) {
  switch (i % 6) {
  case 0: return tape.pop<double>() == static_cast<double>(i) * 0.5;
  case 1: return tape.pop<float>() == static_cast<float>(i % 1000) + 0.25f;
  case 2: return tape.pop<int>() == static_cast<int>(i) * -3;
  case 3: return tape.pop<bool>() == (i % 4 == 3);
  case 4: return tape.pop<std::int64_t>() == static_cast<std::int64_t>(i) * 1000003;
  default: return tape.pop<unsigned char>() == static_cast<unsigned char>(i * 7);
  }
}

// One forward/reverse cycle of n mixed values; returns the number of mismatches.
std::uint64_t cycle(Tape &tape, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i)
    pushValue(tape, i);
  tape.notePeak();
  std::uint64_t bad = 0;
  for (std::uint64_t i = n; i-- > 0;)
    bad += popValue(tape, i) ? 0 : 1;
  return bad;
}
} // namespace

TEST_CASE("mixed types come back in LIFO order", "[tape]") {
  Tape tape;
  tape.push(1.5);
  tape.push(2.25f);
  tape.push(-7);
  tape.push(true);
  tape.push(std::int64_t{1} << 40);
  tape.push(static_cast<unsigned char>(200));
  CHECK(tape.bytes() == sizeof(double) + sizeof(float) + sizeof(int) + sizeof(bool) +
                            sizeof(std::int64_t) + 1);
  CHECK(tape.pop<unsigned char>() == 200);
  CHECK(tape.pop<std::int64_t>() == (std::int64_t{1} << 40));
  bool flag = false;
  tape.pop(flag);
  CHECK(flag);
  CHECK(tape.pop<int>() == -7);
  CHECK(tape.pop<float>() == 2.25f);
  CHECK(tape.pop<double>() == 1.5);
  CHECK(tape.bytes() == 0);
}

TEST_CASE("more than 100 MiB crosses many chunks and comes back intact", "[tape]") {
  Tape tape;
  const std::uint64_t n = 26'000'000; // about 108 MiB of mixed values
  std::size_t expected = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    pushValue(tape, i);
    expected += sizeOfValue(i);
  }
  REQUIRE(expected > (std::size_t(100) << 20));
  CHECK(tape.bytes() == expected);
  CHECK(tape.allocations() > 5); // 64 KiB, 128 KiB, ... 64 MiB, 64 MiB
  CHECK(tape.capacityBytes() >= expected);
  std::uint64_t bad = 0;
  for (std::uint64_t i = n; i-- > 0;) {
    bad += popValue(tape, i) ? 0 : 1;
    expected -= sizeOfValue(i);
    if (tape.bytes() != expected) {
      FAIL("bytes() is " << tape.bytes() << " after popping value " << i << ", expected "
                         << expected);
    }
  }
  CHECK(bad == 0);
  CHECK(tape.bytes() == 0);
}

TEST_CASE("bytes() follows pushes and pops", "[tape]") {
  Tape tape;
  CHECK(tape.bytes() == 0);
  CHECK(tape.capacityBytes() == 0);
  CHECK(tape.allocations() == 0);
  tape.push(1.0);
  CHECK(tape.bytes() == 8);
  tape.push(2);
  CHECK(tape.bytes() == 8 + sizeof(int));
  tape.pop<int>();
  CHECK(tape.bytes() == 8);
  tape.pop<double>();
  CHECK(tape.bytes() == 0);
}

TEST_CASE("repeated identical cycles allocate nothing", "[tape]") {
  Tape tape;
  const std::uint64_t n = 3'000'000; // about 14 MiB: several chunks
  REQUIRE(cycle(tape, n) == 0);
  const std::size_t allocations = tape.allocations();
  const std::size_t capacity = tape.capacityBytes();
  CHECK(allocations > 1);
  for (int round = 0; round < 5; ++round) {
    REQUIRE(cycle(tape, n) == 0);
    CHECK(tape.allocations() == allocations);
    CHECK(tape.capacityBytes() == capacity);
  }
  // A smaller call reuses the same storage too.
  REQUIRE(cycle(tape, n / 3) == 0);
  CHECK(tape.allocations() == allocations);
  CHECK(tape.capacityBytes() == capacity);
}

TEST_CASE("peakBytes() is the largest size seen at notePeak()", "[tape]") {
  Tape tape;
  CHECK(tape.peakBytes() == 0);
  for (int i = 0; i < 100; ++i)
    tape.push(static_cast<double>(i));
  tape.notePeak();
  CHECK(tape.peakBytes() == 800);
  for (int i = 0; i < 50; ++i)
    tape.pop<double>();
  tape.notePeak();
  CHECK(tape.peakBytes() == 800); // a peak never goes down
  for (int i = 0; i < 150; ++i)
    tape.push(static_cast<double>(i));
  tape.notePeak();
  CHECK(tape.peakBytes() == 1600);
}

TEST_CASE("the peak noted at a chunk change is the true size", "[tape]") {
  Tape tape;
  // Fill the 64 KiB first chunk exactly, then one more double starts chunk 2.
  const int perChunk = (64 * 1024) / 8;
  for (int i = 0; i <= perChunk; ++i)
    tape.push(static_cast<double>(i));
  CHECK(tape.allocations() == 2);
  CHECK(tape.bytes() == std::size_t(perChunk + 1) * 8);
  CHECK(tape.peakBytes() <= tape.bytes());
  tape.notePeak();
  CHECK(tape.peakBytes() == tape.bytes());
}

TEST_CASE("a value larger than a kept chunk still pops in order", "[tape]") {
  Tape tape;
  // Fill chunk 1 (64 KiB) and spill one double into chunk 2 (128 KiB).
  const int perChunk = (64 * 1024) / 8;
  for (int i = 0; i <= perChunk; ++i)
    tape.push(static_cast<double>(i));
  REQUIRE(tape.allocations() == 2);
  tape.pop<double>(); // chunk 2 is now empty but stays on top
  // Too big for the empty chunk 2: goes to a chunk of its own above it.
  static Big big;
  for (std::size_t i = 0; i < big.bytes.size(); ++i)
    big.bytes[i] = static_cast<unsigned char>(i * 31);
  tape.push(big);
  tape.push(3.5);
  CHECK(tape.bytes() == std::size_t(perChunk) * 8 + sizeof(Big) + 8);
  CHECK(tape.pop<double>() == 3.5);
  static Big back;
  tape.pop(back);
  CHECK(back.bytes == big.bytes);
  bool ok = true;
  for (int i = perChunk - 1; i >= 0; --i)
    ok = ok && tape.pop<double>() == static_cast<double>(i);
  CHECK(ok);
  CHECK(tape.bytes() == 0);
}

TEST_CASE("reserved room takes unchecked pushes and pops across chunks", "[tape]") {
  Tape tape;
  // 60 KiB in the 64 KiB first chunk, then a loop that reserves 100 KiB: it
  // goes to the next chunk (128 KiB) whole; the second reservation, 40 KB,
  // does not fit what is left there and takes a third.
  const int before = (60 * 1024) / 8, first = (100 * 1024) / 8, second = 10000;
  for (int i = 0; i < before; ++i)
    tape.push(static_cast<double>(i));
  tape.reserve(std::size_t(first) * 8);
  for (int i = 0; i < first; ++i)
    tape.pushReserved(static_cast<double>(-i));
  tape.reserve(std::size_t(second) * 4);
  for (int i = 0; i < second; ++i)
    tape.pushReserved(static_cast<std::int32_t>(i * 7));
  tape.push(true); // a checked push after them
  CHECK(tape.bytes() == std::size_t(before + first) * 8 + std::size_t(second) * 4 + 1);
  CHECK(tape.allocations() == 3);
  CHECK(tape.pop<bool>());
  tape.exposeReserved(std::size_t(second) * 4);
  bool ok = true;
  for (int i = second - 1; i >= 0; --i)
    ok = ok && tape.popReserved<std::int32_t>() == i * 7;
  // The third chunk is empty now: exposing the first reservation brings the
  // chunk that holds it back to the top.
  tape.exposeReserved(std::size_t(first) * 8);
  for (int i = first - 1; i >= 0; --i)
    ok = ok && tape.popReserved<double>() == static_cast<double>(-i);
  for (int i = before - 1; i >= 0; --i)
    ok = ok && tape.pop<double>() == static_cast<double>(i);
  CHECK(ok);
  CHECK(tape.bytes() == 0);
  // Nothing reserved, nothing exposed: an empty tape stays as it is.
  tape.reserve(0);
  tape.exposeReserved(0);
  CHECK(tape.bytes() == 0);
}

TEST_CASE("a checked push that takes a new chunk keeps the value", "[tape]") {
  Tape tape;
  const int perChunk = (64 * 1024) / 8;
  for (int i = 0; i < perChunk; ++i)
    tape.push(static_cast<double>(i));
  tape.push(static_cast<std::int32_t>(-5)); // the out-of-line path
  tape.push(2.25);
  CHECK(tape.allocations() == 2);
  CHECK(tape.pop<double>() == 2.25);
  CHECK(tape.pop<std::int32_t>() == -5);
  CHECK(tape.pop<double>() == static_cast<double>(perChunk - 1));
}

TEST_CASE("clear() empties the tape and keeps its storage", "[tape]") {
  Tape tape;
  for (int i = 0; i < 100000; ++i)
    tape.push(static_cast<double>(i));
  const std::size_t allocations = tape.allocations();
  const std::size_t capacity = tape.capacityBytes();
  tape.clear();
  CHECK(tape.bytes() == 0);
  CHECK(tape.capacityBytes() == capacity);
  REQUIRE(cycle(tape, 100000) == 0);
  CHECK(tape.allocations() == allocations);
  CHECK(tape.capacityBytes() == capacity);
  tape.clear(); // on an empty tape too
  CHECK(tape.bytes() == 0);
  Tape fresh;
  fresh.clear();
  CHECK(fresh.bytes() == 0);
}

TEST_CASE("each thread has its own Tape::current()", "[tape][threads]") {
  Tape &mine = Tape::current();
  CHECK(&mine == &Tape::current());
  const std::size_t before = mine.bytes();
  mine.push(42.0);
  const Tape *other[2] = {nullptr, nullptr};
  std::uint64_t bad[2] = {0, 0};
  std::thread workers[2];
  for (int t = 0; t < 2; ++t) {
    workers[t] = std::thread([t, &other, &bad] {
      Tape &tape = Tape::current();
      other[t] = &tape;
      bad[t] = tape.bytes(); // a new thread starts with an empty tape
      bad[t] += cycle(tape, 200000 + 1000 * t);
    });
  }
  for (std::thread &w : workers)
    w.join();
  CHECK(other[0] != &mine);
  CHECK(other[1] != &mine);
  CHECK(other[0] != other[1]);
  CHECK(bad[0] == 0);
  CHECK(bad[1] == 0);
  CHECK(mine.bytes() == before + 8);
  CHECK(mine.pop<double>() == 42.0);
}

TEST_CASE("countCall(), stats() and resetStats()", "[stats]") {
  cgp::rt::resetStats();
  cgp::rt::Stats s = cgp::rt::stats();
  CHECK(s.peakTapeBytes == 0);
  CHECK(s.calls == 0);
  CHECK(s.retraces == 0);
  CHECK(s.recomputedIterations == 0);
  for (int i = 0; i < 3; ++i)
    cgp::rt::countCall();
  CHECK(cgp::rt::stats().calls == 3);
  std::thread([] { cgp::rt::countCall(); }).join();
  CHECK(cgp::rt::stats().calls == 4); // process-wide, not per thread
  cgp::rt::resetStats();
  CHECK(cgp::rt::stats().calls == 0);
}

TEST_CASE("the process-wide peak follows notePeak() after resetStats()", "[stats]") {
  Tape &tape = Tape::current();
  tape.clear();
  for (int i = 0; i < 1000; ++i)
    tape.push(1.0);
  tape.notePeak();
  tape.clear();
  cgp::rt::resetStats();
  // Smaller than this tape's own earlier peak, but the first since the reset.
  for (int i = 0; i < 10; ++i)
    tape.push(1.0);
  tape.notePeak();
  CHECK(cgp::rt::stats().peakTapeBytes == 80);
  // The largest over all threads.
  std::thread([] {
    Tape &t = Tape::current();
    for (int i = 0; i < 20; ++i)
      t.push(1.0);
    t.notePeak();
  }).join();
  CHECK(cgp::rt::stats().peakTapeBytes == 160);
  tape.clear();
  cgp::rt::resetStats();
}

TEST_CASE("statsLine() has the exact CGP_STATS format", "[stats]") {
  cgp::rt::resetStats();
  CHECK(cgp::rt::statsLine() == "cgp-stats: {\"peak_tape_bytes\": 0, \"calls\": 0, "
                                "\"retraces\": 0, \"recomputed_iterations\": 0, "
                                "\"kernels\": {}}");
  Tape &tape = Tape::current();
  tape.clear();
  for (int i = 0; i < 4; ++i)
    tape.push(static_cast<double>(i));
  tape.notePeak();
  cgp::rt::countCall();
  cgp::rt::countCall();
  const std::string line = cgp::rt::statsLine();
  const std::string prefix = "cgp-stats: ";
  REQUIRE(line.compare(0, prefix.size(), prefix) == 0);
  CHECK(line.find('\n') == std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(line.substr(prefix.size()));
  REQUIRE(j.is_object());
  CHECK(j.size() == 5);
  CHECK(j.at("peak_tape_bytes").get<std::uint64_t>() == 32);
  CHECK(j.at("calls").get<std::uint64_t>() == 2);
  CHECK(j.at("retraces").get<std::uint64_t>() == 0);
  CHECK(j.at("recomputed_iterations").get<std::uint64_t>() == 0);
  CHECK(j.at("kernels").empty()); // no gradient with counters of its own ran
  for (const auto &item : j.items())
    if (item.key() != "kernels")
      CHECK(item.value().is_number_unsigned());
  tape.clear();
  cgp::rt::resetStats();
}

TEST_CASE("CGP_STATS gives each gradient's figures under its name", "[stats]") {
  cgp::rt::resetStats();
  Tape &tape = Tape::current();
  tape.clear();
  cgp::rt::GradientStats &f = cgp::rt::gradientStats("f_grad");
  cgp::rt::GradientStats &g = cgp::rt::gradientStats("ns::g_grad");
  CHECK(&cgp::rt::gradientStats("f_grad") == &f); // one record per name
  cgp::rt::countCall(f);
  for (int i = 0; i < 8; ++i)
    tape.push(1.0);
  tape.notePeak(); // 64 bytes, in f's call
  tape.clear();
  cgp::rt::countCall(g);
  tape.push(1.0);
  tape.notePeak(); // 8 bytes, in g's call
  tape.clear();
  cgp::rt::countCall(g);
  std::thread([] {
    // Another thread's call of f counts for f, not for the gradient this
    // thread last entered.
    cgp::rt::countCall(cgp::rt::gradientStats("f_grad"));
    Tape &mine = Tape::current();
    for (int i = 0; i < 2; ++i)
      mine.push(1.0);
    mine.notePeak();
    mine.clear();
  }).join();
  CHECK(cgp::rt::stats().calls == 4);
  CHECK(cgp::rt::stats().peakTapeBytes == 64);
  CHECK(cgp::rt::stats("f_grad").calls == 2);
  CHECK(cgp::rt::stats("f_grad").peakTapeBytes == 64);
  CHECK(cgp::rt::stats("ns::g_grad").calls == 2);
  CHECK(cgp::rt::stats("ns::g_grad").peakTapeBytes == 8);
  CHECK(cgp::rt::stats("never_ran").calls == 0);
  const std::string line = cgp::rt::statsLine();
  const nlohmann::json j = nlohmann::json::parse(line.substr(std::string("cgp-stats: ").size()));
  CHECK(j.at("calls").get<std::uint64_t>() == 4);
  const nlohmann::json &kernels = j.at("kernels");
  REQUIRE(kernels.size() == 2);
  CHECK(kernels.at("f_grad").at("calls").get<std::uint64_t>() == 2);
  CHECK(kernels.at("f_grad").at("peak_tape_bytes").get<std::uint64_t>() == 64);
  CHECK(kernels.at("ns::g_grad").at("calls").get<std::uint64_t>() == 2);
  CHECK(kernels.at("ns::g_grad").at("peak_tape_bytes").get<std::uint64_t>() == 8);
  CHECK(kernels.at("ns::g_grad").at("retraces").get<std::uint64_t>() == 0);
  CHECK(kernels.at("ns::g_grad").at("recomputed_iterations").get<std::uint64_t>() == 0);
  cgp::rt::resetStats();
  CHECK(cgp::rt::stats("f_grad").calls == 0);
}

TEST_CASE("the redo tape puts back the first kept value of each slot", "[tape][redo]") {
  // A reverse sweep restores h[0] three times (its values before three
  // overwrites); keep() saves what it overwrites, replayTo() puts back the
  // value h[0] had before the first restore: the kernel's final value.
  Tape &redo = Tape::redo();
  const std::size_t mark = redo.bytes();
  double h[2] = {4.0, -1.0};
  float f = 2.5f;
  const double restored[3] = {3.0, 2.0, 1.0};
  for (double value : restored) {
    redo.keep(h[0]);
    h[0] = value;
  }
  redo.keep(f);
  f = -7.0f;
  CHECK(h[0] == 1.0);
  redo.replayTo(mark);
  CHECK(h[0] == 4.0);
  CHECK(h[1] == -1.0);
  CHECK(f == 2.5f);
  CHECK(redo.bytes() == mark);
}

TEST_CASE("keepElements() keeps a span at once, under keep()s of its elements", "[tape][redo]") {
  // A loop's reverse phase keeps the span of h its snapshots restore, then
  // restores it; a later restore of one element keeps that element too.
  // The span's values, kept first, are what comes back.
  Tape &redo = Tape::redo();
  const std::size_t mark = redo.bytes();
  double h[4] = {1.0, 2.0, 3.0, 4.0};
  redo.keepElements(h + 1, 2);
  h[1] = -1.0;
  h[2] = -2.0;
  redo.keep(h[2]);
  h[2] = -3.0;
  redo.keepElements(h, 0); // an empty span keeps nothing
  redo.replayTo(mark);
  CHECK(h[0] == 1.0);
  CHECK(h[1] == 2.0);
  CHECK(h[2] == 3.0);
  CHECK(h[3] == 4.0);
  CHECK(redo.bytes() == mark);
}

TEST_CASE("the redo tape does not count in stats()", "[tape][redo][stats]") {
  cgp::rt::resetStats();
  Tape &redo = Tape::redo();
  double slot = 0.0;
  for (int i = 0; i < 100000; ++i)
    redo.keep(slot); // crosses chunks, which notes peaks
  redo.notePeak();
  CHECK(cgp::rt::stats().peakTapeBytes == 0);
  redo.replayTo(0);
  cgp::rt::resetStats();
}

TEST_CASE("buffers of std::vector locals: sizing, shadows, pool reuse, tape round trips",
          "[runtime][buffer]") {
  using cgp::rt::Buffer;
  using cgp::rt::Shadow;
  double *first = nullptr;
  {
    Buffer<double> v;
    Shadow<double> d(v); // declared before v is sized: sized with it
    CHECK(v.size() == 0);
    cgp::rt::allocate(v, 100);
    REQUIRE(v.size() == 100);
    REQUIRE(d.size() == 100);
    for (int i = 0; i < 100; ++i) {
      CHECK(d[i] == 0.0);
      v[i] = i * 0.5;
      d[i] = 1.0;
    }
    first = v;
    // Growing keeps the elements it held, the shadow's too (new ones zero).
    v.allocate(1000);
    CHECK(v[99] == 49.5);
    CHECK(d.size() == 1000);
    CHECK(d[0] == 1.0);
    CHECK(d[999] == 0.0);
    // A replay shrinks and regrows a vector: the shadow keeps what the
    // reverse sweep added there, and zeroes only memory it never held,
    // also when growing past its block moves it.
    d[900] = 2.5;
    v.allocate(10);
    v.allocate(950);
    CHECK(d[900] == 2.5);
    d[999] = 3.0;
    v.allocate(5000);
    CHECK(d[900] == 2.5);
    CHECK(d[999] == 3.0);
    CHECK(v[99] == 49.5);
    CHECK(d[4999] == 0.0);
    v.allocate(1000);
    // The tape carries the elements and their count.
    Tape tape;
    tape.push(1.5);
    tape.push(v);
    Buffer<double> w;
    Shadow<double> dw(w);
    tape.pop(w);
    CHECK(w.size() == 1000);
    CHECK(w[99] == 49.5);
    CHECK(dw.size() == 1000);
    CHECK(tape.pop<double>() == 1.5);
    Buffer<double> empty;
    tape.push(empty);
    tape.pop(w);
    CHECK(w.size() == 0);
  }
  // A buffer of the same size in a later call takes its block from the pool.
  {
    Buffer<double> once;
    once.allocate(300);
    first = once;
  }
  Buffer<double> again;
  again.allocate(300);
  CHECK(static_cast<double *>(again) == first);
}
