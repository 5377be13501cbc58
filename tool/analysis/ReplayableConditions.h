//===- ReplayableConditions.h - branch conditions the reverse sweep evaluates again -*- C++ -*-===//
//
// The reverse of `if (c) A else B` must take the arm the forward sweep took.
// The general way is a bool on the tape per execution of the if. But most
// conditions (`i < n` in a CUDA kernel, `t > 0` in a loop, an early-return
// flag) read only values that nothing changes once the if has run: the
// reverse sweep can evaluate the condition again and tape nothing.
//
// This file finds those ifs: the condition is pure (no call, no tape), each
// variable it reads is written by nothing that may run after the if starts
// (its arms, the statements after it, the rest of every loop around it)
// except the index of a counted loop around it (the reverse loop runs the
// same indices), and each buffer or array it reads is written nowhere in
// the function. To-be-recorded analysis keeps the condition's variables at
// hand where the if ends (a helper pushes them at its exit, as it does any
// value its reverse sweep reads).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_REPLAYABLECONDITIONS_H
#define CGP_ANALYSIS_REPLAYABLECONDITIONS_H

#include "ir/IR.h"

#include <set>

namespace cgp {

/// The ifs of `f` (a prepared function) whose condition the reverse sweep
/// may evaluate again instead of popping the arm taken.
std::set<const StmtNode *> replayableConditions(const Function &f);

} // namespace cgp

#endif // CGP_ANALYSIS_REPLAYABLECONDITIONS_H
