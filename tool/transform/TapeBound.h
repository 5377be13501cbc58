//===- TapeBound.h - the most and least one piece of forward code tapes -*- C++ -*-===//
//
// Under a memory budget, a checkpointed loop plans from the bytes one of
// its iterations puts on the tape. A probe measures iteration 0, but when
// iterations take different branches (a costly arm every 16th step, an
// expert chosen by a gate) iteration 0 says little about the others, and a
// segment planned from it can hold several times the budget. This walks an
// iteration's generated forward code and bounds its tape: pushes add their
// bytes, an `if` takes its larger arm for the most and its smaller for the
// least, a loop with a known trip count multiplies its body, and a call
// counts what the helper's forward code tapes; a loop whose trips tape
// nothing tapes what its init does, whatever its trip count. Anything it
// cannot bound (a `while` loop, a loop with a run-time trip count whose
// trips tape, a recursive helper) makes the bound unknown. When the bound
// is known, iterations tape it exactly (the same on every path) or at the
// most (paths differ), and the plan takes it without a probe; when it is
// unknown, a probe of iteration 0 measures it.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_TAPEBOUND_H
#define CGP_TRANSFORM_TAPEBOUND_H

#include "ir/IR.h"

#include <string>
#include <vector>

namespace cgp {

struct TapeBound {
  bool known = true; // false: some path tapes an amount known only at run time
  double most = 0;   // bytes on the costliest path
  double least = 0;  // bytes on the cheapest path (an early exit included)
  /// Paths tape different amounts: a probe of one iteration is no guide.
  bool varies() const { return known && most > least; }
  /// Every path tapes `most` bytes: no probe needs to measure it.
  bool exact() const { return known && most == least; }
};

/// Bounds the tape of `code`, generated forward code.
TapeBound boundTape(const std::vector<StmtRef> &code);

/// For the comment at a loop in generated code: what its iterations tape
/// when that is known, and what the plan assumes ("; ..."); else empty.
std::string describeBound(const TapeBound &bound);

} // namespace cgp

#endif
