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
  if (step->lhs->kind != ExprKind::VarRef || step->lhs->var != index ||
      step->value->kind != ExprKind::IntLit)
    return;
  int64_t by = step->value->intValue;
  if (step->assignOp == AssignOp::Sub)
    by = -by;
  else if (step->assignOp != AssignOp::Add)
    return;
  if (by == 0 || assignsTo(loop->body, index))
    return;
  loop->counted = CountedLoop{index, by};
}

} // namespace

void markCountedLoops(Function &f) {
  forEachStmt(f.body, [](const StmtRef &s) {
    if (s->kind == StmtKind::For)
      mark(s);
  });
}

} // namespace cgp
