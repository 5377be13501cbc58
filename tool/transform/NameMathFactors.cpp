//===- NameMathFactors.cpp - a math call in a product gets a variable -----===//
//
// See NameMathFactors.h. Each block's statements are rewritten in place: a
// declaration or assignment whose value holds a named factor is preceded by
// the declarations of its temporaries, innermost call first, in the same
// block (not a nested one, so that transform/Sweeps.cpp's held math values
// still see the chain of assignments around it).
//
//===----------------------------------------------------------------------===//
#include "transform/NameMathFactors.h"

#include "ir/MathTable.h"

namespace cgp {
namespace {

/// The functions worth naming: a library call each, whose derivative reads
/// other functions of the argument, not the call's own value.
bool derivativeReadsOtherValue(MathFn fn) {
  const MathFunction &f = mathFunction(fn);
  return f.isCostly() && !f.derivativeReadsValue;
}

bool isProduct(const ExprRef &e) {
  return e->kind == ExprKind::Binary &&
         (e->binaryOp == BinaryOp::Mul || e->binaryOp == BinaryOp::Div);
}

class FactorNamer {
public:
  explicit FactorNamer(Module &module) : module_(module) {}

  /// `e` with its named factors read from temporaries declared in `pre`.
  ExprRef rewrite(const ExprRef &e, std::vector<StmtRef> &pre) {
    if (!e || e->operands.empty())
      return e;
    if (ordersOperands(*e)) // only the first operand always runs
      return withOperand(e, 0, rewrite(e->operands[0], pre));
    ExprRef out = e;
    for (size_t i = 0; i < e->operands.size(); ++i) {
      ExprRef op = rewrite(e->operands[i], pre);
      if (isProduct(e) && op->kind == ExprKind::Math && derivativeReadsOtherValue(op->mathFn) &&
          op->type.isFloating())
        op = named(op, pre);
      out = withOperand(out, i, op);
    }
    return out;
  }

private:
  ExprRef named(const ExprRef &call, std::vector<StmtRef> &pre) {
    Var v;
    v.name = mathValueName(call->mathFn);
    v.spelling = mathFunction(call->mathFn).name + "(...)";
    v.elem = call->type;
    v.origin = Var::Temp;
    v.isConst = true;
    v.namedFactor = true;
    Var *t = module_.newVar(v);
    pre.push_back(decl(t, call));
    return varRef(t);
  }

  static ExprRef withOperand(const ExprRef &e, size_t i, const ExprRef &op) {
    if (e->operands[i] == op)
      return e;
    auto copy = std::make_shared<ExprNode>(*e);
    copy->operands[i] = op;
    return copy;
  }

  Module &module_;
};

} // namespace

void nameMathFactors(Function &f, Module &module) {
  FactorNamer namer(module);
  forEachStmt(f.body, [&](const StmtRef &b) {
    if (b->kind != StmtKind::Block)
      return;
    std::vector<StmtRef> out;
    for (const StmtRef &s : b->stmts) {
      bool valued = (s->kind == StmtKind::Assign || s->kind == StmtKind::Decl) && s->value;
      if (valued) {
        std::vector<StmtRef> pre;
        ExprRef value = namer.rewrite(s->value, pre);
        if (!pre.empty()) {
          for (StmtRef &d : pre)
            d->pos = s->pos;
          out.insert(out.end(), pre.begin(), pre.end());
          auto copy = std::make_shared<StmtNode>(*s); // s may be shared
          copy->value = value;
          out.push_back(copy);
          continue;
        }
      }
      out.push_back(s);
    }
    b->stmts = std::move(out);
  });
}

} // namespace cgp
