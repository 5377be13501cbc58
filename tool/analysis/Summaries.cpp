//===- Summaries.cpp - what each function does to its pointers ------------===//
#include "analysis/Summaries.h"

namespace cgp {

std::vector<ExprRef> callsIn(const StmtRef &s) {
  std::vector<ExprRef> calls;
  forEachStmt(s, [&](const StmtRef &n) {
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Call)
          calls.push_back(x);
      });
  });
  return calls;
}

const FunctionSummary &Summaries::of(const Function *f) {
  auto it = known_.find(f);
  if (it != known_.end())
    return it->second;
  FunctionSummary sum;
  sum.readsParam.assign(f->params.size(), false);
  sum.writesParam.assign(f->params.size(), false);
  auto paramIndex = [&](const Var *v) { return v->origin == Var::Param ? v->paramIndex : -1; };
  if (!f->body) {
    // No body (a library function with a custom pullback): it may read
    // through every pointer and write through every non-const one.
    for (size_t i = 0; i < f->params.size(); ++i) {
      sum.readsParam[i] = f->params[i]->isMemory();
      sum.writesParam[i] = f->params[i]->isMemory() && !f->params[i]->isConst;
    }
    return known_[f] = sum;
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
        const FunctionSummary &callee = of(x->callee);
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
  return known_[f] = sum;
}

} // namespace cgp
