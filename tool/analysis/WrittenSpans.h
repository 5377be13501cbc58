//===- WrittenSpans.h - the elements a loop overwrites in place -*- C++ -*-===//
//
// A recurrence that updates the caller's buffer in place (an RNN's state
// `h[i] = tanh(...)` at every step, a relaxation sweeping a grid) writes
// the same elements at every iteration. Snapshots of the loop's state can
// hold them if the code knows, at the loop's entry, which elements those
// are: a span [first, end) of the buffer that every assignment of the loop
// stays in. This analysis finds it from the index expressions, as
// polynomials (IndexPolynomials.h) in values the loop does not change and
// in the indices of the loops inside it, each running over a range the
// loop does not change either: `h[i]` for i from 0 below n spans [0, n),
// `g[r * w + c]` spans [0, rows * w) when r and c run over whole ranges.
//
// Every element of the span must be memory the loop writes, so that
// copying it is safe: an assignment counts only where it runs for every
// value of the indices of the loops around it (no condition, no loop that
// may leave early, indices stepping by one), and only when those loops run
// at all, which the generated code checks at the loop's entry. The span of
// several assignments is the least one that holds them all; elements
// between two that the loop writes lie in the same buffer.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_WRITTENSPANS_H
#define CGP_ANALYSIS_WRITTENSPANS_H

#include "analysis/IndexPolynomials.h"

#include <string>
#include <vector>

namespace cgp {

/// A loop around an assignment, inside the analysed loop: its index runs
/// from `lowest` to `highest` (it does not run when highest < lowest), and
/// the index the assignment writes holds `coefficient * index` (an empty
/// coefficient where it does not depend on it).
struct SpanLoop {
  Polynomial lowest, highest, coefficient;
};

/// One assignment of the buffer: at every iteration, when each loop around
/// it runs, it writes the elements `base + coefficient * index` of those
/// loops, over every value of their indices.
struct SpanWrite {
  Polynomial base;
  std::vector<SpanLoop> loops;
};

/// The span of a caller's buffer that a loop overwrites: the assignments
/// that make it, or why it cannot be known at the loop's entry.
struct WrittenSpan {
  std::vector<SpanWrite> writes;
  std::string why; // one line for a build-time warning; empty if known
  /// An index moves with the loop's own (a row per iteration, which
  /// RowWrites.h may keep in place instead).
  bool movesWithLoop = false;
};

/// The span of `buffer` that the iterations of `loop` (a loop of `f`)
/// assign, in terms of values known at the loop's entry.
WrittenSpan analyzeWrittenSpan(const Function &f, const StmtRef &loop, const Var *buffer);

} // namespace cgp

#endif // CGP_ANALYSIS_WRITTENSPANS_H
