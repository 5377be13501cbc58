//===- CountedLoops.h - find for loops with a computable index -*- C++ -*-===//
//
// A `for` loop whose integer index is set by its init, changed only by its
// step, and stepped by a constant, is "counted": the reverse sweep can run
// the index backwards from its first value and the trip count instead of
// taping it every iteration. This pass marks such loops.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_COUNTEDLOOPS_H
#define CGP_TRANSFORM_COUNTEDLOOPS_H

#include "ir/IR.h"

namespace cgp {

/// Sets `counted` on every counted For loop of `f`.
void markCountedLoops(Function &f);

/// The trip count of the counted loop `loop` (condition `i < b`, `i <= b`,
/// `i > b` or `i >= b`) as an int64 expression of its first index `first`
/// and its bound, as the loop starts.
ExprRef tripCountExpr(const StmtRef &loop, const ExprRef &first);

/// Whether the reverse sweep can compute the first index and the trip count
/// of the counted loop `loop` again, instead of taping them: its condition
/// compares the index with a bound, its init and bound are integer
/// arithmetic on constants and scalars that the loop does not write, and
/// nothing but the condition ends it. `operands` gets those scalars, which
/// must be at hand, as the loop ends, where the reverse sweep reaches it.
bool boundsComputableAgain(const StmtRef &loop, std::vector<Var *> &operands);

} // namespace cgp

#endif // CGP_TRANSFORM_COUNTEDLOOPS_H
