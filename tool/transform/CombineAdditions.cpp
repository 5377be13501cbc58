//===- CombineAdditions.cpp - one addition per adjoint and statement ------===//
//
// See CombineAdditions.h. A later addition absorbs an earlier one (the
// earlier is removed, the later adds both terms), so that the terms of the
// later one, which may read temporaries declared in between, stay where
// they are defined.
//
//===----------------------------------------------------------------------===//
#include "transform/CombineAdditions.h"

#include "transform/Derivatives.h"

#include <set>

namespace cgp {
namespace {

bool isAddition(const StmtRef &s) {
  return s && s->kind == StmtKind::Assign && s->assignOp == AssignOp::Add &&
         s->atomicity == StmtNode::Atomicity::None && s->lhs->type.isFloating();
}

/// True if `t` and `u` are the same term (a product in either order: a * b
/// is b * a to the bit).
bool sameTerm(const ExprRef &t, const ExprRef &u) {
  if (sameExpr(t, u))
    return true;
  return t->kind == ExprKind::Binary && u->kind == ExprKind::Binary &&
         t->binaryOp == BinaryOp::Mul && u->binaryOp == BinaryOp::Mul &&
         sameExpr(t->operands[0], u->operands[1]) && sameExpr(t->operands[1], u->operands[0]);
}

/// `t + u`; `2 * t` when u is t (t + t is 2 * t exactly), and `s + 2 * u`
/// when t is `s + u`.
ExprRef sumOf(const ExprRef &t, const ExprRef &u) {
  if (sameTerm(t, u))
    return mul(constant(2, t->type), t);
  if (t->kind == ExprKind::Binary && t->binaryOp == BinaryOp::Add && sameTerm(t->operands[1], u))
    return add(t->operands[0], mul(constant(2, u->type), t->operands[1]));
  return add(t, u);
}

/// True if `s` may change what `reads` holds or read or write the adjoint
/// variable `target`.
bool interferes(const StmtRef &s, const std::set<const Var *> &reads, const Var *target) {
  std::set<const Var *> written;
  collectWrittenVars(s, written, /*opaqueCalls=*/true);
  for (const Var *v : written)
    if (reads.count(v) || v == target)
      return true;
  bool readsTarget = false;
  forEachStmt(s, [&](const StmtRef &n) {
    for (const ExprRef &e : ownExprs(n))
      readsTarget |= mentions(e, target);
  });
  // A call may read anything through the pointers it is given.
  bool calls = false;
  forEachStmt(s, [&](const StmtRef &n) {
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        calls |= x->kind == ExprKind::Call || (x->kind == ExprKind::Opaque && !x->calleeName.empty());
      });
  });
  return readsTarget || calls;
}

} // namespace

void combineAdditions(std::vector<StmtRef> &code) {
  for (const StmtRef &s : code)
    if (s && s->kind == StmtKind::If) {
      for (StmtRef *arm : {&s->body, &s->elseBody})
        if (*arm && (*arm)->kind == StmtKind::Block)
          combineAdditions((*arm)->stmts);
    }
  for (size_t i = 0; i < code.size(); ++i) {
    if (!isAddition(code[i]))
      continue;
    const StmtRef &first = code[i];
    std::set<const Var *> reads;
    std::vector<Var *> vars;
    collectVars(first->value, vars);
    for (const ExprRef &index : first->lhs->operands)
      collectVars(index, vars);
    reads.insert(vars.begin(), vars.end());
    for (size_t j = i + 1; j < code.size(); ++j) {
      const StmtRef &later = code[j];
      if (isAddition(later) && sameExpr(later->lhs, first->lhs)) {
        StmtRef both = assign(later->lhs, sumOf(first->value, later->value), AssignOp::Add);
        both->pos = later->pos;
        code[j] = both;
        code.erase(code.begin() + static_cast<std::ptrdiff_t>(i));
        --i; // look again from the same place
        break;
      }
      if (interferes(later, reads, first->lhs->var))
        break;
    }
  }
}

} // namespace cgp
