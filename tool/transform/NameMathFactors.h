//===- NameMathFactors.h - a math call in a product gets a variable -*- C++ -*-===//
//
// The derivative of `a * cos(w * t)` with respect to `a` is `cos(w * t)`:
// the reverse sweep evaluates the call again, although the forward sweep
// had its value. When the call is a factor of a product or a quotient, this
// pass gives it a variable of its own before differentiation,
//   const double cos_value = std::cos(w * t);
//   k = a * cos_value;
// and the reverse sweep reads the variable. On the host the plan stores it
// (planner/Planner.cpp): recomputing it would call again, which is what
// naming it saves; on the device, where recomputing costs less than a
// tape, it is a candidate for recomputation like any other value.
//
// Only costly functions whose own derivative does not read their value are
// named (sin, cos, log, log1p, expm1, atan, atan2, ...: the math table says
// which, ir/MathTable.h): for exp, tanh or sqrt the reverse
// sweep evaluates the call anyway for the call's own derivative, and the
// repeat is merged there (transform/ReuseMath.h), so a stored copy would
// only add tape. Calls on the lazy side of `?:`, `&&` or `||` stay where
// they are: moving them out would evaluate them on paths that did not.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_NAMEMATHFACTORS_H
#define CGP_TRANSFORM_NAMEMATHFACTORS_H

#include "ir/IR.h"

namespace cgp {

/// Rewrites the statements of `f` in place: each costly math call named
/// above that is an operand of `*` or `/` in an assignment's or a
/// declaration's value is computed into a `const` temporary just before.
void nameMathFactors(Function &f, Module &module);

} // namespace cgp

#endif // CGP_TRANSFORM_NAMEMATHFACTORS_H
