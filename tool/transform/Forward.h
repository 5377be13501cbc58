//===- Forward.h - forward mode (CGP_JVP) on the IR -------------*- C++ -*-===//
//
// Builds, for a kernel f marked CGP_JVP(p, ...), the function f_jvp: f's own
// code in which every assignment to a value that carries a derivative is
// preceded by the assignment of its tangent t_<v> (the chain rule, operand
// by operand). Control flow stays as f's; there is no tape. f_jvp returns
// the tangent of f's value: the directional derivative along the tangents
// the caller passes.
//
// Helpers get one function per way they are called, g_tan: g's parameters,
// the tangents of the arguments that carry one, and `R* t_ret` for the
// tangent of the result; it returns g's value. A function with a custom
// pullback and no visible body is differentiated through its pullback,
// which needs its parameters to be scalars.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_FORWARD_H
#define CGP_TRANSFORM_FORWARD_H

#include "transform/GeneratedCode.h"

#include <memory>
#include <vector>

namespace cgp {

class ForwardMode {
public:
  explicit ForwardMode(Module &module);
  ~ForwardMode();

  /// Generates `kernel`_jvp, with tangents for `kernel.tangents`, and the
  /// helper functions it needs into `out`. Returns false after adding to
  /// errors().
  bool differentiate(Function &kernel, GeneratedCode &out);

  const std::vector<TransformError> &errors() const { return errors_; }

private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<TransformError> errors_;
};

} // namespace cgp

#endif // CGP_TRANSFORM_FORWARD_H
