//===- HoistCalls.h - calls of helpers become statements --------*- C++ -*-===//
//
// The reverse sweep reverses statements; a helper call inside an expression
// would have to be reversed inside that expression, in an order C++ does
// not fix. This pass gives every helper call its own statement
// (`double g_ret = g(x);`), keeping C++'s short-circuit evaluation of &&,
// || and ?: by turning them into ifs where a call sits on a lazy side.
// Conditions of loops are recomputed at the end of each iteration.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_HOISTCALLS_H
#define CGP_TRANSFORM_HOISTCALLS_H

#include "ir/IR.h"

namespace cgp {

/// Rewrites `f` in place: afterwards a Call appears only as the whole
/// right-hand side of an Assign or as the value of an Eval, and its
/// arguments hold no calls.
void hoistCalls(Function &f, Module &module);

} // namespace cgp

#endif // CGP_TRANSFORM_HOISTCALLS_H
