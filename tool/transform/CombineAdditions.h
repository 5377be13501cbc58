//===- CombineAdditions.h - one addition per adjoint and statement -*- C++ -*-===//
//
// The chain rule over `y = x * x` (or `s * x[i] * x[i]`) gives one term per
// occurrence of x: `d_x += adj * x; d_x += x * adj;`. Each is a read and a
// write of the adjoint, and in CUDA code where threads share it, an atomic
// each. This pass folds the additions the reverse code of one statement
// makes into one adjoint into a single `d_x += t1 + t2` (`2 * t` when the
// terms are the same product), where nothing between them reads the adjoint
// or changes what the first term reads. The sum is formed in a fixed order,
// so gradients stay bit-identical under every strategy.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_COMBINEADDITIONS_H
#define CGP_TRANSFORM_COMBINEADDITIONS_H

#include "ir/IR.h"

#include <vector>

namespace cgp {

/// Folds, in the reverse code `code` of one statement (and in the blocks of
/// the ifs it holds), the additions into one adjoint element.
void combineAdditions(std::vector<StmtRef> &code);

} // namespace cgp

#endif // CGP_TRANSFORM_COMBINEADDITIONS_H
