//===- Derivatives.cpp - adjoint code of one statement --------------------===//
//
// The chain rule over an expression, written as the C++ the reverse sweep
// will run; math functions' own derivatives come from ir/MathTable.h. A
// seed used by two operands is first stored in a `const` temporary, so that
// the generated code never repeats a long expression.
//
//===----------------------------------------------------------------------===//
#include "transform/Derivatives.h"

#include "ir/MathTable.h"

#include <cassert>

namespace cgp {

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

/// Reverse mode's answers to a derivative rule: the call's value and the
/// functions it needs are read from the variables that hold them where a
/// statement runs (held math values), else evaluated again; temporaries go
/// to the code being built; a value that several arguments' derivatives
/// read is kept in a temporary only when several arguments are varied.
class AdjointBuilder::MathContext final : public DerivativeContext {
public:
  MathContext(AdjointBuilder &builder, const ExprRef &call, unsigned variedArgs)
      : DerivativeContext(call), builder_(builder), variedArgs_(variedArgs) {}

  /// Where temporaries go: the code of one piece of a piecewise derivative.
  void emitInto(std::vector<StmtRef> &out) {
    out_ = &out;
    shared_.clear();
  }

  ExprRef value() override { return call(call_->mathFn, call_->operands); }
  ExprRef call(MathFn fn, std::vector<ExprRef> args) override {
    ExprRef e = math(fn, type(), std::move(args));
    ExprRef holder = builder_.held_ ? builder_.held_(e) : nullptr;
    return holder ? holder : e;
  }
  ExprRef temporary(const ExprRef &e, const std::string &name) override {
    return builder_.stable(e, *out_, name);
  }
  ExprRef shared(const ExprRef &e, const std::string &name) override {
    if (variedArgs_ < 2)
      return e;
    auto it = shared_.find(name);
    if (it == shared_.end())
      it = shared_.emplace(name, builder_.stable(e, *out_, name)).first;
    return it->second;
  }

private:
  AdjointBuilder &builder_;
  unsigned variedArgs_;
  std::vector<StmtRef> *out_ = nullptr;
  std::map<std::string, ExprRef> shared_;
};

void AdjointBuilder::propagateMath(const ExprRef &e, const ExprRef &seed,
                                   std::vector<StmtRef> &out) {
  const MathFunction &f = mathFunction(e->mathFn);
  std::vector<bool> varied(e->operands.size());
  unsigned count = 0;
  for (size_t i = 0; i < varied.size(); ++i) {
    varied[i] = f.differentiable(i) && exprVaried(e->operands[i], varied_);
    count += varied[i];
  }
  // A seed that several arguments read is read once.
  ExprRef s = count > 1 ? stable(seed, out, "adj") : seed;
  MathContext context(*this, e, count);
  auto addPartials = [&](const std::vector<PartialRule> &rules, std::vector<StmtRef> &code) {
    context.emitInto(code);
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!varied[i] || !rules[i])
        continue;
      Partial p = rules[i](context);
      if (!p.isZero())
        propagate(e->operands[i], p.times(s), code);
    }
  };
  if (!f.condition) {
    addPartials(f.partials, out);
    return;
  }
  // Piecewise: only the piece the value came from receives the adjoint.
  std::vector<StmtRef> inside, outside;
  addPartials(f.partials, inside);
  addPartials(f.otherwise, outside);
  context.emitInto(out);
  out.push_back(ifStmt(f.condition(context), block(inside),
                       outside.empty() ? nullptr : block(outside)));
}

//===----------------------------------------------------------------------===//

/// True if the derivative of `e` can be infinite (or undefined) where `e`
/// is finite: sqrt, cbrt and log near 0, pow, division by a varied value...
/// A zero adjoint times such a derivative would give NaN instead of 0.
static bool hasSingularDerivative(const ExprRef &e, const VarSet &varied) {
  bool singular = false;
  forEachExpr(e, [&](const ExprRef &x) {
    if (x->kind == ExprKind::Math &&
        mathFunction(x->mathFn).singular != Singularity::None)
      singular |= exprVaried(x, varied);
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
