//===- RowWrites.h - caller buffers a loop fills one row at a time -*- C++ -*-===//
//
// A loop that integrates a trajectory writes the caller's output buffer:
// step t writes row t (`traj[t * n + i]` for i below n) from the row the
// step before wrote (`traj[(t - 1) * n + i]`). Snapshots hold a loop's
// state, not the caller's memory, so such a loop would have to tape every
// iteration. It need not: when every iteration writes a row of its own,
// and reads only rows that earlier iterations wrote (or that the loop never
// writes, or what the same iteration has just set), and nothing writes the
// buffer after the loop, then what a replay of iteration t reads is still
// in the buffer when the reverse sweep runs, and what it writes is what is
// there already. The buffer needs no snapshot: the loop is held in a
// budget like one whose state is local. The same fact keeps the rows off
// the tape: what the reverse sweep of an iteration reads in the buffer is
// still there when it runs, so the old values of the rows need no push
// (ToBeRecorded.cpp).
//
// This analysis proves that shape from the index expressions: it writes
// each index as a polynomial in the loop's index, the indices of the loops
// inside it and values the loop does not change, and splits it into a row
// (the loop's index plus a constant) times a stride, plus a column below
// the stride (a loop's index that runs from 0 below the stride, `(i + k) %
// n`, `n - 1 - i`, `n - 1`, or a constant below a constant stride; in rows
// of a * n elements, `p * n + i` for a part p below a). A 2-D array's first
// index is its row. Integers assigned once from such polynomials stand for
// them: before the loop (`row = 2 * n`), and at the top of its body
// (`base = t * row`, a local pointer's offset).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_ROWWRITES_H
#define CGP_ANALYSIS_ROWWRITES_H

#include "ir/IR.h"

#include <map>
#include <string>
#include <vector>

namespace cgp {

/// What stands in the way of a counted loop filling a caller's buffer a row
/// per iteration, each row once, reading in its iterations only rows that
/// earlier iterations wrote or that it never writes (or an element the same
/// iteration set before, in the same block), with nothing in its function
/// writing the buffer after the loop; then a replay of any of its
/// iterations finds in the buffer what the first run found. Each reason is
/// one line for the build-time warning; empty where nothing stands in the
/// way.
struct RowFill {
  std::string placed;     // where the loop is: not counted, nested, written after
  std::string rows;       // its accesses are not a row per iteration read before
  std::string readBefore; // code before the loop reads the buffer
  /// The loop fills the buffer a row per iteration.
  bool fillsRows() const { return placed.empty() && rows.empty(); }
  /// Whether the buffer may stay in place when the loop replays: it fills
  /// rows, and, with `oldValuesTaped` (the forward sweep tapes what the loop
  /// overwrites and the reverse sweep puts it back), nothing before the loop
  /// reads the buffer either, since a replay would tape and put back what
  /// the first run left there, not what that code read. Else `why`.
  bool holds(bool oldValuesTaped, std::string &why) const;
};

/// The analysis of `loop` of `f` for `buffer`.
RowFill analyzeRowFill(const Function &f, const StmtRef &loop, const Var *buffer);

/// For each counted loop of `f`'s body that is not inside another loop, the
/// analysis of each caller's buffer it assigns elements of.
using RowFills = std::map<const StmtNode *, std::map<const Var *, RowFill, VarLess>>;
RowFills rowFills(const Function &f);

/// Of `fills`, the loops that fill buffers a row per iteration, each with
/// those buffers. To-be-recorded analysis tapes no old value of such a
/// buffer when nothing before the loop needs it: what the reverse sweep of
/// an iteration reads there (rows written before, the row it wrote) is
/// still there when it runs, since nothing writes those rows again.
std::map<const StmtNode *, std::vector<const Var *>> rowsFilledInPlace(const RowFills &fills);

} // namespace cgp

#endif // CGP_ANALYSIS_ROWWRITES_H
