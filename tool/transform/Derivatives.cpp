//===- Derivatives.cpp - adjoint code of one statement --------------------===//
//
// Derivative rules, written as the C++ the reverse sweep will run. A seed
// used by two operands is first stored in a `const` temporary, so that the
// generated code never repeats a long expression.
//
//===----------------------------------------------------------------------===//
#include "transform/Derivatives.h"

#include <cassert>

namespace cgp {

//===----------------------------------------------------------------------===//
// Expression builders with light constant folding
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// AdjointMap
//===----------------------------------------------------------------------===//

Var *AdjointMap::of(const Var *v) const {
  auto it = map_.find(v);
  assert(it != map_.end() && "variable without adjoint");
  return it->second;
}

ExprRef AdjointMap::lvalue(const ExprRef &primal) const {
  Var *a = of(primal->var);
  if (primal->kind == ExprKind::VarRef)
    return varRef(a);
  return index(a, primal->operands);
}

Var *AdjointMap::temp(const std::string &name, const ScalarType &t) {
  Var v;
  v.name = name;
  v.elem = t;
  v.origin = Var::Temp;
  v.isConst = true;
  Var *made = module_.newVar(v);
  generated_.insert(made);
  return made;
}

//===----------------------------------------------------------------------===//
// AdjointBuilder
//===----------------------------------------------------------------------===//

bool isCheapToRepeat(const ExprRef &e) {
  switch (e->kind) {
  case ExprKind::VarRef:
  case ExprKind::FloatLit:
  case ExprKind::IntLit:
    return true;
  case ExprKind::Index:
    for (const ExprRef &i : e->operands)
      if (!isCheapToRepeat(i))
        return false;
    return true;
  case ExprKind::Unary:
  case ExprKind::Cast:
    return isCheapToRepeat(e->operands[0]);
  default:
    return false;
  }
}

ExprRef AdjointBuilder::stable(const ExprRef &e, std::vector<StmtRef> &out,
                               const std::string &name) {
  if (isCheapToRepeat(e))
    return e;
  Var *t = adj_.temp(name, e->type);
  out.push_back(decl(t, e));
  return varRef(t);
}

void AdjointBuilder::propagate(const ExprRef &e, const ExprRef &seed, std::vector<StmtRef> &out) {
  if (!exprVaried(e, varied_))
    return;
  switch (e->kind) {
  case ExprKind::VarRef:
  case ExprKind::Index:
    out.push_back(assign(adj_.lvalue(e), seed, AssignOp::Add));
    return;
  case ExprKind::Unary:
    propagate(e->operands[0], e->unaryOp == UnaryOp::Neg ? neg(seed) : seed, out);
    return;
  case ExprKind::Cast:
    propagate(e->operands[0], cast(e->operands[0]->type, seed), out);
    return;
  case ExprKind::Binary: {
    const ExprRef &a = e->operands[0];
    const ExprRef &b = e->operands[1];
    bool va = exprVaried(a, varied_), vb = exprVaried(b, varied_);
    ExprRef s = va && vb ? stable(seed, out, "adj") : seed;
    switch (e->binaryOp) {
    case BinaryOp::Add:
      propagate(a, s, out);
      propagate(b, s, out);
      return;
    case BinaryOp::Sub:
      propagate(a, s, out);
      propagate(b, neg(s), out);
      return;
    case BinaryOp::Mul:
      if (va)
        propagate(a, mul(s, b), out);
      if (vb)
        propagate(b, mul(a, s), out);
      return;
    case BinaryOp::Div: {
      ExprRef denominator = vb ? stable(b, out, "denominator") : b;
      if (va && vb) {
        // One division for both: s / b, then d(a/b)/db = -(s / b) * a / b
        // as a product with the reciprocal.
        Var *r = adj_.temp("reciprocal", e->type);
        out.push_back(decl(r, div(constant(1.0, e->type), denominator)));
        ExprRef q = stable(mul(s, varRef(r)), out, "quotient_adj");
        propagate(a, q, out);
        propagate(b, neg(mul(mul(q, a), varRef(r))), out);
        return;
      }
      if (va)
        propagate(a, div(s, denominator), out);
      if (vb) // d(a/b)/db = -a / b^2
        propagate(b, neg(div(mul(s, a), mul(denominator, denominator))), out);
      return;
    }
    default:
      return; // predicates and integer operators carry no derivative
    }
  }
  case ExprKind::Select: {
    // Only the arm that produced the value receives the adjoint.
    std::vector<StmtRef> a, b;
    propagate(e->operands[1], seed, a);
    propagate(e->operands[2], seed, b);
    out.push_back(ifStmt(e->operands[0], block(a), b.empty() ? nullptr : block(b)));
    return;
  }
  case ExprKind::Math:
    propagateMath(e, seed, out);
    return;
  case ExprKind::Opaque:
    fail_("the call of '" + e->calleeName.substr(e->calleeName.rfind("::", 0) == 0 ? 2 : 0) +
          "' has no visible body and no derivative, and its arguments carry derivatives");
    return;
  case ExprKind::Call:
    fail_("internal error: a call was left inside an expression");
    return;
  default:
    return;
  }
}

void AdjointBuilder::propagateMath(const ExprRef &e, const ExprRef &seed,
                                   std::vector<StmtRef> &out) {
  const ScalarType &t = e->type;
  const ExprRef &a = e->operands[0];
  auto fn = [&](MathFn f, std::vector<ExprRef> args) {
    ExprRef call = math(f, t, std::move(args));
    ExprRef holder = held_ ? held_(call) : nullptr;
    return holder ? holder : call;
  };
  auto one = constant(1, t);
  switch (e->mathFn) {
  case MathFn::Sqrt: // 1 / (2 sqrt(a))
    propagate(a, div(seed, mul(constant(2, t), fn(MathFn::Sqrt, {a}))), out);
    return;
  case MathFn::Exp:
  case MathFn::Expm1: // exp(a)
    propagate(a, mul(seed, fn(MathFn::Exp, {a})), out);
    return;
  case MathFn::Log: // 1 / a
    propagate(a, div(seed, a), out);
    return;
  case MathFn::Log1p: // 1 / (1 + a)
    propagate(a, div(seed, add(one, a)), out);
    return;
  case MathFn::Sin:
    propagate(a, mul(seed, fn(MathFn::Cos, {a})), out);
    return;
  case MathFn::Cos:
    propagate(a, mul(seed, neg(fn(MathFn::Sin, {a}))), out);
    return;
  case MathFn::Tan: { // 1 + tan(a)^2
    ExprRef ta = stable(fn(MathFn::Tan, {a}), out, "tan_value");
    propagate(a, mul(seed, add(one, mul(ta, ta))), out);
    return;
  }
  case MathFn::Tanh: { // 1 - tanh(a)^2
    ExprRef th = stable(fn(MathFn::Tanh, {a}), out, "tanh_value");
    propagate(a, mul(seed, sub(one, mul(th, th))), out);
    return;
  }
  case MathFn::Atan: // 1 / (1 + a^2)
    propagate(a, div(seed, add(one, mul(a, a))), out);
    return;
  case MathFn::Cbrt: { // 1 / (3 cbrt(a)^2)
    ExprRef c = stable(fn(MathFn::Cbrt, {a}), out, "cbrt_value");
    propagate(a, div(seed, mul(constant(3, t), mul(c, c))), out);
    return;
  }
  case MathFn::Fabs: {
    std::vector<StmtRef> negative, positive;
    propagate(a, neg(seed), negative);
    propagate(a, seed, positive);
    out.push_back(ifStmt(binary(BinaryOp::Lt, a, constant(0, t)), block(negative),
                         block(positive)));
    return;
  }
  default:
    break;
  }

  // Two-argument functions.
  const ExprRef &b = e->operands[1];
  bool va = exprVaried(a, varied_), vb = exprVaried(b, varied_);
  ExprRef s = va && vb ? stable(seed, out, "adj") : seed;
  switch (e->mathFn) {
  case MathFn::Atan2: { // atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2)
    ExprRef r2 = add(mul(a, a), mul(b, b));
    if (va && vb)
      r2 = stable(r2, out, "radius2");
    if (va)
      propagate(a, div(mul(s, b), r2), out);
    if (vb)
      propagate(b, neg(div(mul(s, a), r2)), out);
    return;
  }
  case MathFn::Pow: { // a^b: d/da = b a^(b-1), d/db = a^b log(a)
    if (va) {
      ExprRef bm1 = b->kind == ExprKind::FloatLit ? floatLit(b->floatValue - 1, t) : sub(b, one);
      propagate(a, mul(s, mul(b, fn(MathFn::Pow, {a, bm1}))), out);
    }
    if (vb)
      propagate(b, mul(s, mul(fn(MathFn::Pow, {a, b}), fn(MathFn::Log, {a}))), out);
    return;
  }
  case MathFn::Hypot: { // d/da = a / hypot(a, b)
    ExprRef h = fn(MathFn::Hypot, {a, b});
    if (va && vb)
      h = stable(h, out, "hypot_value");
    if (va)
      propagate(a, div(mul(s, a), h), out);
    if (vb)
      propagate(b, div(mul(s, b), h), out);
    return;
  }
  case MathFn::Fmin:
  case MathFn::Fmax: {
    // fmin(a, b) is b when b < a, else a; fmax(a, b) is b when a < b.
    ExprRef pickB = e->mathFn == MathFn::Fmin ? binary(BinaryOp::Lt, b, a)
                                              : binary(BinaryOp::Lt, a, b);
    std::vector<StmtRef> toB, toA;
    propagate(b, s, toB);
    propagate(a, s, toA);
    out.push_back(ifStmt(pickB, block(toB), toA.empty() ? nullptr : block(toA)));
    return;
  }
  default:
    return;
  }
}

//===----------------------------------------------------------------------===//

/// True if the derivative of `e` can be infinite (or undefined) where `e`
/// is finite: sqrt, cbrt and log near 0, pow, division by a varied value...
/// A zero adjoint times such a derivative would give NaN instead of 0.
static bool hasSingularDerivative(const ExprRef &e, const VarSet &varied) {
  bool singular = false;
  forEachExpr(e, [&](const ExprRef &x) {
    if (x->kind == ExprKind::Math) {
      switch (x->mathFn) {
      case MathFn::Sqrt:
      case MathFn::Cbrt:
      case MathFn::Log:
      case MathFn::Log1p:
      case MathFn::Pow:
      case MathFn::Atan2:
      case MathFn::Hypot:
      case MathFn::Tan:
        singular |= exprVaried(x, varied);
        break;
      default:
        break;
      }
    }
    if (x->kind == ExprKind::Binary && x->binaryOp == BinaryOp::Div)
      singular |= exprVaried(x->operands[1], varied);
  });
  return singular;
}

void adjointOfAssign(const StmtRef &s, const StmtActivity &facts, AdjointMap &adjoints,
                     std::function<void(const std::string &)> fail, std::vector<StmtRef> &out,
                     HeldValues held) {
  const ExprRef &lhs = s->lhs;
  if (facts.reset) {
    out.push_back(assign(adjoints.lvalue(lhs), constant(0, lhs->type)));
    return;
  }
  if (!facts.active)
    return;
  AdjointBuilder builder(adjoints, facts.variedBefore, std::move(fail));
  builder.setHeld(std::move(held));
  ExprRef dLhs = adjoints.lvalue(lhs);
  ExprRef stored = storedValue(s);
  // Where the derivative may be infinite, an adjoint of exactly zero (the
  // value did not influence the output on this run) propagates nothing.
  bool guard = hasSingularDerivative(stored, facts.variedBefore);
  auto propagate = [&](const ExprRef &e, const ExprRef &seed) {
    if (!guard) {
      builder.propagate(e, seed, out);
      return;
    }
    std::vector<StmtRef> code;
    builder.propagate(e, seed, code);
    ExprRef base = seed->kind == ExprKind::Unary ? seed->operands[0] : seed;
    out.push_back(ifStmt(binary(BinaryOp::Ne, base, constant(0, seed->type)), block(code)));
  };
  // y += e with e reading y: e's operands include y, whose adjoint changes
  // while e's adjoint is being added; read d_y once, before.
  bool selfReading = mentions(s->value, lhs->var);
  auto seedOf = [&]() -> ExprRef {
    if (!selfReading)
      return dLhs;
    Var *t = adjoints.temp("d_" + lhs->var->name + "_in", lhs->type);
    out.push_back(decl(t, dLhs));
    return varRef(t);
  };
  switch (s->assignOp) {
  case AssignOp::Add:
    propagate(s->value, seedOf());
    return;
  case AssignOp::Sub:
    propagate(s->value, neg(seedOf()));
    return;
  case AssignOp::Set:
    if (!selfReading) {
      // y = e, e without y: read d_y, then clear it.
      propagate(s->value, dLhs);
      out.push_back(assign(dLhs, constant(0, lhs->type)));
      return;
    }
    break;
  default:
    break;
  }
  // y = f(y, ...): keep d_y, clear it, then propagate (into d_y too).
  Var *t = adjoints.temp("d_" + lhs->var->name + "_in", lhs->type);
  out.push_back(decl(t, dLhs));
  out.push_back(assign(dLhs, constant(0, lhs->type)));
  propagate(stored, varRef(t));
}

} // namespace cgp
