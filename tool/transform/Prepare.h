//===- Prepare.h - a function made ready for differentiation ----*- C++ -*-===//
//
// Both modes work on the same form of a function: a kernel's small local
// arrays split into scalars where they can be (ScalarReplacement.h), control flow normalised
// (break, continue, return and switch become flags), calls of helpers as
// statements of their own, counted loops marked, and every local declared at
// the top. With --instrument, kernels get their profile hooks
// (ProfileHooks.h) too. The passes rewrite the function in place, once: a kernel marked
// both CGP_GRAD and CGP_JVP, or a helper both modes call, is prepared once.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_PREPARE_H
#define CGP_TRANSFORM_PREPARE_H

#include "ir/IR.h"

namespace cgp {

/// Prepares `f` unless it is already; sets `f.prepared` and `f.locals`.
void prepareFunction(Function &f, Module &module);

} // namespace cgp

#endif // CGP_TRANSFORM_PREPARE_H
