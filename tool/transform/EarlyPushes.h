//===- EarlyPushes.h - tape pushes move up to where their value is ready -*- C++ -*-===//
//
// The forward sweep pushes the old value of a location right before the
// statement that overwrites it. When that statement ends a block of pure
// arithmetic (`acc = b[r]; for (k...) acc += ...; push(z[r]); z[r] = acc;`),
// the push's slow path (a call) sits in the middle of the live range of the
// accumulator, and x86-64 keeps no floating-point register across a call:
// GCC then keeps `acc` in memory through the whole inner loop. This pass
// moves each push up its block, past statements that neither touch the tape
// nor call anything nor write what the push reads, so that the arithmetic
// runs call-free. The tape's order and the pushed values do not change.
// Branch records (`push<bool>(true)`) stay at the end of their arm.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_EARLYPUSHES_H
#define CGP_TRANSFORM_EARLYPUSHES_H

#include "ir/IR.h"

#include <vector>

namespace cgp {

/// Moves every Push in `stmts` (and in nested blocks) as early in its own
/// block as it can go without changing what it pushes or the tape's order.
void hoistPushes(std::vector<StmtRef> &stmts);

} // namespace cgp

#endif
