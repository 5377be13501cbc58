//===- HoistDecls.h - locals move to the top of the function ---*- C++ -*-===//
//
// The gradient runs the forward sweep and then the reverse sweep in one
// function; a local declared inside a loop body must still exist when the
// reverse sweep reaches that iteration. This pass declares every local at
// the top of the function and turns each declaration with a value into an
// assignment at its place. A value a local takes in one iteration and loses
// in the next is then an ordinary overwrite, which the tape records when
// the reverse sweep needs it. Only the own index of a counted loop stays
// declared in its `for`.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_HOISTDECLS_H
#define CGP_TRANSFORM_HOISTDECLS_H

#include "ir/IR.h"

#include <vector>

namespace cgp {

/// Rewrites `f` in place and returns the hoisted locals in order of
/// appearance; their declarations are no longer in the body.
std::vector<Var *> hoistDecls(Function &f);

} // namespace cgp

#endif // CGP_TRANSFORM_HOISTDECLS_H
