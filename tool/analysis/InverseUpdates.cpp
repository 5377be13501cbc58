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
    const ExprRef &lhs = s->lhs;
    if (lhs->kind != ExprKind::VarRef || !lhs->var->isScalar() ||
        lhs->var->elem.kind != ScalarType::Integer || lhs->var->origin == Var::Global ||
        countedSteps_.count(s.get()))
      return;
    ExprRef step = updateStep(s);
    if (!step || step->type.kind != ScalarType::Integer)
      return;
    std::vector<Var *> operands;
    if (!stable(step, lhs->var, operands))
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
    case ExprKind::Opaque: // a runtime constant (blockDim.x): the same all along
      return e->calleeName.empty() && e->operands.empty();
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

const ExprRef &withoutIntegerCasts(const ExprRef &e) {
  if (e->kind == ExprKind::Cast && e->type.kind == ScalarType::Integer &&
      e->operands[0]->type.kind == ScalarType::Integer)
    return withoutIntegerCasts(e->operands[0]);
  return e;
}

bool isVar(const ExprRef &e, const Var *v) {
  const ExprRef &x = withoutIntegerCasts(e);
  return x->kind == ExprKind::VarRef && x->var == v;
}

/// Rebuilds `e` (`v + s`, `s + v` or `v - s` under integer conversions)
/// with the opposite step: `v - s`, `v - s`, `v + s`.
ExprRef undoStep(const ExprRef &e, const Var *v) {
  if (e->kind == ExprKind::Cast)
    return cast(e->type, undoStep(e->operands[0], v), e->implicitCast);
  const ExprRef &a = e->operands[0], &b = e->operands[1];
  if (e->binaryOp == BinaryOp::Sub)
    return binary(BinaryOp::Add, a, b);
  return isVar(a, v) ? binary(BinaryOp::Sub, a, b) : binary(BinaryOp::Sub, b, a);
}

} // namespace

ExprRef updateStep(const StmtRef &s) {
  if (s->kind != StmtKind::Assign || s->lhs->kind != ExprKind::VarRef)
    return nullptr;
  const Var *v = s->lhs->var;
  if (s->assignOp == AssignOp::Add || s->assignOp == AssignOp::Sub)
    return s->value;
  if (s->assignOp != AssignOp::Set)
    return nullptr;
  // v = v + s, v = s + v, v = v - s, through integer conversions (int += unsigned)
  const ExprRef &e = withoutIntegerCasts(s->value);
  if (e->kind != ExprKind::Binary || e->type.kind != ScalarType::Integer)
    return nullptr;
  const ExprRef &a = e->operands[0], &b = e->operands[1];
  if (e->binaryOp == BinaryOp::Add && isVar(a, v))
    return b;
  if (e->binaryOp == BinaryOp::Add && isVar(b, v))
    return a;
  if (e->binaryOp == BinaryOp::Sub && isVar(a, v))
    return b;
  return nullptr;
}

InverseUpdates findInverseUpdates(const Function &f) {
  InverseUpdates out;
  Finder(out).run(f.body);
  return out;
}

StmtRef inverseUpdate(const StmtRef &update) {
  StmtRef inverse =
      update->assignOp == AssignOp::Set
          ? assign(update->lhs, undoStep(update->value, update->lhs->var))
          : assign(update->lhs, update->value,
                   update->assignOp == AssignOp::Add ? AssignOp::Sub : AssignOp::Add);
  inverse->pos = update->pos;
  return inverse;
}

} // namespace cgp
