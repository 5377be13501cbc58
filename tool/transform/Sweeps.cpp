//===- Sweeps.cpp - forward and reverse sweeps of a function body ---------===//
//
// The tape discipline: whatever a statement's forward code pushes, its
// reverse code pops, so the reverse sweep of a statement can be built
// from the statement alone. An `if` pushes which arm ran at the end of the
// arm (so the reverse sweep pops it first); a loop pushes its trip count
// after it ends.
//
//===----------------------------------------------------------------------===//
#include "transform/Sweeps.h"

#include "analysis/ReplayableConditions.h"
#include "analysis/RowWrites.h"
#include "ir/Printer.h"
#include "planner/CostModel.h"
#include "transform/CheckpointCode.h"
#include "transform/CombineAdditions.h"
#include "transform/CountedLoops.h"
#include "transform/Declarations.h"
#include "transform/TapeBound.h"

#include <algorithm>
#include <optional>
#include <set>

namespace cgp {
namespace {

/// `e` as a base plus a constant: `i * 4 + 1` is (i * 4, 1), `3` is (null, 3).
std::pair<ExprRef, int64_t> splitConstant(const ExprRef &e) {
  if (e->kind == ExprKind::IntLit)
    return {nullptr, e->intValue};
  if (e->kind == ExprKind::Binary && (e->binaryOp == BinaryOp::Add || e->binaryOp == BinaryOp::Sub) &&
      e->operands[1]->kind == ExprKind::IntLit)
    return {e->operands[0], e->binaryOp == BinaryOp::Add ? e->operands[1]->intValue
                                                         : -e->operands[1]->intValue};
  return {e, 0};
}

/// True when `a` and `b` are one base plus two constants j and k such that
/// [j, j + m) and [k, k + n) do not meet.
bool disjointRanges(const ExprRef &a, int64_t m, const ExprRef &b, int64_t n) {
  auto [x, j] = splitConstant(a);
  auto [y, k] = splitConstant(b);
  bool sameBase = (!x && !y) || (x && y && sameExpr(x, y));
  return sameBase && (j + m <= k || k + n <= j);
}

/// True when arguments i and j of call `c` reach elements of one buffer
/// that do not meet: references (extent one) a constant apart,
/// `rotate(y[i], y[i + 1])`, or the members of one struct of an array of
/// structs, `ps[i * 4]`, `ps + (i * 4 + 1)` for a member array of 3.
bool distinctElements(const ExprRef &c, size_t i, size_t j) {
  const Var *p = c->callee->params[i], *q = c->callee->params[j];
  int64_t m = p->isReference ? 1 : p->extent, n = q->isReference ? 1 : q->extent;
  const ExprRef &a = c->operands[i]->operands[0], &b = c->operands[j]->operands[0];
  return m > 0 && n > 0 && disjointRanges(a, m, b, n);
}

} // namespace
namespace {

bool isSignedIndex(const ScalarType &t) {
  return t.kind == ScalarType::Integer && t.spelling.rfind("unsigned", 0) != 0 &&
         t.spelling.find("char") == std::string::npos && t.spelling[0] != ':';
}

/// True for an operand of a math call whose value only scalar variables
/// change: literals, scalars (not references), and arithmetic on them.
bool scalarsOnly(const ExprRef &e) {
  bool ok = true;
  forEachExpr(e, [&](const ExprRef &x) {
    bool leaf = x->kind == ExprKind::IntLit || x->kind == ExprKind::FloatLit ||
                (x->kind == ExprKind::VarRef && x->var->isScalar() && !x->var->isReference &&
                 x->var->origin != Var::Global);
    bool arithmetic = x->kind == ExprKind::Binary || x->kind == ExprKind::Unary ||
                      x->kind == ExprKind::Cast;
    ok &= leaf || arithmetic;
  });
  return ok;
}

/// For each assignment of `body`, the math calls that variables hold when
/// it runs: `v = f(args)` earlier in the same block, nothing written since
/// to v or to the scalars args read (any statement but a plain assignment
/// to a scalar forgets them all). Under to-be-recorded's rule the reverse
/// sweep of a statement sees the values from before it, so v still holds
/// f(args) there; reading it adds v to the statement's reads, and the plan
/// stores or recomputes it like any other value.
void heldMathValues(const StmtRef &body,
                    std::map<const StmtNode *, std::vector<std::pair<ExprRef, Var *>>> &out) {
  forEachStmt(body, [&](const StmtRef &block) {
    if (block->kind != StmtKind::Block)
      return;
    std::vector<std::pair<ExprRef, Var *>> held;
    for (const StmtRef &s : block->stmts) {
      bool scalarStore = s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::VarRef &&
                         !isCallStmt(s);
      if (!scalarStore) {
        if (s->kind != StmtKind::Comment)
          held.clear();
        continue;
      }
      if (!held.empty())
        out[s.get()] = held;
      Var *v = s->lhs->var;
      held.erase(std::remove_if(held.begin(), held.end(),
                                [&](const std::pair<ExprRef, Var *> &h) {
                                  return h.second == v || mentions(h.first, v);
                                }),
                 held.end());
      const ExprRef &e = s->value;
      if (s->assignOp == AssignOp::Set && e->kind == ExprKind::Math && v->isScalar() &&
          !v->isReference && v->origin != Var::Global && !mentions(e, v)) {
        bool operands = true;
        for (const ExprRef &o : e->operands)
          operands &= scalarsOnly(o);
        if (operands)
          held.push_back({e, v});
      }
    }
  });
}

} // namespace

std::string describeTape(const std::vector<StmtRef> &forward) {
  std::vector<std::string> values;
  std::set<std::string> seen;
  int arms = 0, loops = 0;
  for (const StmtRef &s : forward)
    forEachStmt(s, [&](const StmtRef &n) {
      if (n->kind != StmtKind::Push)
        return;
      const ExprRef &v = n->value;
      if (v->kind == ExprKind::IntLit && v->type.kind == ScalarType::Bool)
        ++arms;
      else if (v->kind == ExprKind::VarRef && v->var->origin == Var::Temp &&
               v->type.spelling == "std::int64_t")
        ++loops;
      else if (seen.insert(printExpr(v)).second)
        values.push_back(printExpr(v));
    });
  std::string out;
  for (const std::string &v : values)
    out += (out.empty() ? "" : ", ") + v;
  if (arms)
    out += (out.empty() ? "" : ", ") + std::string("the arm taken by each if");
  if (loops)
    out += (out.empty() ? "" : ", ") + std::string("the trip count of each inner loop");
  return out.empty() ? "nothing" : out;
}

void SweepBuilder::restore(const ExprRef &lhs, std::vector<StmtRef> &rev) {
  if (lhs->kind == ExprKind::Index && logged_.count(lhs->var))
    rev.push_back(eval(opaque("cgp_redo.keep", ScalarType::voidType(), {lhs})));
  rev.push_back(assign(lhs, tapePop(lhs->var->elem)));
}

bool SweepBuilder::build(const VarSet &neededAtEntry, const VarSet &logged) {
  logged_ = logged;
  heldMathValues(f_.body, held_);
  forEachStmt(f_.body, [&](const StmtRef &s) { adjointCode(s); });
  if (failed_)
    return false;
  // What storing everything would push, the plan, then what remains to push.
  // Store-all tapes every value; the other plans undo integer updates
  // (counters) in the reverse sweep instead of taping them.
  InverseUpdates inverses = options_.storeAll ? InverseUpdates() : findInverseUpdates(f_);
  reloads_ = options_.storeAll ? Reloads() : findReloads(f_);
  // Conditions the reverse sweep evaluates again instead of taping the arm:
  // what they read must be at hand where the if ends.
  if (!options_.storeAll)
    for (const StmtNode *s : replayableConditions(f_)) {
      replayedConditions_.insert(s);
      std::vector<Var *> vars;
      collectVars(s->value, vars);
      for (Var *v : vars)
        if (v->isScalar() && v->origin != Var::Global && !adj_.isGenerated(v))
          reads_[s].insert(v);
    }
  // The other plans compute a counted loop's first index and trip count
  // again in the reverse sweep where they can, from what its init and bound
  // read, which must then be at hand where the loop ends.
  if (!options_.storeAll)
    forEachStmt(f_.body, [&](const StmtRef &s) {
      std::vector<Var *> operands;
      if (s->kind == StmtKind::For && boundsComputableAgain(s, operands)) {
        boundsAgain_.insert(s.get());
        for (Var *v : operands)
          if (!adj_.isGenerated(v))
            reads_[s.get()].insert(v);
      }
    });
  // Caller's buffers that a loop fills a row per iteration keep no old
  // values (not under store-all; not on the device, where other threads
  // share the buffers), and stay in place when it replays.
  if (!options_.storeAll && !options_.device && f_.isKernel)
    rowFills_ = rowFills(f_);
  const std::map<const StmtNode *, std::vector<const Var *>> rowsInPlace =
      rowsFilledInPlace(rowFills_);
  tbr = analyzeToBeRecorded(f_, reads_, neededAtEntry, sums_, inverses, reloads_, rowsInPlace);
  snapshotBytes_ = loopSnapshotBytes();
  plan = planValues(f_, reads_, tbr, options_, sums_, snapshotBytes_);
  for (size_t index : plan.recomputeOrder) {
    const ValueDecision &v = plan.values[index];
    // Its readers get it recomputed; what it is computed from must then
    // be at hand where it is computed, unless recomputed before it.
    for (const StmtNode *reader : v.readers)
      reads_[reader].erase(v.var);
    VarSet &atDefinition = reads_[v.computedAt];
    for (Var *o : v.operandsAtHand)
      if (!adj_.isGenerated(o) && o->origin != Var::Global)
        atDefinition.insert(o);
    std::vector<StmtRef> &before = recomputeBefore_[v.recomputeBefore];
    if (v.refill) {
      before.push_back(comment("recompute " + v.var->name +
                               " (the plan keeps its elements off the tape): fill it again"));
      before.push_back(v.refill);
      continue;
    }
    before.push_back(comment("recompute " + v.var->name + " (the plan keeps it off the tape)"));
    before.push_back(assign(varRef(v.var), v.value));
  }
  const bool replayInputs = addReplayInputs();
  if (!plan.recomputeOrder.empty() || replayInputs)
    tbr = analyzeToBeRecorded(f_, reads_, neededAtEntry, sums_, inverses, reloads_, rowsInPlace);
  Sweeps all = sweep(f_.body);
  forward = std::move(all.fwd);
  reverse = std::move(all.rev);
  for (LoopDecision &loop : plan.loops) {
    if (!replaying_.count(loop.loop))
      loop.replayShare = 0;
    loop.runTimePlan = runTimePlans_.count(loop.loop) > 0;
    auto choice = loopChoices_.find(loop.loop);
    if (choice != loopChoices_.end()) {
      loop.strategy = choice->second.first;
      loop.reason = choice->second.second;
    } else if (loop.reason.empty()) {
      loop.reason = "not a counted loop (its trip count is on the tape)";
    }
  }
  return !failed_;
}

void SweepBuilder::adjointCode(const StmtRef &s) {
  if (s->kind != StmtKind::Assign && s->kind != StmtKind::Eval)
    return;
  VarSet &reads = reads_[s.get()];
  // Reads of variables of the function (not adjoints, not constants). A
  // pointer passed to a call is not a read of what it points to.
  auto addReads = [&](const ExprRef &e) {
    forEachExpr(e, [&](const ExprRef &x) {
      Var *v = x->var;
      if (!v || x->kind == ExprKind::Address || adj_.isGenerated(v) || v->origin == Var::Global)
        return;
      reads.insert(v);
    });
  };
  if (isCallStmt(s)) {
    // The callee's reverse sweep gets the same arguments, and reads what it
    // reads through them. A call that writes memory may have to restore it
    // even when it is inactive, so its arguments are always needed.
    const ExprRef &c = s->value;
    const FunctionSummary &sum = sums_.of(c->callee);
    bool writes = false;
    for (bool w : sum.writesParam)
      writes |= w;
    // The callee was analysed assuming its pointer parameters do not overlap.
    for (size_t i = 0; i < c->operands.size(); ++i)
      for (size_t j = i + 1; j < c->operands.size(); ++j) {
        const ExprRef &a = c->operands[i], &b = c->operands[j];
        if (a->kind == ExprKind::Address && b->kind == ExprKind::Address && a->var == b->var &&
            (sum.writesParam[i] || sum.writesParam[j]) && !distinctElements(c, i, j)) {
          fail_(s->pos, "'" + a->var->name + "' is passed twice to '" + c->callee->name +
                            "', which writes through one of them; cgp-ad assumes that the "
                            "pointer arguments of a call do not overlap");
          failed_ = true;
        }
      }
    bool active = act_.at(s).active;
    if (!active && !writes)
      return;
    for (size_t i = 0; i < c->operands.size(); ++i) {
      const ExprRef &arg = c->operands[i];
      // A variable's value given to a shuffle: its pullback does not read
      // it (sweepCustomCall), nor does the adjoint's way into the variable.
      if (static_cast<int>(i) == c->callee->linearArg && arg->kind == ExprKind::VarRef)
        continue;
      addReads(arg);
      if (active && arg->kind == ExprKind::Address && sum.readsParam[i])
        reads.insert(arg->var);
    }
    return;
  }
  if (s->kind == StmtKind::Eval)
    return; // an opaque call: no derivative, no reverse
  std::vector<StmtRef> &code = code_[s.get()];
  auto held = held_.find(s.get());
  HeldValues holder;
  if (held != held_.end())
    holder = [&values = held->second](const ExprRef &call) -> ExprRef {
      for (const auto &[value, var] : values)
        if (sameExpr(value, call))
          return varRef(var);
      return nullptr;
    };
  adjointOfAssign(s, act_.at(s), adj_,
                  [&](const std::string &message) {
                    fail_(s->pos, message);
                    failed_ = true;
                  },
                  code, holder);
  combineAdditions(code);
  for (const StmtRef &c : code)
    forEachStmt(c, [&](const StmtRef &n) {
      for (const ExprRef &e : ownExprs(n))
        addReads(e);
    });
}

SweepBuilder::Sweeps SweepBuilder::sweep(const StmtRef &s) {
  Sweeps out;
  if (!s)
    return out;
  switch (s->kind) {
  case StmtKind::Block: {
    std::vector<Sweeps> parts;
    for (const StmtRef &c : s->stmts)
      parts.push_back(sweep(c));
    for (const Sweeps &p : parts)
      appendAll(out.fwd, p.fwd);
    for (size_t i = parts.size(); i-- > 0;) {
      auto recompute = recomputeBefore_.find(s->stmts[i].get());
      if (recompute != recomputeBefore_.end())
        appendAll(out.rev, recompute->second);
      appendAll(out.rev, parts[i].rev);
    }
    return out;
  }
  case StmtKind::Assign:
  case StmtKind::Eval:
    if (isBarrier(s)) { // the reverse phases are ordered as the forward ones
      out.fwd.push_back(s);
      out.rev.push_back(s);
      return out;
    }
    return isCallStmt(s) ? sweepCall(s) : sweepAssign(s);
  case StmtKind::If:
    return sweepIf(s);
  case StmtKind::For:
  case StmtKind::While:
  case StmtKind::DoWhile:
    return sweepLoop(s);
  default:
    out.fwd.push_back(s);
    return out;
  }
}

SweepBuilder::Sweeps SweepBuilder::sweepAssign(const StmtRef &s) {
  Sweeps out;
  bool pushed = s->kind == StmtKind::Assign && tbr.pushes.count(s.get());
  if (pushed)
    out.fwd.push_back(push(s->lhs));
  out.fwd.push_back(s);
  if (pushed)
    restore(s->lhs, out.rev);
  // An integer update whose old value the reverse sweep needs: undone by
  // the inverse update (exact; signed overflow is UB in the primal already).
  if (tbr.inverts.count(s.get()))
    out.rev.push_back(inverseUpdate(s));
  // An element a loop loads each iteration: loaded again from the previous
  // iteration's source (it cannot have changed).
  if (tbr.reloads.count(s.get()))
    out.rev.push_back(reloadStatement(s, *reloads_.find(s.get())));
  auto it = code_.find(s.get());
  if (it != code_.end())
    appendAll(out.rev, it->second);
  return out;
}

SweepBuilder::Sweeps SweepBuilder::sweepCall(const StmtRef &s) {
  Sweeps out;
  const ExprRef &c = s->value;
  const StmtActivity &facts = act_.at(s);
  CallActivity ca = callActivity(s, c, facts, sums_);
  std::vector<bool> keeps = tbr.callKeeps.count(s.get()) ? tbr.callKeeps.at(s.get())
                                                          : std::vector<bool>(c->operands.size());
  bool anyKeep = false;
  for (bool k : keeps)
    anyKeep |= k;
  bool isAssign = s->kind == StmtKind::Assign;
  bool pushed = isAssign && tbr.pushes.count(s.get());
  // The reverse sweep restores the old value of the result variable first
  // (the pullback may read it among the arguments), so the forward sweep
  // pushes it last, after the callee's own pushes.
  if (pushed)
    restore(s->lhs, out.rev);

  if (!ca.active && !anyKeep) {
    if (pushed)
      out.fwd.push_back(push(s->lhs));
    out.fwd.push_back(s);
    if (facts.reset)
      out.rev.push_back(assign(adj_.lvalue(s->lhs), constant(0, s->lhs->type)));
    return out;
  }

  if (!c->callee->pullback.empty())
    return sweepCustomCall(s, ca, keeps, pushed, out);

  CallVariantKey key;
  key.callee = c->callee;
  key.active = ca.active ? ca.argActive : std::vector<bool>(c->operands.size(), false);
  key.resultActive = ca.resultActive;
  key.keeps = keeps;
  key.device = options_.device;
  for (const ExprRef &arg : c->operands) {
    key.logs.push_back(arg->kind == ExprKind::Address && logged_.count(arg->var));
    key.shared.push_back(arg->kind == ExprKind::Address && sharedMemory.count(arg->var));
  }
  const CallVariant *variant = variants_(key);
  if (!variant) {
    failed_ = true;
    return out;
  }

  // Forward: the callee's forward sweep in place of the call.
  auto fwdNode =
      std::make_shared<ExprNode>(*opaque(variant->fwd->qualifiedName(), c->type, c->operands));
  fwdNode->callee = variant->fwd; // what it tapes (TapeBound)
  ExprRef fwdCall = fwdNode;
  if (pushed) {
    // value = g_fwd(...); push(x); x = value;
    Var *value = makeTemp(adj_.module(), c->callee->name + "_value", c->type, true);
    out.fwd.push_back(decl(value, fwdCall));
    out.fwd.push_back(push(s->lhs));
    out.fwd.push_back(assign(s->lhs, varRef(value)));
  } else {
    out.fwd.push_back(isAssign ? assign(s->lhs, fwdCall) : eval(fwdCall));
  }

  // Reverse: the callee's pullback with the adjoints of its arguments.
  std::vector<ExprRef> args = c->operands;
  if (ca.resultActive) {
    Var *seed = adj_.temp("d_" + s->lhs->var->name + "_in", s->lhs->type);
    out.rev.push_back(decl(seed, adj_.lvalue(s->lhs)));
    out.rev.push_back(assign(adj_.lvalue(s->lhs), constant(0, s->lhs->type)));
    args.push_back(varRef(seed));
  } else if (isAssign && facts.reset) {
    out.rev.push_back(assign(adj_.lvalue(s->lhs), constant(0, s->lhs->type)));
  }
  std::vector<StmtRef> after;
  for (size_t i = 0; i < c->operands.size(); ++i) {
    if (!key.active[i])
      continue;
    const ExprRef &arg = c->operands[i];
    if (arg->kind == ExprKind::Address) {
      args.push_back(address(adj_.of(arg->var), arg->operands[0]));
      continue;
    }
    if (arg->kind == ExprKind::VarRef && adj_.has(arg->var)) {
      args.push_back(address(adj_.of(arg->var), intLit(0)));
      continue;
    }
    // A scalar argument computed by an expression: collect its adjoint in a
    // temporary, then propagate it into the expression's operands.
    Var *tmp = makeTemp(adj_.module(), "d_arg" + std::to_string(i), arg->type);
    out.rev.push_back(decl(tmp, constant(0, arg->type)));
    args.push_back(address(tmp, intLit(0)));
    AdjointBuilder builder(adj_, facts.variedBefore, [&](const std::string &message) {
      fail_(s->pos, message);
      failed_ = true;
    });
    builder.propagate(arg, varRef(tmp), after);
  }
  auto revNode =
      std::make_shared<ExprNode>(*opaque(variant->rev->qualifiedName(), ScalarType::voidType(), args));
  if (variant->rev->tapeParam)
    revNode->callee = variant->rev; // printed with the thread's tape first
  out.rev.push_back(eval(revNode));
  appendAll(out.rev, after);
  return out;
}

/// A call of a function with a custom pullback (CGP_PULLBACK_OF): the
/// forward sweep calls the function itself, the reverse sweep the user's
/// pullback, with an adjoint for the result (0 when it carries none) and
/// one for every floating parameter: the adjoint of an argument that
/// carries derivatives, a zeroed scratch scalar, or a null pointer for
/// memory that carries none.
SweepBuilder::Sweeps SweepBuilder::sweepCustomCall(const StmtRef &s, const CallActivity &ca,
                                                   const std::vector<bool> &keeps, bool pushed,
                                                   Sweeps out) {
  const ExprRef &c = s->value;
  const Function &g = *c->callee;
  for (size_t i = 0; i < keeps.size(); ++i)
    if (keeps[i]) {
      fail_(s->pos, "the reverse sweep needs the values that '" + g.name + "' overwrites in '" +
                        c->operands[i]->var->name + "', but a function with a custom pullback "
                        "is called as it is, without recording them; pass a copy instead");
      failed_ = true;
      return out;
    }
  bool isAssign = s->kind == StmtKind::Assign;
  if (pushed)
    out.fwd.push_back(push(s->lhs));
  out.fwd.push_back(s);

  std::vector<ExprRef> args = c->operands;
  // cgp-ad's own pullbacks of functions linear in one argument (warp
  // shuffles) do not read that argument's value: the reverse sweep need not
  // keep it.
  if (g.linearArg >= 0)
    args[g.linearArg] = constant(0, args[g.linearArg]->type);
  if (g.returnType.isFloating()) {
    if (ca.resultActive) {
      Var *seed = adj_.temp("d_" + s->lhs->var->name + "_in", s->lhs->type);
      out.rev.push_back(decl(seed, adj_.lvalue(s->lhs)));
      out.rev.push_back(assign(adj_.lvalue(s->lhs), constant(0, s->lhs->type)));
      args.push_back(varRef(seed));
    } else {
      if (isAssign && act_.at(s).reset)
        out.rev.push_back(assign(adj_.lvalue(s->lhs), constant(0, s->lhs->type)));
      args.push_back(constant(0, g.returnType));
    }
  } else if (isAssign && act_.at(s).reset) {
    out.rev.push_back(assign(adj_.lvalue(s->lhs), constant(0, s->lhs->type)));
  }
  std::vector<StmtRef> after;
  for (size_t i = 0; i < c->operands.size(); ++i) {
    const Var *param = g.params[i];
    if (!param->isFloating())
      continue;
    const ExprRef &arg = c->operands[i];
    bool active = ca.active && ca.argActive[i];
    if (arg->kind == ExprKind::Address) {
      if (active && adj_.has(arg->var)) {
        args.push_back(address(adj_.of(arg->var), arg->operands[0]));
        if (options_.device && sharedMemory.count(arg->var))
          warn_(s->pos, "the pullback of '" + g.name + "' given by CGP_PULLBACK_OF receives the "
                        "adjoint of '" + arg->var->name + "', memory that other threads of the "
                        "launch may add into at once: it must add into it with atomicAdd");
      } else {
        if (!nullPointer_) {
          Var v;
          v.name = v.qualifiedName = "nullptr";
          v.elem = param->elem;
          v.shape = Var::Pointer;
          v.origin = Var::Global;
          nullPointer_ = adj_.module().newVar(v);
        }
        args.push_back(address(nullPointer_, intLit(0)));
      }
      continue;
    }
    if (active && arg->kind == ExprKind::VarRef && adj_.has(arg->var)) {
      args.push_back(address(adj_.of(arg->var), intLit(0)));
      continue;
    }
    // A scratch adjoint: a scalar argument computed by an expression, whose
    // adjoint then flows into the expression's operands, or one that
    // carries no derivative.
    Var *tmp = adj_.temp("d_arg" + std::to_string(i), param->elem);
    tmp->isConst = false; // the pullback adds into it
    out.rev.push_back(decl(tmp, constant(0, param->elem)));
    args.push_back(address(tmp, intLit(0)));
    if (!active)
      continue;
    AdjointBuilder builder(adj_, act_.at(s).variedBefore, [&](const std::string &message) {
      fail_(s->pos, message);
      failed_ = true;
    });
    builder.propagate(arg, varRef(tmp), after);
  }
  out.rev.push_back(comment("the pullback of '" + g.name + "' " +
                            (g.linearArg >= 0 ? "(cgp-ad's own, in cgp/device.h)"
                                              : "given by CGP_PULLBACK_OF")));
  out.rev.push_back(eval(opaque(g.pullback, ScalarType::voidType(), args)));
  appendAll(out.rev, after);
  return out;
}

SweepBuilder::Sweeps SweepBuilder::sweepIf(const StmtRef &s) {
  Sweeps a = sweep(s->body), b = sweep(s->elseBody);
  Sweeps out;
  if (a.rev.empty() && b.rev.empty()) {
    StmtRef copy = ifStmt(s->value, block(a.fwd), b.fwd.empty() ? nullptr : block(b.fwd));
    copy->pos = s->pos;
    out.fwd.push_back(copy);
    return out;
  }
  if (replayedConditions_.count(s.get())) { // nothing it reads changes after it
    StmtRef fwd = ifStmt(s->value, block(a.fwd), b.fwd.empty() ? nullptr : block(b.fwd));
    fwd->pos = s->pos;
    out.fwd.push_back(fwd);
    out.rev.push_back(comment("reverse of `if (" + printExpr(s->value) +
                              ")`: its condition, evaluated again"));
    out.rev.push_back(ifStmt(s->value, block(a.rev), b.rev.empty() ? nullptr : block(b.rev)));
    return out;
  }
  // Record the arm at its end, so that the reverse sweep pops it first.
  a.fwd.push_back(push(boolLit(true)));
  b.fwd.push_back(push(boolLit(false)));
  StmtRef fwd = ifStmt(s->value, block(a.fwd), block(b.fwd));
  fwd->pos = s->pos;
  out.fwd.push_back(fwd);
  out.rev.push_back(comment("reverse of `if (" + printExpr(s->value) +
                            ")`: the tape says which arm ran"));
  out.rev.push_back(ifStmt(tapePop(ScalarType::boolType()), block(a.rev),
                           b.rev.empty() ? nullptr : block(b.rev)));
  return out;
}

/// True if `code` pushes on the tape (itself, or in a helper's forward sweep).
static bool putsOnTape(const std::vector<StmtRef> &code) {
  bool tapes = false;
  for (const StmtRef &st : code)
    forEachStmt(st, [&](const StmtRef &n) {
      tapes |= n->kind == StmtKind::Push ||
               (n->value && n->value->kind == ExprKind::Opaque && !n->value->var &&
                n->value->calleeName.find("_fwd") != std::string::npos);
    });
  return tapes;
}

SweepBuilder::Sweeps SweepBuilder::sweepLoop(const StmtRef &s) {
  bool counted = s->kind == StmtKind::For && s->counted.index;
  // Whether the loop could keep snapshots instead of its tape (the code
  // inside it aside), decided before the loops inside it: under a budget,
  // at most kPlannedLevels loops of a nest plan their reversal.
  std::vector<Var *> state;
  std::string why;
  bool candidate = counted ? canCheckpoint(s, state, why)
                           : options_.memoryBudget >= 0 && canCheckpointOnline(s, state, why);
  // A counted loop whose trip count is not known at its entry (it may
  // leave by `break` or `return`) can still be checkpointed online.
  bool countedOnline = false;
  if (counted && !candidate && options_.memoryBudget >= 0 && !options_.device) {
    std::string whyNot;
    candidate = countedOnline = canCheckpointOnline(s, state, whyNot);
  }
  // On the device a loop keeps snapshots only at a kernel's outermost
  // level, with its trip count known at its entry (cgp/device_checkpoint.h).
  if (options_.device && candidate && (countedOnline || !counted)) {
    candidate = countedOnline = false;
    why = "on the device, a loop keeps snapshots only when its trip count is known at its entry";
  } else if (options_.device && candidate && loopDepth() > 0) {
    candidate = false;
    why = "on the device, only a kernel's outermost loops keep snapshots (this one is taped "
          "with each iteration of the loop around it)";
  }
  bool levelCounts = candidate && options_.memoryBudget >= 0;
  // Inside a loop that plans, a loop whose trip count is a constant, or
  // the same at each iteration of the loop directly around it, tapes the
  // same at each run (branches aside): the outer loop's probe measures it,
  // and its plan keeps it within the budget. Planning it too would add
  // code around the outer loop's body (MoE's: 3.2x the lines) and make the
  // outer loop replay each iteration (its nested rule) for nothing.
  bool leftAround = levelCounts && !countedOnline &&
                    leftToLoopsAround(s, enclosingLoops_.empty() ? nullptr : enclosingLoops_.back(),
                                      !plannedSites_.empty());
  if (leftAround) {
    candidate = levelCounts = false;
    why = knownTripCount(s) ? "its trip count is a constant: the loop around it plans for all of it"
                            : "its trip count is the same at every iteration of the loop around "
                              "it: the loops around it plan for all of it";
  }
  if (levelCounts && plannedSites_.size() >= kPlannedLevels) {
    candidate = levelCounts = false;
    why = std::to_string(kPlannedLevels) +
          " loops around it plan their reversal already (the most in one nest, to bound the "
          "generated code)";
  }
  // innerPlans_: whether a loop swept so far plans its reversal at run
  // time; here, whether one in this loop's body does.
  bool plannedAround = innerPlans_;
  innerPlans_ = false;
  Var *outerSite = plannedSites_.empty() ? nullptr : plannedSites_.back();
  enclosingLoops_.push_back(s);
  if (levelCounts)
    plannedSites_.push_back(loopSite(s));
  Sweeps inner = sweep(s->body);
  Sweeps step = sweep(s->step);
  if (levelCounts)
    plannedSites_.pop_back();
  enclosingLoops_.pop_back();
  bool plansInside = innerPlans_;
  innerPlans_ = plannedAround || plansInside;
  // An init whose old value the reverse sweep needs: popped or undone.
  bool initRestored = s->init && s->init->kind == StmtKind::Assign &&
                      (tbr.pushes.count(s->init.get()) || tbr.inverts.count(s->init.get()));
  Sweeps out;
  if (inner.rev.empty() && step.rev.empty() && !initRestored) {
    // Nothing to reverse: the loop runs as it is.
    if (!options_.storeAll)
      loopChoices_[s.get()] = {"run once, forward only",
                               "nothing to reverse: no derivative flows through it and it "
                               "tapes nothing"};
    auto copy = std::make_shared<StmtNode>(*s);
    copy->body = block(inner.fwd);
    out.fwd.push_back(copy);
    return out;
  }
  if (counted) {
    // Checkpointing a loop that puts nothing on the tape would save nothing.
    bool tapes = putsOnTape(inner.fwd);
    bool checkpointable = tapes && candidate;
    if (checkpointable && options_.device && !boundTape(inner.fwd).known) {
      // No probe measures an iteration on the device.
      checkpointable = false;
      why = "on the device, a loop keeps snapshots only when the tool can bound what an "
            "iteration tapes";
    }
    if (checkpointable && countedOnline) {
      innerPlans_ = true;
      return sweepOnlineLoop(s, inner, step, state, sweepCountedLoop(s, inner), plansInside,
                             outerSite);
    }
    const LoopDecision *decision = plan.loopDecision(s.get());
    double replayShare = decision ? decision->replayShare : 0;
    if (checkpointable && options_.memoryBudget < 0 && replayShare > 0 && !plansInside) {
      // Without --memory-budget, a loop may spend the plan's replay
      // allowance: tape its last iterations only (at each of its runs).
      const std::string share = shareText(replayShare);
      loopChoices_[s.get()] = {
          "tape the last iterations, run the first " + share +
              " again from snapshots (the replay allowance)",
          options_.device
              ? "no --memory-budget: on the device the plan's replay allowance (the primal's "
                "time) pays for running " + share + " of its iterations again; chosen by each "
                "thread, for the trip count it meets, when that holds less than its whole tape "
                "and that tape is over " + std::to_string(kDeviceLocalTapeBytes) +
                " bytes; state: " + stateText(s, state, /*asWritten=*/true)
              : "no --memory-budget: the plan's replay allowance (a fifth of the primal's time) "
                "pays for running " + share + " of its iterations again, since it holds " +
                    shareText(decision->tapeShare) + " of the tape (running it again frees " +
                    shareText(decision->freedShare) + ", its snapshots held instead) and "
                    "takes only " + shareText(decision->timeShare) + " of the time" +
                    (loopDepth() > 0 ? " (its schedule's cost at each of its runs included); "
                                       "chosen at run time, at each run, for "
                                     : "; chosen at run time, for ") +
                    "the trip count met, when that holds less than its whole tape (under "
                    "CGP_MEMORY_BUDGET, binomial checkpointing); state: " + stateText(s, state, /*asWritten=*/true)};
      innerPlans_ = true;
      replaying_.insert(s.get());
      return sweepCheckpointedLoop(s, inner, state, false, nullptr, replayShare);
    }
    if (checkpointable && options_.memoryBudget < 0) {
      // Without --memory-budget the loop is taped; the code that could
      // checkpoint it costs compilers (GCC) speed in the loops around it.
      std::string why = "no --memory-budget; with one, snapshots of its state (" +
                        stateText(s, state, /*asWritten=*/true) + ") could replace the tape at run time";
      if (decision && decision->tapeShare > 0 && !decision->replayPays)
        why += "; without, running its first iterations again would cost more time than the "
               "tape they free is worth (it holds " + shareText(decision->tapeShare) +
               " of the tape, running it again would free " + shareText(decision->freedShare) +
               " with its snapshots held instead, and it takes " +
               shareText(decision->timeShare) +
               " of the time: gamma x freed share <= beta x time share)";
      loopChoices_[s.get()] = {"tape every iteration", why};
      return sweepCountedLoop(s, std::move(inner));
    }
    if (checkpointable) {
      loopChoices_[s.get()] = {"tape every iteration if that fits the memory budget, else "
                               "binomial checkpointing of its state",
                               "chosen at run time" +
                                   std::string(loopDepth() > 0 ? ", at each run of the loop "
                                                                "around it"
                                                              : "") +
                                   (plansInside ? "; loops inside it plan their own reversal, "
                                                  "so it reverses one iteration at a time, or "
                                                  "tapes them as they come after a run that "
                                                  "fitted in half the room"
                                                : "") +
                                   "; state: " + stateText(s, state, /*asWritten=*/true)};
      innerPlans_ = true;
      return sweepCheckpointedLoop(s, inner, state, plansInside, outerSite);
    }
    if (!options_.storeAll)
      loopChoices_[s.get()] = {"tape every iteration",
                               !tapes         ? "it puts nothing on the tape"
                               : !f_.isKernel ? "a helper's loop (its caller's loop is planned)"
                               : leftAround   ? why
                                              : "cannot be checkpointed: " + why};
    if (tapes && !leftAround)
      warnUnheld(s, why, inner.fwd);
    return sweepCountedLoop(s, std::move(inner));
  }

  Module &m = adj_.module();
  std::string label = s->label.empty() ? "loop" : s->label;
  Var *trips = makeTemp(m, label + "_trips", ScalarType::int64Type());
  Sweeps init = sweep(s->init);

  // Under a memory budget, a loop of a kernel may keep snapshots while it
  // runs instead (OnlineCheckpoints.cpp).
  bool online = candidate && (putsOnTape(inner.fwd) || putsOnTape(step.fwd));
  if (!online && !leftAround) {
    std::vector<StmtRef> iteration = inner.fwd;
    appendAll(iteration, step.fwd);
    if (putsOnTape(iteration))
      warnUnheld(s, why.empty() ? "its trip count is not known at its entry" : why, iteration);
  }

  // Forward: count the iterations, push the count after the loop.
  std::vector<StmtRef> iteration = inner.fwd;
  appendAll(iteration, step.fwd);
  out.fwd.push_back(comment(label + ": the tape holds per iteration " + describeTape(iteration) +
                            "; after the loop, its trip count"));
  appendAll(out.fwd, init.fwd);
  out.fwd.push_back(decl(trips, intLit(0, ScalarType::int64Type())));
  std::vector<StmtRef> body{assign(varRef(trips), intLit(1, ScalarType::int64Type()), AssignOp::Add)};
  appendAll(body, inner.fwd);
  appendAll(body, step.fwd);
  StmtRef loop = s->kind == StmtKind::DoWhile ? doWhile(block(body), s->value)
                                              : whileStmt(s->value, block(body));
  loop->pos = s->pos;
  out.fwd.push_back(loop);
  out.fwd.push_back(push(varRef(trips)));

  // Reverse: run the reversed body as many times.
  std::vector<StmtRef> rbody = step.rev;
  appendAll(rbody, inner.rev);
  out.rev.push_back(comment("reverse of " + label + ": as many iterations as the forward sweep ran"));
  out.rev.push_back(forStmt(decl(trips, tapePop(ScalarType::int64Type())),
                            binary(BinaryOp::Gt, varRef(trips), intLit(0, ScalarType::int64Type())),
                            assign(varRef(trips), intLit(1, ScalarType::int64Type()), AssignOp::Sub),
                            block(rbody)));
  appendAll(out.rev, init.rev);
  if (online) {
    innerPlans_ = true;
    return sweepOnlineLoop(s, inner, step, state, std::move(out), plansInside, outerSite);
  }
  return out;
}

Var *SweepBuilder::loopSite(const StmtRef &s) {
  Var *&site = sites_[s.get()];
  if (!site)
    site = newRuntimeObject(adj_.module(), loopObjectPrefix(s) + "_site",
                            options_.device ? "cgp::dev::LoopSite" : "thread_local cgp::rt::LoopSite");
  return site;
}

SweepBuilder::Sweeps SweepBuilder::sweepCountedLoop(const StmtRef &s, Sweeps inner) {
  Module &m = adj_.module();
  Sweeps out;
  Var *i = s->counted.index;
  int64_t by = s->counted.step;
  const ScalarType &it = i->elem;
  ScalarType i64 = ScalarType::int64Type();
  bool ownIndex = s->init->kind == StmtKind::Decl;
  ExprRef start = s->init->value;
  // A first index known when compiling (`2`, `kLast`) is neither taped nor
  // computed again: the reverse sweep spells its value.
  std::optional<int64_t> knownStart = knownInteger(start);
  bool literalStart = knownStart.has_value();

  // An init that assigns an index declared outside may have to keep the
  // index's old value.
  bool initPushed = !ownIndex && tbr.pushes.count(s->init.get());

  std::optional<int64_t> known = knownTripCount(s);
  Var *first = literalStart ? nullptr : makeTemp(m, i->name + "_first", it, true);
  Var *trips = known ? nullptr : makeTemp(m, i->name + "_trips", i64);
  ExprRef firstValue = literalStart ? intLit(*knownStart, it) : varRef(first);
  ExprRef tripCount = known ? intLit(*known, i64) : varRef(trips);
  // Computed again in the reverse sweep from the init and the bound, or
  // taped after the loop.
  bool again = boundsAgain_.count(s.get()) != 0;

  // Forward.
  std::string after =
      known   ? "; its trip count is known (" + std::to_string(*known) + ")"
      : again ? "; its trip count" + std::string(literalStart ? "" : " and first " + i->name) +
                    " computed again from its bounds"
              : "; after the loop, its trip count" +
                    std::string(literalStart ? "" : " and first " + i->name);
  out.fwd.push_back(comment("loop over " + i->name + ": counted, so the reverse sweep runs " +
                            i->name + " backwards; the tape holds per iteration " +
                            describeTape(inner.fwd) + after));
  if (initPushed)
    out.fwd.push_back(push(varRef(i)));
  if (first && !again)
    out.fwd.push_back(decl(first, start));
  std::vector<StmtRef> body;
  if (trips && !again) {
    out.fwd.push_back(decl(trips, intLit(0, i64)));
    body.push_back(assign(varRef(trips), intLit(1, i64), AssignOp::Add));
  }
  appendAll(body, inner.fwd);
  ExprRef forwardFirst = again || literalStart ? start : firstValue;
  StmtRef init = ownIndex ? decl(i, forwardFirst) : assign(varRef(i), forwardFirst);
  StmtRef loop = forStmt(init, s->value, s->step, block(body));
  loop->declaresIndex = ownIndex;
  loop->pos = s->pos;
  loop->tripBound = known ? *known : -1;
  out.fwd.push_back(loop);
  if (trips && !again)
    out.fwd.push_back(push(varRef(trips)));
  if (first && !again)
    out.fwd.push_back(push(varRef(first)));

  // Reverse: the same indices, last first.
  out.rev.push_back(comment("reverse of the loop over " + i->name));
  size_t firstAt = out.rev.size();
  if (trips)
    out.rev.push_back(decl(trips, again ? tripCountExpr(s, firstValue) : tapePop(i64)));
  StmtRef rloop;
  if (known && isSignedIndex(it) && (by == 1 || by == -1)) {
    // for (i = first + (trips - 1) * by; ...), with every number known
    int64_t last = *knownStart + (*known - 1) * by;
    StmtRef rinit = ownIndex ? decl(i, intLit(last, it)) : assign(varRef(i), intLit(last, it));
    ExprRef cond = binary(by == 1 ? BinaryOp::Ge : BinaryOp::Le, varRef(i), start);
    StmtRef rstep = assign(varRef(i), intLit(1, it), by == 1 ? AssignOp::Sub : AssignOp::Add);
    rloop = forStmt(rinit, cond, rstep, block(inner.rev));
  } else if (isSignedIndex(it) && (by == 1 || by == -1)) {
    // for (i = first + (trips - 1) * by; by > 0 ? i >= first : i <= first; i -= by)
    ExprRef span = binary(BinaryOp::Sub, tripCount, intLit(1, i64));
    ExprRef last = by == 1 ? binary(BinaryOp::Add, firstValue, span)
                           : binary(BinaryOp::Sub, firstValue, span);
    if (literalStart && *knownStart == 0 && by == 1)
      last = span;
    StmtRef rinit = ownIndex ? decl(i, cast(it, last)) : assign(varRef(i), cast(it, last));
    ExprRef cond = binary(by == 1 ? BinaryOp::Ge : BinaryOp::Le, varRef(i), firstValue);
    StmtRef rstep = assign(varRef(i), intLit(1, it), by == 1 ? AssignOp::Sub : AssignOp::Add);
    rloop = forStmt(rinit, cond, rstep, block(inner.rev));
  } else {
    // for (k = trips - 1; k >= 0; --k) { i = first + k * by; ... }
    Var *k = makeTemp(m, i->name + "_iter", i64);
    ExprRef value = cast(it, binary(BinaryOp::Add, firstValue,
                                    binary(BinaryOp::Mul, varRef(k), intLit(by, i64))));
    // An index of its own that the reversed body never reads is not declared.
    std::vector<StmtRef> rbody;
    if (!ownIndex)
      rbody.push_back(assign(varRef(i), value));
    else if (codeMentions(inner.rev, i))
      rbody.push_back(decl(i, value));
    appendAll(rbody, inner.rev);
    rloop = forStmt(decl(k, binary(BinaryOp::Sub, tripCount, intLit(1, i64))),
                    binary(BinaryOp::Ge, varRef(k), intLit(0, i64)),
                    assign(varRef(k), intLit(1, i64), AssignOp::Sub), block(rbody));
  }
  out.rev.push_back(rloop);
  // The first index, before the trip count (which may be computed from it):
  // taken off the tape even where the reverse loop does not read it.
  if (first) {
    bool read = codeMentions(std::vector<StmtRef>(out.rev.begin() + firstAt, out.rev.end()), first);
    if (read)
      out.rev.insert(out.rev.begin() + firstAt, decl(first, again ? start : tapePop(it)));
    else if (!again)
      out.rev.insert(out.rev.begin() + firstAt, eval(tapePop(it)));
  }
  if (initPushed)
    out.rev.push_back(assign(varRef(i), tapePop(it)));
  // A loop whose iterations push the same bytes reserves its tape (on the
  // host: a thread's tape on the device has a fixed size).
  if (!options_.device && (known || again))
    reservations_.reserve(loop, rloop,
                          known ? intLit(*known, i64)
                                : tripCountExpr(s, literalStart ? firstValue : start),
                          tripCount, out.fwd, out.rev);
  return out;
}

} // namespace cgp
