//===- TapePicture.h - a kernel's tape along its forward sweep --*- C++ -*-===//
//
// The report's picture of one kernel (inline SVG): the tape its gradient
// holds as the forward sweep runs down the kernel's lines, storing every
// value, with the plan, and under the memory budget when one is given.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_REPORT_TAPEPICTURE_H
#define CGP_REPORT_TAPEPICTURE_H

#include <nlohmann/json.hpp>

#include <string>

namespace cgp {

/// The SVG of `kernel` (one function object of --plan-json), under
/// `budget` bytes (-1: none); empty when the kernel tapes nothing.
std::string tapePictureSvg(const nlohmann::json &kernel, long budget);

} // namespace cgp

#endif // CGP_REPORT_TAPEPICTURE_H
