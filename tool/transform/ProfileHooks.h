//===- ProfileHooks.h - counting hooks for --instrument ---------*- C++ -*-===//
//
// With --instrument, a kernel's generated code records a profile of real
// runs (include/cgp/profile.h): the pass adds calls of the kernel's
// KernelProfile object to its body, before the reverse transform sees it,
// so the forward sweep (and f_jvp) runs them exactly where the kernel's own
// control flow goes:
//
//   cgp_profile_f.callBegin();          at the top of the kernel
//   cgp_profile_f.loopEnter(N);         before each loop
//   cgp_profile_f.iterate(N);           at the top of its body
//   cgp_profile_f.loopExit(N);          after it
//   cgp_profile_f.branch(N, true);      at the top of each arm of an `if`
//
// Branch hooks go in before control flow is normalised (so that only the
// user's `if` statements count, not the flag tests that `break` and
// `return` become); loop hooks after (when every loop leaves through its
// condition, so the hook after it always runs). The hooks read and write
// no variable of the kernel: no analysis sees them, and replays of loop
// iterations are not counted (the runtime mutes them).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_PROFILEHOOKS_H
#define CGP_TRANSFORM_PROFILEHOOKS_H

#include "ir/IR.h"

namespace cgp {

/// Adds the branch hooks and creates the kernel's ProfileTable in `module`.
void addBranchHooks(Function &kernel, Module &module);

/// Adds the call and loop hooks (after normalizeControl).
void addLoopHooks(Function &kernel, Module &module);

// isProfileHook (ir/IR.h) tells the hooks apart from other statements.

} // namespace cgp

#endif // CGP_TRANSFORM_PROFILEHOOKS_H
