//===- Fold.cpp - arithmetic builders that fold the trivial cases ---------===//
//
// See Fold.h.
//
//===----------------------------------------------------------------------===//
#include "ir/Fold.h"

namespace cgp {

ExprRef constant(double value, const ScalarType &t) { return floatLit(value, t); }

static bool isLit(const ExprRef &e, double v) {
  return (e->kind == ExprKind::FloatLit && e->floatValue == v) ||
         (e->kind == ExprKind::IntLit && e->intValue == v);
}

ExprRef neg(const ExprRef &a) {
  if (a->kind == ExprKind::Unary && a->unaryOp == UnaryOp::Neg)
    return a->operands[0];
  // -((-x) * y) = x * y, and the same for /
  if (a->kind == ExprKind::Binary &&
      (a->binaryOp == BinaryOp::Mul || a->binaryOp == BinaryOp::Div)) {
    const ExprRef &l = a->operands[0];
    if (l->kind == ExprKind::Unary && l->unaryOp == UnaryOp::Neg)
      return binary(a->binaryOp, l->operands[0], a->operands[1]);
  }
  if (a->kind == ExprKind::FloatLit)
    return floatLit(-a->floatValue, a->type);
  return unary(UnaryOp::Neg, a);
}

ExprRef mul(const ExprRef &a, const ExprRef &b) {
  if (isLit(a, 1))
    return b;
  if (isLit(b, 1))
    return a;
  if (isLit(a, -1))
    return neg(b);
  if (isLit(b, -1))
    return neg(a);
  return binary(BinaryOp::Mul, a, b);
}

ExprRef div(const ExprRef &a, const ExprRef &b) {
  if (isLit(b, 1))
    return a;
  return binary(BinaryOp::Div, a, b);
}

ExprRef add(const ExprRef &a, const ExprRef &b) {
  if (isLit(a, 0))
    return b;
  if (isLit(b, 0))
    return a;
  return binary(BinaryOp::Add, a, b);
}

ExprRef sub(const ExprRef &a, const ExprRef &b) {
  if (isLit(b, 0))
    return a;
  return binary(BinaryOp::Sub, a, b);
}

} // namespace cgp
