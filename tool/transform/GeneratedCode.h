//===- GeneratedCode.h - what the transforms produce ------------*- C++ -*-===//
//
// The functions both modes generate for one translation unit, which the
// emitter prints, and the errors they report.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_GENERATEDCODE_H
#define CGP_TRANSFORM_GENERATEDCODE_H

#include "ir/IR.h"
#include "planner/Planner.h"

#include <string>
#include <utility>
#include <vector>

namespace cgp {

/// A problem found while differentiating (reported as an error).
struct TransformError {
  SourcePos pos;
  std::string message;
};

/// Generated code for one translation unit.
struct GeneratedCode {
  /// Every generated function, callees before callers.
  std::vector<Function *> functions;
  /// The kernel gradients (f_grad) among them, with the kernel each came from.
  std::vector<std::pair<Function *, const Function *>> gradients;
  /// The directional derivatives (f_jvp, forward mode) among them.
  std::vector<std::pair<Function *, const Function *>> tangents;
  /// The plan of each differentiated function (kernels and helper variants).
  std::vector<FunctionPlan> plans;
};

} // namespace cgp

#endif // CGP_TRANSFORM_GENERATEDCODE_H
