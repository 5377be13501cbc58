//===- Reverse.h - reverse mode on the IR -----------------------*- C++ -*-===//
//
// Builds, for a kernel f, the function f_grad: a forward sweep (f's own code
// plus the tape pushes the reverse sweep needs) followed by a reverse sweep
// (the adjoint code of each statement, in reverse order, popping what the
// forward sweep pushed). Helpers that a kernel calls get a pair of
// functions per way they are called: g_fwd (g's code plus pushes) and g_rev
// (g's reverse sweep, with the signature of a pullback: g's parameters, the
// adjoint of the result, then the adjoints of the parameters).
//
// Control flow is recorded on the tape: which arm of each `if` ran, and how
// many times each loop ran. Counted loops run their index backwards instead
// of taping it.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_REVERSE_H
#define CGP_TRANSFORM_REVERSE_H

#include "analysis/Summaries.h"
#include "transform/GeneratedCode.h"
#include "planner/Planner.h"
#include "ir/IR.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cgp {

class ReverseMode {
public:
  ReverseMode(Module &module, const PlanOptions &options);
  ~ReverseMode();

  /// Generates `kernel`_grad (and the helper functions it needs) into
  /// `out`. Returns false after adding to errors().
  bool differentiate(Function &kernel, GeneratedCode &out);

  const std::vector<TransformError> &errors() const { return errors_; }
  /// Things worth saying that do not stop the run.
  const std::vector<TransformError> &warnings() const { return warnings_; }

private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<TransformError> errors_;
  std::vector<TransformError> warnings_;
};

} // namespace cgp

#endif // CGP_TRANSFORM_REVERSE_H
