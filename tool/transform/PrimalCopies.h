//===- PrimalCopies.h - callable copies of helpers with split parameters -===//
//
// A helper that takes a struct is lowered with one parameter per member, so
// generated code cannot call the user's function itself where it runs the
// helper undifferentiated (an inactive call, iterations replayed without the
// tape). Such a helper is printed once more, as the frontend lowered it, as
// `h_primal` with the split parameters, and every such call names it.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_PRIMALCOPIES_H
#define CGP_TRANSFORM_PRIMALCOPIES_H

#include "transform/GeneratedCode.h"

namespace cgp {

/// Adds to `code` (before the functions that call them) a copy of each
/// helper with split parameters that generated code calls by its own name,
/// and makes those calls name the copy.
void addPrimalCopies(Module &module, GeneratedCode &code);

} // namespace cgp

#endif // CGP_TRANSFORM_PRIMALCOPIES_H
