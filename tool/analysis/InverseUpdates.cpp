//===- InverseUpdates.cpp - integer updates the reverse sweep undoes ------===//
//
// One walk over the body finds what loops write (a variable written inside
// a loop may hold another value when the reverse sweep reaches the update),
// a second one the updates `v += e` / `v -= e` of integer scalars whose
// step `e` is pure and reads only what stays put: constants, variables no
// loop writes, and indices of counted loops around the update.
//
//===----------------------------------------------------------------------===//
#include "analysis/InverseUpdates.h"

#include <algorithm>
#include <set>

namespace cgp {
namespace {

bool isLoop(const StmtRef &s) {
  return s->kind == StmtKind::For || s->kind == StmtKind::While || s->kind == StmtKind::DoWhile;
}

class Finder {
public:
  explicit Finder(InverseUpdates &out) : out_(out) {}

  void run(const StmtRef &body) {
    forEachStmt(body, [&](const StmtRef &s) {
      if (!isLoop(s))
        return;
      collectWrittenVars(s->body, writtenInLoops_, /*opaqueCalls=*/true);
      collectWrittenVars(s->step, writtenInLoops_, /*opaqueCalls=*/true);
      if (s->kind == StmtKind::For && s->counted.index)
        countedSteps_.insert(s->step.get());
    });
    visit(body);
  }

private:
  void visit(const StmtRef &s) {
    if (!s)
      return;
    if (s->kind == StmtKind::Assign)
      consider(s);
    bool counted = s->kind == StmtKind::For && s->counted.index;
    if (counted)
      indices_.push_back(s->counted.index);
    for (const StmtRef &c : s->stmts)
      visit(c);
    for (const StmtRef *c : {&s->init, &s->step, &s->body, &s->elseBody})
      visit(*c);
    for (const SwitchCase &c : s->cases)
      for (const StmtRef &b : c.body)
        visit(b);
    if (counted)
      indices_.pop_back();
  }

  void consider(const StmtRef &s) {
    if (s->assignOp != AssignOp::Add && s->assignOp != AssignOp::Sub)
      return;
    const ExprRef &lhs = s->lhs;
    if (lhs->kind != ExprKind::VarRef || !lhs->var->isScalar() ||
        lhs->var->elem.kind != ScalarType::Integer || lhs->var->origin == Var::Global ||
        s->value->type.kind != ScalarType::Integer || countedSteps_.count(s.get()))
      return;
    std::vector<Var *> operands;
    if (!stable(s->value, lhs->var, operands))
      return;
    std::sort(operands.begin(), operands.end(), VarLess());
    operands.erase(std::unique(operands.begin(), operands.end()), operands.end());
    out_.operands[s.get()] = operands;
  }

  /// True if `e` evaluates in the reverse sweep as it did in the forward
  /// one without anything taped for it: pure, not reading `v`, and its
  /// variables stable (listed in `operands`).
  bool stable(const ExprRef &e, const Var *v, std::vector<Var *> &operands) const {
    switch (e->kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
      return true;
    case ExprKind::VarRef:
    case ExprKind::Index:
      if (e->var == v || !stableVar(e->var))
        return false;
      operands.push_back(e->var);
      break;
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Select:
    case ExprKind::Cast:
      break;
    default: // calls, math functions, tape pops, runtime objects
      return false;
    }
    for (const ExprRef &o : e->operands)
      if (!stable(o, v, operands))
        return false;
    return true;
  }

  bool stableVar(const Var *x) const {
    if (x->origin == Var::Global)
      return x->isConst;
    if (!writtenInLoops_.count(x))
      return true;
    // The index of a counted loop around the update: the reverse loop runs
    // the same indices.
    return std::find(indices_.begin(), indices_.end(), x) != indices_.end();
  }

  InverseUpdates &out_;
  std::set<const Var *> writtenInLoops_;
  std::set<const StmtNode *> countedSteps_;
  std::vector<const Var *> indices_; // counted loops around the statement visited
};

} // namespace

InverseUpdates findInverseUpdates(const Function &f) {
  InverseUpdates out;
  Finder(out).run(f.body);
  return out;
}

StmtRef inverseUpdate(const StmtRef &update) {
  StmtRef inverse = assign(update->lhs, update->value,
                           update->assignOp == AssignOp::Add ? AssignOp::Sub : AssignOp::Add);
  inverse->pos = update->pos;
  return inverse;
}

} // namespace cgp
