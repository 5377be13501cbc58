// simulated_tape.h - what the schedule tests share: a tape of iteration
// numbers that Tape actions push and Reverse actions must pop in order,
// last iteration first, one iteration of the loop at a time.
#ifndef CGP_TESTS_SIMULATED_TAPE_H
#define CGP_TESTS_SIMULATED_TAPE_H

#include "cgp/schedule.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

struct SimulatedTape {
  explicit SimulatedTape(std::int64_t steps) : expected(steps - 1) {}

  /// A Tape action, run from the state before iteration a.step.
  void tape(const cgp::rt::ScheduleAction &a) {
    REQUIRE(a.to > a.step);
    REQUIRE(a.to - 1 <= expected);
    for (std::int64_t i = a.step; i < a.to; ++i)
      values.push_back(i);
    peak = std::max(peak, values.size());
  }

  /// A Reverse action: its iterations must be on top, the last first, and
  /// the next ones to reverse.
  void reverse(const cgp::rt::ScheduleAction &a) {
    REQUIRE(a.to > a.step);
    for (std::int64_t i = a.to - 1; i >= a.step; --i) {
      REQUIRE(!values.empty());
      REQUIRE(values.back() == i);
      REQUIRE(i == expected);
      values.pop_back();
      --expected;
    }
  }

  std::vector<std::int64_t> values;
  std::size_t peak = 0;
  std::int64_t expected; // the next iteration to reverse (-1: all done)
};

#endif
