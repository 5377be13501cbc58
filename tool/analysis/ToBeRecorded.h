//===- ToBeRecorded.h - which overwritten values go on the tape -*- C++ -*-===//
//
// The reverse sweep reads values of the forward sweep (operands of
// nonlinear operations, indices). Each pop of the reverse sweep restores an
// overwritten value into its variable, so at every statement of the reverse
// sweep the variables hold what they held at that statement in the forward
// sweep - for the variables that matter. A value must go on the tape only
// when a statement overwrites it and the reverse sweep of an earlier
// statement reads it ("to be recorded", as in Tapenade). Values never
// overwritten after their use stay off the tape.
//
// Two kinds of overwrite need no tape: an integer update `v += e` / `v -= e`
// that InverseUpdates.h lists, which the reverse sweep undoes (`v -= e`),
// needing the value after it and `e`'s operands instead of the value before
// it; and an array element a loop loads each iteration, which the reverse
// sweep loads again from the previous iteration (Reloads.h), needing what
// the load reads, where nothing before the loop needs the array; and a row
// of a caller's buffer that a loop fills a row per iteration (RowWrites.h),
// where nothing before the loop needs the buffer: nothing writes that row
// again, so what the reverse sweep reads there is what the forward sweep
// read. And a push_back onto memory its vector never held (Appends.h):
// no statement has read what was there.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_TOBERECORDED_H
#define CGP_ANALYSIS_TOBERECORDED_H

#include "analysis/Activity.h"
#include "analysis/InverseUpdates.h"
#include "analysis/Reloads.h"
#include "analysis/Summaries.h"

#include <map>
#include <set>
#include <vector>

namespace cgp {

struct TbrResult {
  /// Assignments whose old value is pushed before they overwrite it.
  std::set<const StmtNode *> pushes;
  /// Integer updates whose old value the reverse sweep needs, restored by
  /// the inverse update instead of a push and a pop.
  std::set<const StmtNode *> inverts;
  /// Loads of an array element whose old value the reverse sweep needs,
  /// restored by loading again what the previous iteration loaded.
  std::set<const StmtNode *> reloads;
  /// For each call: the pointer arguments whose overwritten elements the
  /// callee must push (the caller's reverse sweep reads them).
  std::map<const StmtNode *, std::vector<bool>> callKeeps;
  /// Variables the reverse sweep reads that hold at the end of the function
  /// the value it needs (a helper pushes them at exit).
  VarSet neededAtExit;

  bool pushes_(const StmtRef &s) const { return pushes.count(s.get()) != 0; }
};

/// `reads` gives, for each statement, the variables its reverse code reads.
/// `neededAtEntry` are variables whose overwrites must always be recorded
/// (pointer parameters whose caller needs their old values). `inverses`:
/// the updates the reverse sweep may undo instead of popping their old
/// value, `reloads` the loads it may repeat (none of either under store-all,
/// which tapes every value).
/// `rowsInPlace`: loops that fill caller's buffers a row per iteration
/// (RowWrites.h), whose writes there tape nothing where the buffer is not
/// needed at the loop's start (none under store-all either).
TbrResult analyzeToBeRecorded(const Function &f,
                              const std::map<const StmtNode *, VarSet> &reads,
                              const VarSet &neededAtEntry, Summaries &summaries,
                              const InverseUpdates &inverses = {},
                              const Reloads &reloads = {},
                              const std::map<const StmtNode *, std::vector<const Var *>>
                                  &rowsInPlace = {});

} // namespace cgp

#endif // CGP_ANALYSIS_TOBERECORDED_H
