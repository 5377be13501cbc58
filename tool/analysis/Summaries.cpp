//===- Summaries.cpp - what each function does to its pointers ------------===//
#include "analysis/Summaries.h"

namespace cgp {

std::vector<ExprRef> callsIn(const StmtRef &s) {
  std::vector<ExprRef> calls;
  forEachExprIn(s, [&](const ExprRef &x) {
    if (x->kind == ExprKind::Call)
      calls.push_back(x);
  });
  return calls;
}

namespace {

int paramIndex(const Var *v) { return v->origin == Var::Param ? v->paramIndex : -1; }

/// The summary of `f` from its body, with its callees' summaries as
/// `known` holds them now.
FunctionSummary summarise(const Function *f,
                          const std::map<const Function *, FunctionSummary> &known) {
  FunctionSummary sum;
  sum.readsParam.assign(f->params.size(), false);
  sum.writesParam.assign(f->params.size(), false);
  if (!f->body) {
    // No body (a library function with a custom pullback): it may read
    // through every pointer and write through every non-const one.
    for (size_t i = 0; i < f->params.size(); ++i) {
      sum.readsParam[i] = f->params[i]->isMemory();
      sum.writesParam[i] = f->params[i]->isMemory() && !f->params[i]->isConst;
    }
    return sum;
  }
  forEachStmt(f->body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::Index) {
      int p = paramIndex(s->lhs->var);
      if (p >= 0)
        sum.writesParam[p] = true;
      if (p >= 0 && s->assignOp != AssignOp::Set)
        sum.readsParam[p] = true;
    }
    for (const ExprRef &e : ownExprs(s)) {
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Index && x != s->lhs) {
          int p = paramIndex(x->var);
          if (p >= 0)
            sum.readsParam[p] = true;
        }
        if (x->kind != ExprKind::Call)
          return;
        const FunctionSummary &callee = known.at(x->callee);
        for (size_t i = 0; i < x->operands.size(); ++i) {
          const ExprRef &arg = x->operands[i];
          if (arg->kind != ExprKind::Address)
            continue;
          int p = paramIndex(arg->var);
          if (p < 0)
            continue;
          if (callee.readsParam[i])
            sum.readsParam[p] = true;
          if (callee.writesParam[i])
            sum.writesParam[p] = true;
        }
      });
    }
  });
  return sum;
}

} // namespace

const FunctionSummary &Summaries::of(const Function *f) {
  auto it = known_.find(f);
  if (it != known_.end())
    return it->second;
  // The functions f reaches that have no summary yet, each starting from
  // "reads and writes nothing"; then rounds over all of them until none
  // changes. Summaries only grow, so the rounds end; without recursion the
  // second round finds nothing new.
  std::vector<const Function *> fresh;
  std::vector<const Function *> work{f};
  while (!work.empty()) {
    const Function *g = work.back();
    work.pop_back();
    if (known_.count(g))
      continue;
    FunctionSummary none;
    none.readsParam.assign(g->params.size(), false);
    none.writesParam.assign(g->params.size(), false);
    known_[g] = none;
    fresh.push_back(g);
    if (g->body)
      for (const ExprRef &c : callsIn(g->body))
        work.push_back(c->callee);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto g = fresh.rbegin(); g != fresh.rend(); ++g) { // callees first, mostly
      FunctionSummary sum = summarise(*g, known_);
      FunctionSummary &old = known_[*g];
      if (sum.readsParam != old.readsParam || sum.writesParam != old.writesParam) {
        old = std::move(sum);
        changed = true;
      }
    }
  }
  return known_.at(f);
}

} // namespace cgp
