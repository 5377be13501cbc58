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

} // namespace cgp

#endif // CGP_TRANSFORM_COUNTEDLOOPS_H
