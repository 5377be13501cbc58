//===- Appends.cpp - std::vector locals a loop only appends to ------------===//
//
// See Appends.h. The body is walked in order, block by block, carrying
// whether the size has grown since the iteration's entry on every path to
// the statement: growth inside an if or a loop counts only within it.
//
//===----------------------------------------------------------------------===//
#include "analysis/Appends.h"

namespace cgp {
namespace {

class AppendFinder {
public:
  explicit AppendFinder(const Var *vector) : vector_(vector), size_(vector->sizeVar) {}

  bool holds(const StmtRef &loop) {
    visit(loop->body, false);
    visit(loop->step, false);
    return holds_;
  }

private:
  static ExprRef withoutCasts(ExprRef e) {
    while (e && e->kind == ExprKind::Cast)
      e = e->operands[0];
    return e;
  }

  static bool positiveConstant(const ExprRef &e) {
    ExprRef c = withoutCasts(e);
    return c && c->kind == ExprKind::IntLit && c->intValue > 0;
  }

  /// `v[size - 1]`: the last element.
  bool lastElement(const ExprRef &lhs) const {
    if (lhs->kind != ExprKind::Index || lhs->operands.size() != 1)
      return false;
    ExprRef i = withoutCasts(lhs->operands[0]);
    if (!i || i->kind != ExprKind::Binary || i->binaryOp != BinaryOp::Sub)
      return false;
    ExprRef size = withoutCasts(i->operands[0]), one = withoutCasts(i->operands[1]);
    return size->kind == ExprKind::VarRef && size->var == size_ &&
           one->kind == ExprKind::IntLit && one->intValue == 1;
  }

  /// Visits `s`, run after the size grew (`grown`) or not; returns whether
  /// it has grown once `s` has run.
  bool visit(const StmtRef &s, bool grown) {
    if (!s || !holds_)
      return grown;
    switch (s->kind) {
    case StmtKind::Block:
      for (const StmtRef &c : s->stmts)
        grown = visit(c, grown);
      return grown;
    case StmtKind::Assign:
      if (s->lhs->var == size_) {
        holds_ = s->assignOp == AssignOp::Add && positiveConstant(s->value);
        return true;
      }
      if (s->lhs->var == vector_)
        holds_ = grown && lastElement(s->lhs);
      return grown;
    case StmtKind::Decl:
      holds_ = s->var != size_ && s->var != vector_;
      return grown;
    default: // growth inside a branch or a loop may not happen
      forEachChild(s, [&](const StmtRef &c) { visit(c, grown); });
      return grown;
    }
  }

  const Var *vector_;
  const Var *size_;
  bool holds_ = true;
};

} // namespace

bool onlyAppends(const StmtRef &loop, const Var *vector) {
  return vector->sizeVar && AppendFinder(vector).holds(loop);
}

} // namespace cgp
