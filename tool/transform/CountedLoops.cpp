//===- CountedLoops.cpp - find for loops with a computable index ----------===//
#include "transform/CountedLoops.h"

namespace cgp {
namespace {

bool assignsTo(const StmtRef &body, const Var *v) {
  bool found = false;
  forEachStmt(body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->var == v)
      found = true;
    if (s->kind == StmtKind::Decl && s->var == v)
      found = true;
  });
  return found;
}

void mark(const StmtRef &loop) {
  const StmtRef &init = loop->init;
  const StmtRef &step = loop->step;
  if (!init || !step || step->kind != StmtKind::Assign)
    return;
  Var *index = nullptr;
  if (init->kind == StmtKind::Decl && init->value)
    index = init->var;
  else if (init->kind == StmtKind::Assign && init->assignOp == AssignOp::Set &&
           init->lhs->kind == ExprKind::VarRef)
    index = init->lhs->var;
  if (!index || index->elem.kind != ScalarType::Integer)
    return;
  // By a literal, or a constant whose value is known (`t += TILE`).
  std::optional<int64_t> known = knownInteger(step->value);
  if (step->lhs->kind != ExprKind::VarRef || step->lhs->var != index || !known)
    return;
  int64_t by = *known;
  if (step->assignOp == AssignOp::Sub)
    by = -by;
  else if (step->assignOp != AssignOp::Add)
    return;
  if (by == 0 || assignsTo(loop->body, index))
    return;
  loop->counted = CountedLoop{index, by};
}

/// Integer arithmetic on constants and scalars (and integers read from
/// foreign constants), nothing else.
bool plainInteger(const ExprRef &e) {
  bool plain = true;
  forEachExpr(e, [&](const ExprRef &x) {
    switch (x->kind) {
    case ExprKind::IntLit:
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Cast:
    case ExprKind::Foreign: // a constant read as written (`v.size()`)
      break;
    case ExprKind::VarRef:
      plain &= x->var->origin != Var::Global || x->var->isConst;
      break;
    default:
      plain = false;
    }
    // (the foreign constant itself is an operand of its reads)
    plain &= x->type.kind == ScalarType::Integer || x->type.kind == ScalarType::Foreign;
  });
  return plain;
}

} // namespace

ExprRef tripCountExpr(const StmtRef &loop, const ExprRef &first) {
  ScalarType i64 = ScalarType::int64Type();
  int64_t by = loop->counted.step;
  const ExprRef &cond = loop->value;
  auto wide = [&](const ExprRef &e) {
    return e->kind == ExprKind::IntLit ? intLit(e->intValue, i64) : cast(i64, e);
  };
  ExprRef f = wide(first), b = wide(cond->operands[1]);
  ExprRef zero = intLit(0, i64), one = intLit(1, i64);
  // Readable for the common steps: no `+ 0`, `/ 1` or `- 0`.
  auto isInt = [](const ExprRef &e, int64_t v) {
    return e->kind == ExprKind::IntLit && e->intValue == v;
  };
  auto sub = [&](ExprRef x, ExprRef y) { return isInt(y, 0) ? x : binary(BinaryOp::Sub, x, y); };
  auto div = [&](ExprRef x, ExprRef y) { return isInt(y, 1) ? x : binary(BinaryOp::Div, x, y); };
  auto add = [&](ExprRef x, ExprRef y) { return isInt(y, 0) ? x : binary(BinaryOp::Add, x, y); };
  switch (cond->binaryOp) {
  case BinaryOp::Lt:
    return select(binary(BinaryOp::Gt, b, f), div(add(sub(b, f), intLit(by - 1, i64)), intLit(by, i64)),
                  zero);
  case BinaryOp::Le:
    return select(binary(BinaryOp::Ge, b, f), add(div(sub(b, f), intLit(by, i64)), one), zero);
  case BinaryOp::Gt:
    return select(binary(BinaryOp::Gt, f, b),
                  div(add(sub(f, b), intLit(-by - 1, i64)), intLit(-by, i64)), zero);
  default: // Ge
    return select(binary(BinaryOp::Ge, f, b), add(div(sub(f, b), intLit(-by, i64)), one), zero);
  }
}

bool boundsComputableAgain(const StmtRef &loop, std::vector<Var *> &operands) {
  ExprRef bound = countedBound(loop);
  if (!bound || !plainInteger(loop->init->value) || !plainInteger(bound))
    return false;
  bool leaves = false;
  forEachStmt(loop->body, [&](const StmtRef &n) {
    leaves |= n->kind == StmtKind::Break || n->kind == StmtKind::Return;
  });
  if (leaves)
    return false;
  std::set<const Var *> written;
  collectWrittenVars(loop->body, written, true);
  std::vector<Var *> vars;
  collectVars(loop->init->value, vars);
  collectVars(bound, vars);
  for (Var *v : vars)
    if (written.count(v))
      return false;
  operands = vars;
  return true;
}

void markCountedLoops(Function &f) {
  forEachStmt(f.body, [](const StmtRef &s) {
    if (s->kind == StmtKind::For)
      mark(s);
  });
}

} // namespace cgp
