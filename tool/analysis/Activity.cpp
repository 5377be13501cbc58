//===- Activity.cpp - which values carry derivatives ----------------------===//
//
// Two dataflow passes over the structured IR: "varied" forward from the
// inputs, "useful" backward from the outputs. Loops iterate to a fixpoint
// (the sets only grow, so the last iteration leaves the final facts on every
// statement of the body). Conditions never propagate either property.
//
//===----------------------------------------------------------------------===//
#include "analysis/Activity.h"

#include "ir/MathTable.h"

#include <cassert>

namespace cgp {

const StmtActivity &ActivityResult::at(const StmtRef &s) const {
  static const StmtActivity none;
  auto it = stmts.find(s.get());
  return it == stmts.end() ? none : it->second;
}

ExprRef storedValue(const StmtRef &s) {
  switch (s->assignOp) {
  case AssignOp::Set: return s->value;
  case AssignOp::Add: return binary(BinaryOp::Add, s->lhs, s->value);
  case AssignOp::Sub: return binary(BinaryOp::Sub, s->lhs, s->value);
  case AssignOp::Mul: return binary(BinaryOp::Mul, s->lhs, s->value);
  case AssignOp::Div: return binary(BinaryOp::Div, s->lhs, s->value);
  }
  return s->value;
}

namespace {

/// Visits the variables in differentiable positions of `e`.
template <class Fn> void visitDiff(const ExprRef &e, Fn &&fn) {
  if (!e->type.isFloating() && e->kind != ExprKind::Address)
    return;
  switch (e->kind) {
  case ExprKind::VarRef:
  case ExprKind::Index:
  case ExprKind::Address:
    fn(e->var);
    return;
  case ExprKind::Unary:
    if (e->unaryOp == UnaryOp::Neg || e->unaryOp == UnaryOp::Plus)
      visitDiff(e->operands[0], fn);
    return;
  case ExprKind::Binary:
    if (!isPredicate(e->binaryOp) && e->binaryOp != BinaryOp::Rem) {
      visitDiff(e->operands[0], fn);
      visitDiff(e->operands[1], fn);
    }
    return;
  case ExprKind::Select:
    visitDiff(e->operands[1], fn);
    visitDiff(e->operands[2], fn);
    return;
  case ExprKind::Cast:
    if (e->operands[0]->type.isFloating())
      visitDiff(e->operands[0], fn);
    return;
  case ExprKind::Math: {
    const MathFunction &f = mathFunction(e->mathFn);
    for (size_t i = 0; i < e->operands.size(); ++i)
      if (f.differentiable(i)) // floor's argument has none
        visitDiff(e->operands[i], fn);
    return;
  }
  case ExprKind::Opaque:
  case ExprKind::Call:
    for (const ExprRef &op : e->operands)
      visitDiff(op, fn);
    return;
  default:
    return;
  }
}

class ActivityAnalysis {
public:
  ActivityAnalysis(Summaries &summaries, ActivityResult &out) : sums_(summaries), out_(out) {}

  /// Updates `v`, the variables varied before `s`, to those varied after
  /// it. (In place: a copy per statement made the analysis quadratic in a
  /// long straight-line kernel.)
  void forward(const StmtRef &s, VarSet &v) {
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Block:
      for (const StmtRef &c : s->stmts)
        forward(c, v);
      return;
    case StmtKind::Decl:
      return; // after hoisting, only a counted index: never floating
    case StmtKind::Assign:
    case StmtKind::Eval: {
      out_.stmts[s.get()].variedBefore = mentioned(v, s);
      if (isCallStmt(s)) {
        forwardCall(s, v);
        return;
      }
      if (s->kind == StmtKind::Eval)
        return; // a call without body, for its effects (inactive)
      Var *x = s->lhs->var;
      bool varied = x->isFloating() && exprVaried(storedValue(s), v);
      if (x->isScalar()) {
        if (varied)
          v.insert(x);
        else
          v.erase(x);
      } else if (varied) {
        v.insert(x);
      }
      return;
    }
    case StmtKind::If: {
      VarSet other = v;
      forward(s->body, v);
      forward(s->elseBody, other);
      v.insert(other.begin(), other.end());
      return;
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: {
      forward(s->init, v);
      VarSet head = v;
      while (true) {
        VarSet end = head;
        forward(s->body, end);
        forward(s->step, end);
        end.insert(v.begin(), v.end());
        if (end == head)
          break;
        head = std::move(end);
      }
      v = std::move(head);
      return;
    }
    default:
      return;
    }
  }

  /// Updates `u`, the variables useful after `s`, to those useful before it.
  void backward(const StmtRef &s, VarSet &u) {
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Block:
      for (auto it = s->stmts.rbegin(); it != s->stmts.rend(); ++it)
        backward(*it, u);
      return;
    case StmtKind::Assign:
    case StmtKind::Eval: {
      out_.stmts[s.get()].usefulAfter = mentioned(u, s);
      if (isCallStmt(s)) {
        backwardCall(s, u);
        return;
      }
      if (s->kind == StmtKind::Eval)
        return;
      Var *x = s->lhs->var;
      bool useful = u.count(x) != 0;
      if (x->isScalar())
        u.erase(x);
      if (useful)
        diffVars(storedValue(s), u);
      return;
    }
    case StmtKind::If: {
      VarSet other = u;
      backward(s->body, u);
      backward(s->elseBody, other);
      u.insert(other.begin(), other.end());
      return;
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: {
      // `tail` is what is useful at the end of an iteration: after the loop,
      // or at the head of the next iteration.
      VarSet tail = u, head;
      while (true) {
        head = tail;
        backward(s->step, head);
        backward(s->body, head);
        VarSet next = u;
        next.insert(head.begin(), head.end());
        if (next == tail)
          break;
        tail = std::move(next);
      }
      if (s->kind == StmtKind::DoWhile)
        u = std::move(head); // the body runs at least once
      else
        u.insert(head.begin(), head.end());
      backward(s->init, u);
      return;
    }
    default:
      return;
    }
  }

private:
  void forwardCall(const StmtRef &s, VarSet &v) {
    const ExprRef &c = s->value;
    const FunctionSummary &sum = sums_.of(c->callee);
    bool inputsVaried = false;
    for (size_t i = 0; i < c->operands.size(); ++i) {
      const ExprRef &arg = c->operands[i];
      if (arg->kind == ExprKind::Address)
        inputsVaried |= arg->var->isFloating() && v.count(arg->var) && sum.readsParam[i];
      else
        inputsVaried |= exprVaried(arg, v);
    }
    if (inputsVaried)
      for (size_t i = 0; i < c->operands.size(); ++i) {
        const ExprRef &arg = c->operands[i];
        if (arg->kind == ExprKind::Address && sum.writesParam[i] && arg->var->isFloating())
          v.insert(arg->var);
      }
    if (s->kind == StmtKind::Assign) {
      Var *x = s->lhs->var;
      if (inputsVaried && x->isFloating())
        v.insert(x);
      else if (x->isScalar())
        v.erase(x);
    }
  }

  void backwardCall(const StmtRef &s, VarSet &u) {
    const ExprRef &c = s->value;
    const FunctionSummary &sum = sums_.of(c->callee);
    bool outUseful = false;
    if (s->kind == StmtKind::Assign) {
      Var *x = s->lhs->var;
      outUseful = x->isFloating() && u.count(x);
      if (x->isScalar())
        u.erase(x);
    }
    for (size_t i = 0; i < c->operands.size(); ++i) {
      const ExprRef &arg = c->operands[i];
      if (arg->kind == ExprKind::Address && sum.writesParam[i] && arg->var->isFloating() &&
          u.count(arg->var))
        outUseful = true;
    }
    if (!outUseful)
      return;
    for (size_t i = 0; i < c->operands.size(); ++i) {
      const ExprRef &arg = c->operands[i];
      if (arg->kind == ExprKind::Address) {
        if (arg->var->isFloating() && sum.readsParam[i])
          u.insert(arg->var);
      } else {
        diffVars(arg, u);
      }
    }
  }

  /// The members of `set` that statement `s` names (what it assigns and
  /// every variable of its expressions): all that the questions asked of a
  /// statement's facts look at, so each statement keeps a few variables
  /// instead of a copy of the whole set.
  static VarSet mentioned(const VarSet &set, const StmtRef &s) {
    VarSet out;
    auto note = [&](const ExprRef &e) {
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->var && set.count(x->var))
          out.insert(x->var);
      });
    };
    if (s->lhs) {
      note(s->lhs);
      if (s->lhs->var && set.count(s->lhs->var))
        out.insert(s->lhs->var);
    }
    note(s->value);
    return out;
  }

  Summaries &sums_;
  ActivityResult &out_;
};

} // namespace

bool exprVaried(const ExprRef &e, const VarSet &varied) {
  bool found = false;
  visitDiff(e, [&](Var *v) {
    if (varied.count(v))
      found = true;
  });
  return found;
}

void diffVars(const ExprRef &e, VarSet &out) {
  visitDiff(e, [&](Var *v) {
    if (v->isFloating())
      out.insert(v);
  });
}

CallActivity callActivity(const StmtRef &s, const ExprRef &c, const StmtActivity &facts,
                          Summaries &summaries) {
  const FunctionSummary &sum = summaries.of(c->callee);
  const VarSet &v = facts.variedBefore;
  const VarSet &u = facts.usefulAfter;
  CallActivity result;
  result.argActive.assign(c->operands.size(), false);
  bool inputsVaried = false, writesUseful = false;
  for (size_t i = 0; i < c->operands.size(); ++i) {
    const ExprRef &arg = c->operands[i];
    if (arg->kind == ExprKind::Address) {
      bool floating = arg->var->isFloating();
      inputsVaried |= floating && v.count(arg->var) && sum.readsParam[i];
      writesUseful |= floating && sum.writesParam[i] && u.count(arg->var);
    } else {
      inputsVaried |= exprVaried(arg, v);
    }
  }
  bool resultUseful = s->kind == StmtKind::Assign && s->lhs->var->isFloating() &&
                      u.count(s->lhs->var);
  // A call that overwrites useful memory is active even without varied
  // inputs: the adjoints of what it overwrites must be cleared.
  result.active = writesUseful || (inputsVaried && resultUseful);
  if (!result.active)
    return result;
  result.resultActive = resultUseful;
  for (size_t i = 0; i < c->operands.size(); ++i) {
    const ExprRef &arg = c->operands[i];
    if (arg->kind == ExprKind::Address) {
      bool floating = arg->var->isFloating();
      // Memory the call writes carries derivatives when the caller reads it
      // later, and also when the callee's own result may be read back from
      // it (fuzz regression 004: a scratch array the caller never reads).
      bool throughResult = sum.writesParam[i] && inputsVaried && resultUseful;
      result.argActive[i] = floating && ((v.count(arg->var) && sum.readsParam[i]) ||
                                         (sum.writesParam[i] && u.count(arg->var)) ||
                                         throughResult);
    } else {
      result.argActive[i] = exprVaried(arg, v);
    }
  }
  return result;
}

ActivityResult analyzeActivity(const Function &f, const ActivitySeeds &seeds,
                               Summaries &summaries) {
  ActivityResult result;
  ActivityAnalysis analysis(summaries, result);
  VarSet varied = seeds.varied, useful = seeds.useful;
  analysis.forward(f.body, varied);
  analysis.backward(f.body, useful);

  // Decide activity per statement, and which variables need adjoints.
  for (Var *v : seeds.varied)
    result.withAdjoint.insert(v);
  for (Var *v : seeds.useful)
    result.withAdjoint.insert(v);
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind != StmtKind::Assign && s->kind != StmtKind::Eval)
      return;
    StmtActivity &facts = result.stmts[s.get()];
    if (isCallStmt(s)) {
      CallActivity ca = callActivity(s, s->value, facts, summaries);
      facts.active = ca.active;
      if (!ca.active)
        return;
      if (ca.resultActive)
        result.withAdjoint.insert(s->lhs->var);
      for (size_t i = 0; i < ca.argActive.size(); ++i) {
        if (!ca.argActive[i])
          continue;
        const ExprRef &arg = s->value->operands[i];
        if (arg->kind == ExprKind::Address) {
          result.withAdjoint.insert(arg->var);
          continue;
        }
        VarSet vars;
        diffVars(arg, vars);
        for (Var *x : vars)
          if (facts.variedBefore.count(x))
            result.withAdjoint.insert(x);
      }
      return;
    }
    if (s->kind == StmtKind::Eval)
      return;
    Var *x = s->lhs->var;
    if (!x->isFloating())
      return;
    ExprRef stored = storedValue(s);
    facts.active = facts.usefulAfter.count(x) && exprVaried(stored, facts.variedBefore);
    if (!facts.active)
      return;
    result.withAdjoint.insert(x);
    VarSet vars;
    diffVars(stored, vars);
    for (Var *y : vars)
      if (facts.variedBefore.count(y))
        result.withAdjoint.insert(y);
  });
  // Overwrites of variables with adjoints by values without derivatives.
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind != StmtKind::Assign)
      return;
    StmtActivity &facts = result.stmts[s.get()];
    Var *x = s->lhs->var;
    facts.reset = !facts.active && x->isFloating() && result.withAdjoint.count(x) &&
                  facts.usefulAfter.count(x);
  });
  return result;
}

} // namespace cgp
