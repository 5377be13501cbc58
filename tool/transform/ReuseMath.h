//===- ReuseMath.h - a math call the reverse sweep repeats runs once -*- C++ -*-===//
//
// The reverse sweep evaluates primal math again where derivative rules need
// it: the pullback of `1 / (1 + exp(-z))` evaluates `exp(-z)` for the
// denominator and again for the chain rule of exp; the LSTM's reverse
// evaluates `tanh(c[j])` for the output gate's adjoint and again for the
// cell's; a recomputed gate `gg = tanh(z[k])` is followed by the pullback of
// that same tanh. Neither GCC nor Clang merges two calls of `std::exp` with
// the same argument at -O2 (the calls may set errno), so each repeat costs a
// full evaluation.
//
// This pass is local value numbering over math calls in each block of the
// reverse sweep: a math call (exp, log, sin, cos, tanh, pow, sqrt, ...) that
// a later statement of the same block evaluates again, with nothing between
// them writing what it reads, is evaluated once, into a `const` temporary
// (or the variable that already holds it). The same functions of the same
// arguments give the same bits, so gradients do not change.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_REUSEMATH_H
#define CGP_TRANSFORM_REUSEMATH_H

#include "ir/IR.h"

#include <vector>

namespace cgp {

/// Evaluates once every math call that `stmts` (and each block nested in
/// them) evaluates more than once with the same operands.
void reuseMathValues(std::vector<StmtRef> &stmts, Module &module);

} // namespace cgp

#endif
