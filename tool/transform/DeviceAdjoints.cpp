//===- DeviceAdjoints.cpp - adjoints that CUDA threads add into at once ---===//
//
// See DeviceAdjoints.h. Which element is whose, and which values are the
// same in every thread, comes from analysis/ThreadIndices.h.
//
//===----------------------------------------------------------------------===//
#include "transform/DeviceAdjoints.h"

#include "analysis/ThreadIndices.h"

namespace cgp {

SharedAdjointChoices chooseSharedAdjointAdds(const std::vector<StmtRef> &reverse,
                                             const Function &primal,
                                             const std::map<const Var *, const Var *> &shared,
                                             bool kernelLevel,
                                             const std::set<const StmtNode *> &blockWide) {
  ThreadIndices indices(primal, kernelLevel);
  indices.taintTemporaries(reverse);
  auto isAddition = [&](const StmtRef &s) {
    return s->kind == StmtKind::Assign &&
           (s->assignOp == AssignOp::Add || s->assignOp == AssignOp::Sub) &&
           s->lhs->kind == ExprKind::Index && shared.count(s->lhs->var);
  };
  auto own = [&](const StmtRef &s) {
    const Var *adjoint = s->lhs->var;
    return indices.owned(s->lhs->operands, shared.at(adjoint), adjoint->blockShared);
  };
  // A plain += on the thread's own element races with another thread's
  // atomicAdd into it: an adjoint gets plain additions only if all of them
  // are on the thread's own elements, and no helper is given it (a helper
  // adds into what it is given atomically).
  std::set<const Var *> mixed;
  for (const StmtRef &top : reverse)
    forEachStmt(top, [&](const StmtRef &s) {
      if (isAddition(s) && !own(s))
        mixed.insert(s->lhs->var);
      for (const ExprRef &e : ownExprs(s))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->kind == ExprKind::Opaque || x->kind == ExprKind::Call)
            for (const ExprRef &arg : x->operands)
              if (arg->kind == ExprKind::Address && shared.count(arg->var))
                mixed.insert(arg->var);
        });
    });
  SharedAdjointChoices out;
  out.launchParts = kAllParts;
  for (const StmtRef &top : reverse)
    forEachStmt(top, [&](const StmtRef &s) {
      if (!isAddition(s))
        return;
      const Var *adjoint = s->lhs->var;
      SharedAdjoint choice;
      choice.target = printExpr(s->lhs);
      choice.pos = s->pos;
      bool uniform = true;
      for (const ExprRef &i : s->lhs->operands)
        uniform = uniform && indices.sameInEveryThread(i);
      if (!mixed.count(adjoint)) {
        indices.owned(s->lhs->operands, shared.at(adjoint), adjoint->blockShared,
                      &out.launchLimits);
        // Right for a launch that varies only in what the kernel reads (in
        // a __shared__ array: within the block).
        unsigned parts = adjoint->blockShared ? indices.used() | (kAllParts & ~kThreadParts)
                                              : indices.used();
        out.launchParts &= parts;
        choice.how = "plain +=";
        choice.reason = "the element is the thread's own: its index is one-to-one over " +
                        describeParts(indices.used() & (adjoint->blockShared ? kThreadParts
                                                                             : kAllParts)) +
                        (adjoint->blockShared ? " (one array per block)" : "");
      } else if (uniform && blockWide.count(s.get())) {
        s->atomicity = StmtNode::Atomicity::BlockAtomic;
        choice.how = "block sum, then one atomicAdd per block";
        choice.reason = "every thread of the block adds its share at the end of the kernel";
      } else if (uniform) {
        s->atomicity = StmtNode::Atomicity::WarpAtomic;
        choice.how = "warp sum, then one atomicAdd per warp";
        choice.reason = "every thread adds into the same element (its index does not depend on "
                        "the thread); atomicAdd per thread when the warp is not whole";
      } else {
        s->atomicity = StmtNode::Atomicity::Atomic;
        choice.how = "atomicAdd";
        choice.reason = own(s) ? "the element is the thread's own, but other threads add into "
                                 "other elements of " + adjoint->name + " atomically"
                               : "threads may add into the same element at once";
        if (adjoint->blockShared)
          choice.reason += " (an atomic in shared memory)";
      }
      bool seen = false; // one line per element and way of adding
      for (const SharedAdjoint &o : out.adds)
        seen |= o.target == choice.target && o.how == choice.how;
      if (!seen)
        out.adds.push_back(choice);
    });
  return out;
}

} // namespace cgp
