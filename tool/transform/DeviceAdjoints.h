//===- DeviceAdjoints.h - adjoints that CUDA threads add into at once ---*- C++ -*-===//
//
// In a `__global__` kernel every thread runs the reverse sweep, and the
// adjoint of a buffer in global memory is shared by all of them: where two
// threads may add into the same element at once, a plain `+=` loses
// updates. This pass chooses, for each addition into such an adjoint, the
// cheapest form that is right under concurrency:
//  - a plain `+=` where the element is provably the thread's own
//    (analysis/ThreadIndices.h: its index is one-to-one over every part of
//    the thread's identity the kernel reads), which the gradient makes sure
//    of by checking at entry that the launch varies in no other part;
//  - at the end of the kernel, where every thread of the block adds its share
//    of a by-value parameter's adjoint: a block sum then one atomicAdd;
//  - a warp sum then one atomicAdd per warp where the index does not depend
//    on the thread (weights shared by every thread: the common case); the
//    generated code checks at run time that the whole warp is there and
//    adds to one element, and falls back to atomicAdd otherwise;
//  - an atomicAdd anywhere else.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_DEVICEADJOINTS_H
#define CGP_TRANSFORM_DEVICEADJOINTS_H

#include "analysis/ThreadIndices.h"
#include "ir/IR.h"
#include "planner/Planner.h"

#include <map>
#include <set>
#include <vector>

namespace cgp {

/// What chooseSharedAdjointAdds decided: one choice per addition, in code
/// order, and the parts of a thread's identity (ThreadPart bits) the launch
/// may vary in for its plain additions to be right (all of them when it made
/// none; the generated kernel checks the others are 1 at entry).
struct SharedAdjointChoices {
  std::vector<SharedAdjoint> adds;
  unsigned launchParts = 0;
  /// What the plain additions assume of the block's shape.
  LaunchLimits launchLimits;
};

/// Marks the additions of `reverse` into the adjoints in `shared` (each with
/// the primal variable it is the adjoint of) atomic (StmtNode::atomicity)
/// unless the element is the thread's own, using what `primal` (the
/// prepared function the sweeps come from) says about its indices. For a
/// helper (`kernelLevel` false) no element is its own: its callers may be
/// launched in any shape.
/// `blockWide`: additions every thread of a block makes at the end of the
/// kernel (a by-value parameter's share), summed over the block when every
/// thread adds into the same element.
SharedAdjointChoices chooseSharedAdjointAdds(const std::vector<StmtRef> &reverse,
                                             const Function &primal,
                                             const std::map<const Var *, const Var *> &shared,
                                             bool kernelLevel,
                                             const std::set<const StmtNode *> &blockWide = {});

} // namespace cgp

#endif // CGP_TRANSFORM_DEVICEADJOINTS_H
