//===- CustomCallAdapters.h - custom pullbacks of functions on structs -*- C++ -*-===//
//
// A function with a custom pullback (CGP_PULLBACK_OF) is called as it is,
// and its pullback does its reverse sweep. When the function takes a
// struct, an array of structs, a std::vector or a std::array, the frontend
// split that parameter into its members like any helper's, so generated
// code holds members, not the struct. This pass adds, next to the generated
// code, two adapters with the split parameters that put the values together
// again:
//
//   `g_unsplit(cam_f, cam_c, X)`: builds `Cam cam_value`, calls `g`, writes
//   back what a `Cam&` parameter took, returns g's result (generated code
//   calls it wherever it calls g);
//   `pb_unsplit(cam_f, cam_c, X, d_ret, d_cam_f, d_cam_c, d_X)`: builds the
//   values and a `Cam d_cam_value` adjoint, calls the user's pullback
//   `pb(cam_value, X, d_ret, &d_cam_value, d_X)`, and adds the adjoint's
//   members into the split adjoints (the frontend names it as g's pullback).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_CUSTOMCALLADAPTERS_H
#define CGP_TRANSFORM_CUSTOMCALLADAPTERS_H

#include "transform/GeneratedCode.h"

namespace cgp {

/// Adds to `code` (first) the adapters of every function of `module` whose
/// custom pullback the frontend routed through one (Function::userPullback),
/// and makes calls of such a function name its adapter.
void addCustomCallAdapters(Module &module, GeneratedCode &code);

} // namespace cgp

#endif // CGP_TRANSFORM_CUSTOMCALLADAPTERS_H
