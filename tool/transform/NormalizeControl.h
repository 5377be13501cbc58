//===- NormalizeControl.h - break, continue, return, switch -----*- C++ -*-===//
//
// The reverse sweep walks a function backwards one statement at a time; it
// needs every loop to leave through its condition and every function to end
// at its last statement. This pass rewrites `break`, `continue` and early
// `return` into boolean flags: the statement sets its flag, what follows it
// is guarded by `if (!flag)`, and loop conditions test the flag first.
// `switch` becomes an if/else chain (or, with fall-through, a chain of
// guarded blocks). A `return` whose value ends the function needs no flag.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_NORMALIZECONTROL_H
#define CGP_TRANSFORM_NORMALIZECONTROL_H

#include "ir/IR.h"

namespace cgp {

/// Rewrites `f` in place. Afterwards its body has no Break, Continue,
/// Return or Switch, and `f.result` holds the returned value (if any).
void normalizeControl(Function &f, Module &module);

} // namespace cgp

#endif // CGP_TRANSFORM_NORMALIZECONTROL_H
