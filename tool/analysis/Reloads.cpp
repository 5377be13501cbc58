//===- Reloads.cpp - array elements the reverse sweep loads again ---------===//
//
// See Reloads.h. One walk counts, per variable, the statements that write it
// and the calls that are given it; then each counted loop's body is read in
// order for assignments that qualify.
//
//===----------------------------------------------------------------------===//
#include "analysis/Reloads.h"

#include <algorithm>
#include <set>

namespace cgp {
namespace {

/// The first value of a counted loop's index, when it is known when compiling.
bool knownStart(const StmtRef &loop, int64_t &start) {
  const StmtRef &init = loop->init;
  if (!init || (init->kind != StmtKind::Decl && init->kind != StmtKind::Assign) || !init->value)
    return false;
  std::optional<int64_t> known = knownInteger(init->value);
  if (known)
    start = *known;
  return known.has_value();
}

/// `e` with the loop index `i` read as `i - step`.
ExprRef previousIteration(const ExprRef &e, const Var *index, int64_t step) {
  if (e->kind == ExprKind::VarRef && e->var == index) {
    ExprRef by = intLit(step < 0 ? -step : step, e->type);
    return binary(step < 0 ? BinaryOp::Add : BinaryOp::Sub, e, by);
  }
  if (e->operands.empty())
    return e;
  auto copy = std::make_shared<ExprNode>(*e);
  for (ExprRef &o : copy->operands)
    o = previousIteration(o, index, step);
  return copy;
}

class Finder {
public:
  explicit Finder(const Function &f) : f_(f) {
    forEachStmt(f.body, [&](const StmtRef &s) {
      if (s->kind == StmtKind::Assign)
        ++writes_[s->lhs->var];
      if (s->kind == StmtKind::Decl && s->value)
        ++writes_[s->var];
      for (const ExprRef &e : ownExprs(s))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->kind == ExprKind::Address)
            ++writes_[x->var]; // a call may write what it is given
        });
    });
  }

  void run(Reloads &out) {
    forEachStmt(f_.body, [&](const StmtRef &loop) {
      if (loop->kind != StmtKind::For || !loop->counted.index || loop->counted.step == 0 ||
          !loop->body || loop->body->kind != StmtKind::Block)
        return;
      Reload r;
      r.loop = loop.get();
      r.index = loop->counted.index;
      r.step = loop->counted.step;
      if (!knownStart(loop, r.start))
        return;
      std::set<const Var *> inLoop;
      collectWrittenVars(loop->body, inLoop, /*opaqueCalls=*/true);
      collectWrittenVars(loop->step, inLoop, /*opaqueCalls=*/true);
      std::set<const Var *> seen; // mentioned by the statements before
      for (const StmtRef &s : loop->body->stmts) {
        consider(s, r, inLoop, seen, out);
        forEachStmt(s, [&](const StmtRef &n) {
          for (const ExprRef &e : ownExprs(n)) {
            std::vector<Var *> vars;
            collectVars(e, vars);
            seen.insert(vars.begin(), vars.end());
          }
        });
      }
    });
  }

private:
  void consider(const StmtRef &s, Reload r, const std::set<const Var *> &inLoop,
                const std::set<const Var *> &seen, Reloads &out) {
    if (s->kind != StmtKind::Assign || s->assignOp != AssignOp::Set ||
        s->lhs->kind != ExprKind::Index)
      return;
    Var *m = s->lhs->var;
    if (!m->isArray() || m->origin != Var::Local || m->ownsStorage || writes_[m] != 1 ||
        seen.count(m) || !isPure(s->value) || mentions(s->value, m))
      return;
    std::vector<Var *> operands;
    for (const ExprRef &i : s->lhs->operands) { // the same element in every iteration
      if (!isPure(i) || mentions(i, r.index))
        return;
      collectVars(i, operands);
    }
    for (Var *v : operands)
      if (inLoop.count(v))
        return;
    std::vector<Var *> read;
    collectVars(s->value, read);
    for (Var *v : read) {
      if (v == r.index)
        continue;
      if (inLoop.count(v) || (v->isMemory() && writes_[v] > 0))
        return; // it may hold another value when the reverse sweep gets here
      operands.push_back(v);
    }
    std::sort(operands.begin(), operands.end(), VarLess());
    operands.erase(std::unique(operands.begin(), operands.end()), operands.end());
    r.operands = operands;
    out.at[s.get()] = r;
  }

  const Function &f_;
  std::map<const Var *, int> writes_;
};

} // namespace

Reloads findReloads(const Function &f) {
  Reloads out;
  Finder(f).run(out);
  return out;
}

StmtRef reloadStatement(const StmtRef &s, const Reload &reload) {
  StmtRef load = assign(s->lhs, previousIteration(s->value, reload.index, reload.step));
  load->pos = s->pos;
  ExprRef notFirst = binary(BinaryOp::Ne, varRef(reload.index), intLit(reload.start));
  StmtRef out = ifStmt(notFirst, block({load}));
  out->pos = s->pos;
  return out;
}

} // namespace cgp
