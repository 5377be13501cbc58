//===- ScalarReplacement.h - small local arrays become scalars ---*- C++ -*-===//
//
// Scalar replacement of aggregates, as compilers do it before register
// allocation, here done for the planner: the tape, the planner and the
// recompute rules work on whole variables, so an array is stored or filled
// again as one value. An RK4 step keeps its stages in `double k1[2], tmp[2]`
// filled by a helper (`rhs(p, t, y, k1)`) and by loops of two iterations;
// element by element, most of them are cheap sums of values at hand, but as
// arrays every one of them is taped.
//
// A local 1-D array of at most kMaxScalarElements floating elements, used
// only through elements, is split into one scalar per element (`k1` becomes
// `k1_0`, `k1_1`) when, after two rewrites, every use names a constant
// element:
//   - a call of a helper, with an array as argument, that is a straight
//     line of assignments to its own scalars and to elements of its pointer
//     parameters once its small loops are unrolled (constant elements of the
//     arrays to split), is inlined: its parameters are replaced by the
//     arguments (scalars by new locals that hold their values);
//   - a counted loop of at most kMaxScalarElements iterations, its bound a
//     literal or a constant, whose body (assignments, scalar declarations and
//     loops of them) indexes an array by the loop's index is unrolled, each
//     iteration with its own copy of the scalars the body declares, and the
//     loops in it are unrolled in turn where they qualify.
// Calls and loops are rewritten only where an array is split in the end.
// The arithmetic and its order do not change, so neither do the bits.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_SCALARREPLACEMENT_H
#define CGP_TRANSFORM_SCALARREPLACEMENT_H

#include "ir/IR.h"

namespace cgp {

/// The most elements of an array split into scalars, and the most
/// iterations of a loop unrolled for it.
inline constexpr int64_t kMaxScalarElements = 4;

/// Splits the small local arrays of `f` (not yet prepared) into scalars,
/// inlining and unrolling what that needs. Returns true if it split any.
bool replaceSmallArrays(Function &f, Module &module);

} // namespace cgp

#endif // CGP_TRANSFORM_SCALARREPLACEMENT_H
