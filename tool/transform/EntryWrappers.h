//===- EntryWrappers.h - entry points of kernels with struct parameters --===//
//
// The frontend splits a kernel's struct parameter into one parameter per
// member, so the gradient the transforms build takes the members. The
// contract (interface.md section 3) wants f_grad to take the struct, and
// an adjoint of the struct's own type: `f_grad(const Camera& cam, ...,
// Camera* d_cam, ...)`. This pass renames the built function f_grad_split
// (internal linkage) and adds f_grad as a wrapper that passes the members on:
// `cam.c.x`, `&d_cam->c.x`, `d_cam->k`.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_ENTRYWRAPPERS_H
#define CGP_TRANSFORM_ENTRYWRAPPERS_H

#include "transform/GeneratedCode.h"

namespace cgp {

/// `reinterpret_cast<const double *>(ps)`: an array of structs (split
/// parameter `sp`, named `name` here) as the flat buffer of scalars of type
/// `elem` that the split function takes.
std::string flatView(const SplitParam &sp, const std::string &name, bool isConst,
                     const ScalarType &elem);

/// The static_assert that an array of structs has no padding: `stride`
/// scalars of type `elem` each.
StmtRef layoutCheck(const SplitParam &sp, const ScalarType &elem);

/// Wraps every entry point (f_grad, f_jvp) of a kernel with struct
/// parameters, in `code`.
void addEntryWrappers(Module &module, GeneratedCode &code);

} // namespace cgp

#endif // CGP_TRANSFORM_ENTRYWRAPPERS_H
