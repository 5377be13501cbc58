//===- DeviceAdjoints.h - adjoints that CUDA threads add into at once ---*- C++ -*-===//
//
// In a `__global__` kernel every thread runs the reverse sweep, and the
// adjoint of a buffer in global memory is shared by all of them: where two
// threads may add into the same element at once, a plain `+=` loses
// updates. This pass chooses, for each addition into such an adjoint, the
// cheapest form that is right under concurrency:
//  - a plain `+=` where the element is provably the thread's own: an index
//    `i`, `i + c` or `i * S + r` (0 <= r < S) where `i` is the global thread
//    index (`blockIdx.x * blockDim.x + threadIdx.x`, assigned once); in a
//    `__shared__` array (one per block), also `threadIdx.x`;
//  - a warp sum then one atomicAdd per warp where the index does not depend
//    on the thread (weights shared by every thread: the common case); the
//    generated code checks at run time that the whole warp is there and
//    adds to one element, and falls back to atomicAdd otherwise;
//  - an atomicAdd anywhere else.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_DEVICEADJOINTS_H
#define CGP_TRANSFORM_DEVICEADJOINTS_H

#include "ir/IR.h"
#include "planner/Planner.h"

#include <set>
#include <vector>

namespace cgp {

/// Marks the additions of `reverse` into the `shared` adjoints atomic
/// (StmtNode::atomicity) unless the element is the thread's own, using
/// what `primal` (the prepared function the sweeps come from) says about
/// its indices. Returns one choice per addition, in code order.
std::vector<SharedAdjoint> chooseSharedAdjointAdds(const std::vector<StmtRef> &reverse,
                                                    const Function &primal,
                                                    const std::set<const Var *> &shared);

} // namespace cgp

#endif // CGP_TRANSFORM_DEVICEADJOINTS_H
