//===- Liveness.h - which scalars a loop carries from one iteration -*- C++ -*-===//
//
// A loop that is reversed from snapshots must save its state: the values an
// iteration can read before writing them. A scalar the body always assigns
// before reading it (an accumulator reset at the top, a temporary) is not
// state. This is classic backward liveness over the structured IR, for
// scalars; arrays and pointers are never considered dead (one element
// written does not kill the others).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_LIVENESS_H
#define CGP_ANALYSIS_LIVENESS_H

#include "analysis/Activity.h"
#include "ir/IR.h"

#include <map>

namespace cgp {

/// For each loop of `f`: the scalars live at the entry of its body (those
/// an iteration may read before writing), given what the function needs at
/// its end (`liveAtEnd`).
std::map<const StmtNode *, VarSet> liveAtLoopEntries(const Function &f, const VarSet &liveAtEnd);

} // namespace cgp

#endif // CGP_ANALYSIS_LIVENESS_H
