//===- Fold.h - arithmetic builders that fold the trivial cases -*- C++ -*-===//
//
// Derivative rules (ir/MathTable.cpp) and the transforms that apply them
// build expressions such as `seed * 1` or `-(-x)`; these builders fold such
// cases as they build, so that generated code reads like hand-written code.
// They never reassociate or fold anything that could change a value's bits.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_IR_FOLD_H
#define CGP_IR_FOLD_H

#include "ir/IR.h"

namespace cgp {

/// A floating literal of type `t`.
ExprRef constant(double value, const ScalarType &t);
/// a * b; a or b when the other is 1, a negation when it is -1.
ExprRef mul(const ExprRef &a, const ExprRef &b);
/// a / b; a when b is 1.
ExprRef div(const ExprRef &a, const ExprRef &b);
/// a + b; a or b when the other is 0.
ExprRef add(const ExprRef &a, const ExprRef &b);
/// a - b; a when b is 0.
ExprRef sub(const ExprRef &a, const ExprRef &b);
/// -a; x for -(-x), x * y for -((-x) * y), the negated literal for a literal.
ExprRef neg(const ExprRef &a);

} // namespace cgp

#endif // CGP_IR_FOLD_H
