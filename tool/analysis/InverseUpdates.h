//===- InverseUpdates.h - integer updates the reverse sweep undoes -*- C++ -*-===//
//
// An integer variable advanced by `v += e` or `v -= e` (a counter walking a
// packed matrix, `++li`; a pointer walk's offset, `p_at += 2`; a CUDA
// grid-stride index, `i += blockDim.x * gridDim.x`) need not put
// its old value on the tape: the reverse sweep can undo the update with the
// inverse one (`v -= e` / `v += e`), provided it evaluates `e` to the same
// value as the forward sweep did. Integer arithmetic is exact, so the old
// value comes back to the bit (signed overflow is undefined behaviour in the
// primal already; unsigned arithmetic wraps both ways alike).
//
// This file finds the updates where that pays: `e` is a pure integer
// expression, not mentioning `v`, whose variables no loop changes (constants,
// parameters and locals written outside loops) or that are the index of a
// counted loop around the update (the reverse loop rebuilds it), or CUDA's
// runtime constants (blockDim.x, gridDim.x). Such
// operands are at hand in the reverse sweep without taping anything per
// iteration; to-be-recorded analysis (ToBeRecorded.cpp) decides which of
// these updates are inverted (those whose old value the reverse sweep
// needs) and keeps their operands restored like any other value the
// reverse sweep reads.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_INVERSEUPDATES_H
#define CGP_ANALYSIS_INVERSEUPDATES_H

#include "ir/IR.h"

#include <map>
#include <vector>

namespace cgp {

/// The updates of a function that the reverse sweep may undo, each with the
/// variables its step `e` reads (the inverse reads them again).
struct InverseUpdates {
  std::map<const StmtNode *, std::vector<Var *>> operands;

  const std::vector<Var *> *find(const StmtNode *s) const {
    auto it = operands.find(s);
    return it == operands.end() ? nullptr : &it->second;
  }
};

/// The invertible updates of `f`'s body (a prepared function).
InverseUpdates findInverseUpdates(const Function &f);

/// `e` for an update `v += e`, `v -= e`, `v = v + e`, `v = e + v` or
/// `v = v - e` (the last three possibly through integer conversions, as
/// C++ spells `int += unsigned`); null for any other statement.
ExprRef updateStep(const StmtRef &s);

/// `v -= e` for `v += e`, `v += e` for `v -= e`, `v = v - e` for
/// `v = v + e` (keeping its conversions), and so on.
StmtRef inverseUpdate(const StmtRef &update);

} // namespace cgp

#endif // CGP_ANALYSIS_INVERSEUPDATES_H
