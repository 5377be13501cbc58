//===- DeviceAdjoints.cpp - adjoints that CUDA threads add into at once ---===//
//
// See DeviceAdjoints.h. The facts about indices come from the primal: the
// reverse sweep reads each variable of the primal with the value it had in
// the forward sweep, so what holds of `i` or of a loop index `t` there holds
// in the reverse sweep too.
//
//===----------------------------------------------------------------------===//
#include "transform/DeviceAdjoints.h"

#include <map>

namespace cgp {
namespace {

const ExprRef &withoutCasts(const ExprRef &e) {
  if (e->kind == ExprKind::Cast && e->type.isIntegral() && e->operands[0]->type.isIntegral())
    return withoutCasts(e->operands[0]);
  return e;
}

bool isBuiltin(const ExprRef &e, const char *name) {
  const ExprRef &x = withoutCasts(e);
  return x->kind == ExprKind::Opaque && x->spelling == name;
}

/// True for a read of threadIdx or blockIdx: a value that differs between
/// threads.
bool readsThreadIdentity(const ExprRef &e) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    found |= x->kind == ExprKind::Opaque &&
             (x->spelling.rfind("threadIdx.", 0) == 0 || x->spelling.rfind("blockIdx.", 0) == 0);
  });
  return found;
}

/// `a op b` or `b op a`: calls `match(first, second)` both ways.
template <class Match> bool eitherOrder(const ExprRef &e, BinaryOp op, Match match) {
  if (e->kind != ExprKind::Binary || e->binaryOp != op)
    return false;
  return match(e->operands[0], e->operands[1]) || match(e->operands[1], e->operands[0]);
}

/// blockIdx.x * blockDim.x + threadIdx.x, in any order; `threadIdx` may be
/// read through a variable of `threadIndex` (assigned threadIdx.x once).
bool isGlobalThreadIndex(const ExprRef &e, const std::set<const Var *> &threadIndex) {
  return eitherOrder(withoutCasts(e), BinaryOp::Add, [&](const ExprRef &a, const ExprRef &b) {
    const ExprRef &t = withoutCasts(b);
    return (isBuiltin(t, "threadIdx.x") ||
            (t->kind == ExprKind::VarRef && threadIndex.count(t->var))) &&
           eitherOrder(withoutCasts(a), BinaryOp::Mul, [](const ExprRef &p, const ExprRef &q) {
             return isBuiltin(p, "blockIdx.x") && isBuiltin(q, "blockDim.x");
           });
  });
}

/// A counted loop's index range [start, end), as the loop writes them.
struct Range {
  ExprRef start, end;
};

class IndexFacts {
public:
  explicit IndexFacts(const Function &primal) {
    std::map<const Var *, std::vector<ExprRef>> assigned;
    forEachStmt(primal.body, [&](const StmtRef &s) {
      if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::VarRef)
        assigned[s->lhs->var].push_back(s->assignOp == AssignOp::Set ? s->value : nullptr);
      if (s->kind == StmtKind::Decl && s->value)
        assigned[s->var].push_back(s->value);
    });
    auto once = [&](const Var *v, const std::vector<ExprRef> &values) {
      return values.size() == 1 && values[0] && v->elem.isIntegral();
    };
    for (const auto &[v, values] : assigned)
      if (once(v, values) && isBuiltin(values[0], "threadIdx.x"))
        blockThreadIndex_.insert(v);
    for (const auto &[v, values] : assigned)
      if (once(v, values) && isGlobalThreadIndex(values[0], blockThreadIndex_))
        threadIndex_.insert(v);
    forEachStmt(primal.body, [&](const StmtRef &s) { noteRange(s, assigned); });
    taint(primal.body);
  }

  /// Extends the facts with the temporaries of the reverse sweep.
  void taintTemporaries(const std::vector<StmtRef> &code, const Function &primal) {
    std::set<const Var *> ofPrimal;
    forEachStmt(primal.body, [&](const StmtRef &s) {
      if (s->kind == StmtKind::Assign)
        ofPrimal.insert(lvalueVar(s->lhs));
      if (s->kind == StmtKind::Decl)
        ofPrimal.insert(s->var);
    });
    for (const StmtRef &s : code)
      taint(s, false, &ofPrimal);
  }

  /// True if the element `index` of a buffer is a different one in every
  /// thread (of the launch, or with `inBlock` of the block: a __shared__ array).
  bool ownedByThread(const ExprRef &index, bool inBlock) const {
    const ExprRef &e = withoutCasts(index);
    if (inBlock && (isBuiltin(e, "threadIdx.x") ||
                    (e->kind == ExprKind::VarRef && blockThreadIndex_.count(e->var))))
      return true;
    if (isThreadIndex(e))
      return true;
    auto constant = [](const ExprRef &x) { return withoutCasts(x)->kind == ExprKind::IntLit; };
    if (eitherOrder(e, BinaryOp::Add, [&](const ExprRef &a, const ExprRef &b) {
          return isThreadIndex(a) && constant(b);
        }))
      return true;
    if (e->kind == ExprKind::Binary && e->binaryOp == BinaryOp::Sub && isThreadIndex(e->operands[0]) &&
        constant(e->operands[1]))
      return true;
    // i * S + r with 0 <= r < S
    return eitherOrder(e, BinaryOp::Add, [&](const ExprRef &scaled, const ExprRef &rest) {
      return eitherOrder(withoutCasts(scaled), BinaryOp::Mul, [&](const ExprRef &i, const ExprRef &s) {
        return isThreadIndex(i) && below(rest, s);
      });
    });
  }

  /// True if `index` reads nothing that differs between the threads of a warp.
  bool sameInEveryThread(const ExprRef &index) const {
    if (readsThreadIdentity(index))
      return false;
    std::vector<Var *> vars;
    collectVars(index, vars);
    for (Var *v : vars)
      if (tainted_.count(v))
        return false;
    bool pops = false;
    forEachExpr(index, [&](const ExprRef &x) { pops |= x->kind == ExprKind::TapePop; });
    return !pops;
  }

private:
  bool isThreadIndex(const ExprRef &e) const {
    const ExprRef &x = withoutCasts(e);
    return (x->kind == ExprKind::VarRef && threadIndex_.count(x->var)) ||
           isGlobalThreadIndex(x, blockThreadIndex_);
  }

  /// True if 0 <= r < s is known.
  bool below(const ExprRef &r, const ExprRef &s) const {
    const ExprRef &x = withoutCasts(r), &bound = withoutCasts(s);
    if (x->kind == ExprKind::IntLit)
      return bound->kind == ExprKind::IntLit && x->intValue >= 0 && x->intValue < bound->intValue;
    if (x->kind != ExprKind::VarRef)
      return false;
    auto range = ranges_.find(x->var);
    if (range == ranges_.end())
      return false;
    const ExprRef &start = withoutCasts(range->second.start);
    return start->kind == ExprKind::IntLit && start->intValue >= 0 &&
           sameExpr(withoutCasts(range->second.end), bound);
  }

  /// for (t = start; t < end; ++t) where nothing else writes t.
  void noteRange(const StmtRef &s, const std::map<const Var *, std::vector<ExprRef>> &assigned) {
    if (s->kind != StmtKind::For || !s->counted.index || s->counted.step != 1 || !s->init ||
        !s->value)
      return;
    Var *t = s->counted.index;
    const ExprRef &cond = s->value;
    if (cond->kind != ExprKind::Binary || cond->binaryOp != BinaryOp::Lt ||
        withoutCasts(cond->operands[0])->kind != ExprKind::VarRef ||
        withoutCasts(cond->operands[0])->var != t)
      return;
    auto writes = assigned.find(t);
    if (writes == assigned.end() || writes->second.size() != 2) // the init and the step
      return;
    const ExprRef &start = s->init->value;
    if (!start)
      return;
    std::set<const Var *> written;
    collectWrittenVars(s->body, written);
    std::vector<Var *> boundVars;
    collectVars(cond->operands[1], boundVars);
    for (Var *v : boundVars)
      if (written.count(v))
        return;
    ranges_[t] = Range{start, cond->operands[1]};
  }

  bool taintedExpr(const ExprRef &e) const {
    if (!e)
      return false;
    if (readsThreadIdentity(e))
      return true;
    std::vector<Var *> vars;
    collectVars(e, vars);
    for (Var *v : vars)
      if (tainted_.count(v))
        return true;
    return false;
  }

  /// Variables whose value may differ between threads: assigned from one
  /// that does, or under a condition that does. Iterated to a fixed point.
  void taint(const StmtRef &body) {
    size_t before;
    do {
      before = tainted_.size();
      taint(body, false, nullptr);
    } while (tainted_.size() != before);
  }

  void taint(const StmtRef &s, bool underThreadCondition, const std::set<const Var *> *skip) {
    if (!s)
      return;
    bool cond = underThreadCondition ||
                ((s->kind == StmtKind::If || s->kind == StmtKind::For ||
                  s->kind == StmtKind::While || s->kind == StmtKind::DoWhile ||
                  s->kind == StmtKind::Switch) &&
                 taintedExpr(s->value));
    auto mark = [&](const Var *v, const ExprRef &value) {
      if (skip && skip->count(v))
        return;
      if (cond || taintedExpr(value))
        tainted_.insert(v);
    };
    if (s->kind == StmtKind::Assign)
      mark(lvalueVar(s->lhs), s->value);
    if (s->kind == StmtKind::Decl)
      mark(s->var, s->value);
    for (const StmtRef &c : s->stmts)
      taint(c, cond, skip);
    taint(s->init, cond, skip);
    taint(s->step, cond, skip);
    taint(s->body, cond, skip);
    taint(s->elseBody, cond, skip);
    for (const SwitchCase &c : s->cases)
      for (const StmtRef &b : c.body)
        taint(b, cond, skip);
  }

  std::set<const Var *> threadIndex_;      // i = blockIdx.x * blockDim.x + threadIdx.x
  std::set<const Var *> blockThreadIndex_; // t = threadIdx.x
  std::map<const Var *, Range> ranges_;
  std::set<const Var *> tainted_;
};

} // namespace

std::vector<SharedAdjoint> chooseSharedAdjointAdds(const std::vector<StmtRef> &reverse,
                                                    const Function &primal,
                                                    const std::set<const Var *> &shared) {
  IndexFacts facts(primal);
  facts.taintTemporaries(reverse, primal);
  auto isAddition = [&](const StmtRef &s) {
    return s->kind == StmtKind::Assign &&
           (s->assignOp == AssignOp::Add || s->assignOp == AssignOp::Sub) &&
           s->lhs->kind == ExprKind::Index && shared.count(s->lhs->var);
  };
  auto own = [&](const StmtRef &s) {
    return s->lhs->operands.size() == 1 &&
           facts.ownedByThread(s->lhs->operands[0], s->lhs->var->blockShared);
  };
  // A plain += on the thread's own element races with another thread's
  // atomicAdd into it: an adjoint gets plain additions only if all of them
  // are on the thread's own elements.
  std::set<const Var *> mixed;
  for (const StmtRef &top : reverse)
    forEachStmt(top, [&](const StmtRef &s) {
      if (isAddition(s) && !own(s))
        mixed.insert(s->lhs->var);
    });
  std::vector<SharedAdjoint> out;
  for (const StmtRef &top : reverse)
    forEachStmt(top, [&](const StmtRef &s) {
      if (!isAddition(s))
        return;
      SharedAdjoint choice;
      choice.target = printExpr(s->lhs);
      choice.pos = s->pos;
      bool uniform = true;
      for (const ExprRef &i : s->lhs->operands)
        uniform = uniform && facts.sameInEveryThread(i);
      if (!mixed.count(s->lhs->var)) {
        choice.how = "plain +=";
        choice.reason = s->lhs->var->blockShared
                            ? "the element is the thread's own (its index is threadIdx.x, or the "
                              "global thread index)"
                            : "the element is the thread's own (its index is the global thread "
                              "index, or that index times a stride plus less than the stride)";
      } else if (uniform) {
        s->atomicity = StmtNode::Atomicity::WarpAtomic;
        choice.how = "warp sum, then one atomicAdd per warp";
        choice.reason = "every thread adds into the same element (its index does not depend on "
                        "the thread); atomicAdd per thread when the warp is not whole";
      } else {
        s->atomicity = StmtNode::Atomicity::Atomic;
        choice.how = "atomicAdd";
        choice.reason = own(s) ? "the element is the thread's own, but other threads add into "
                                 "other elements of " + s->lhs->var->name + " atomically"
                               : "threads may add into the same element at once";
        if (s->lhs->var->blockShared)
          choice.reason += " (an atomic in shared memory)";
      }
      bool seen = false; // one line per element and way of adding
      for (const SharedAdjoint &o : out)
        seen |= o.target == choice.target && o.how == choice.how;
      if (!seen)
        out.push_back(choice);
    });
  return out;
}

} // namespace cgp
