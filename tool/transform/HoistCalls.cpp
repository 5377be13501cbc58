//===- HoistCalls.cpp - calls of helpers become statements ----------------===//
//
// materialize(e) returns statements that compute the calls of `e` into
// temporaries, and an expression without calls that uses them. Operands are
// evaluated left to right.
//
//===----------------------------------------------------------------------===//
#include "transform/HoistCalls.h"

#include <algorithm>
#include <set>

namespace cgp {
namespace {

bool hasCall(const ExprRef &e) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &n) {
    if (n->kind == ExprKind::Call)
      found = true;
  });
  return found;
}

class CallHoister {
public:
  explicit CallHoister(Module &m) : m_(m) {}

  StmtRef stmt(const StmtRef &s) {
    if (!s)
      return s;
    if (s->pos.line)
      at_ = s->pos;
    switch (s->kind) {
    case StmtKind::Block: {
      std::vector<StmtRef> out;
      for (const StmtRef &c : s->stmts)
        out.push_back(stmt(c));
      StmtRef b = block(out);
      b->pos = s->pos;
      return b;
    }
    case StmtKind::Decl:
    case StmtKind::Assign:
    case StmtKind::Eval: {
      bool lhsCalls = s->lhs && hasCall(s->lhs);
      if (!lhsCalls && !(s->value && hasCall(s->value)))
        return s;
      std::vector<StmtRef> pre;
      auto copy = std::make_shared<StmtNode>(*s);
      if (lhsCalls)
        copy->lhs = materialize(s->lhs, pre);
      // A call that is the whole right-hand side of `=` stays there.
      bool plain = s->kind != StmtKind::Assign || s->assignOp == AssignOp::Set;
      if (s->value && s->value->kind == ExprKind::Call && plain)
        copy->value = materializeArgs(s->value, pre);
      else if (s->value)
        copy->value = materialize(s->value, pre);
      pre.push_back(copy);
      return block(pre);
    }
    case StmtKind::If: {
      std::vector<StmtRef> pre;
      ExprRef cond = materialize(s->value, pre);
      StmtRef out = ifStmt(cond, stmt(s->body), s->elseBody ? stmt(s->elseBody) : nullptr);
      out->pos = s->pos;
      pre.push_back(out);
      return block(pre);
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile:
      return loop(s);
    default:
      return s;
    }
  }

private:
  Var *temp(const std::string &name, const ScalarType &t) {
    Var v;
    v.name = name;
    v.elem = t;
    v.origin = Var::Temp;
    v.pos = at_; // the statement it is hoisted out of
    return m_.newVar(v);
  }

  StmtRef loop(const StmtRef &s) {
    StmtRef body = stmt(s->body);
    if (s->pos.line)
      at_ = s->pos;
    bool condCalls = s->value && hasCall(s->value);
    bool stepCalls = s->step && (hasCall(s->step->value) || (s->step->lhs && hasCall(s->step->lhs)));
    if (!condCalls && !stepCalls) {
      auto copy = std::make_shared<StmtNode>(*s);
      copy->body = body;
      return copy;
    }
    // Compute the condition into a flag before the loop and again at the
    // end of every iteration.
    std::vector<StmtRef> first, again;
    ExprRef cond = materialize(s->value, first);
    Var *flag = temp("loop_cond", ScalarType::boolType());
    first.push_back(decl(flag, cond));
    ExprRef cond2 = materialize(s->value, again);
    again.push_back(assign(varRef(flag), cond2));

    std::vector<StmtRef> out;
    if (s->kind == StmtKind::For && s->init)
      out.push_back(stmt(s->init));
    std::vector<StmtRef> bodyStmts{body};
    if (s->kind == StmtKind::For && s->step)
      bodyStmts.push_back(stmt(s->step));
    StmtRef result;
    if (s->kind == StmtKind::DoWhile) {
      // do { body; flag = cond; } while (flag);
      out.push_back(decl(flag));
      bodyStmts.insert(bodyStmts.end(), again.begin(), again.end());
      result = doWhile(block(bodyStmts), varRef(flag));
    } else {
      // flag = cond; while (flag) { body; step; flag = cond; }
      out.insert(out.end(), first.begin(), first.end());
      bodyStmts.insert(bodyStmts.end(), again.begin(), again.end());
      result = whileStmt(varRef(flag), block(bodyStmts));
    }
    result->pos = s->pos;
    result->label = s->label;
    out.push_back(result);
    return block(out);
  }

  /// The call `c` with its arguments materialized.
  ExprRef materializeArgs(const ExprRef &c, std::vector<StmtRef> &pre) {
    auto copy = std::make_shared<ExprNode>(*c);
    for (ExprRef &op : copy->operands)
      op = materialize(op, pre);
    // A value argument that reads memory the call may write goes into a
    // temporary first: the reverse sweep passes the arguments again, after
    // the call has changed that memory (`h(y, y[0] * 2)`).
    std::set<const Var *> written;
    for (size_t i = 0; i < copy->operands.size(); ++i)
      if (copy->operands[i]->kind == ExprKind::Address && !c->callee->params[i]->isConst)
        written.insert(copy->operands[i]->var);
    for (ExprRef &op : copy->operands) {
      if (op->kind == ExprKind::Address)
        continue;
      bool readsWritten = false;
      forEachExpr(op, [&](const ExprRef &x) {
        readsWritten |= x->kind == ExprKind::Index && written.count(x->var);
      });
      if (!readsWritten)
        continue;
      Var *t = temp(c->callee->name + "_arg", op->type);
      pre.push_back(decl(t, op));
      op = varRef(t);
    }
    return copy;
  }

  ExprRef materialize(const ExprRef &e, std::vector<StmtRef> &pre) {
    if (!e || !hasCall(e))
      return e;
    if (e->kind == ExprKind::Call) {
      ExprRef c = materializeArgs(e, pre);
      // `__shfl_down_sync_ret` would be a name reserved to the implementation.
      const std::string &name = e->callee->name;
      Var *t = temp(name.substr(std::min(name.find_first_not_of('_'), name.size())) + "_ret",
                    e->type);
      t->spelling = name + "(...)";
      pre.push_back(decl(t, c));
      return varRef(t);
    }
    bool lazyRight = e->kind == ExprKind::Binary &&
                     (e->binaryOp == BinaryOp::LAnd || e->binaryOp == BinaryOp::LOr) &&
                     hasCall(e->operands[1]);
    if (lazyRight) {
      // t = a; if (t) t = b;   (|| : if (!t))
      Var *t = temp("cond", ScalarType::boolType());
      pre.push_back(decl(t, materialize(e->operands[0], pre)));
      std::vector<StmtRef> inner;
      ExprRef b = materialize(e->operands[1], inner);
      inner.push_back(assign(varRef(t), b));
      ExprRef test = e->binaryOp == BinaryOp::LAnd ? varRef(t) : unary(UnaryOp::Not, varRef(t));
      pre.push_back(ifStmt(test, block(inner)));
      return varRef(t);
    }
    if (e->kind == ExprKind::Select && (hasCall(e->operands[1]) || hasCall(e->operands[2]))) {
      ExprRef c = materialize(e->operands[0], pre);
      Var *t = temp("choice", e->type);
      pre.push_back(decl(t));
      std::vector<StmtRef> a, b;
      ExprRef va = materialize(e->operands[1], a);
      a.push_back(assign(varRef(t), va));
      ExprRef vb = materialize(e->operands[2], b);
      b.push_back(assign(varRef(t), vb));
      pre.push_back(ifStmt(c, block(a), block(b)));
      return varRef(t);
    }
    auto copy = std::make_shared<ExprNode>(*e);
    for (ExprRef &op : copy->operands)
      op = materialize(op, pre);
    return copy;
  }

  Module &m_;
  SourcePos at_; // the statement being hoisted from
};

} // namespace

void hoistCalls(Function &f, Module &module) { f.body = CallHoister(module).stmt(f.body); }

} // namespace cgp
