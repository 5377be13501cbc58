//===- EarlyPushes.cpp - tape pushes move up to where their value is ready ===//
//
// See EarlyPushes.h. A push may pass a statement when, in the whole of that
// statement:
//   - nothing touches the tape or runs code we cannot see: no push, no pop,
//     no call (a helper's forward sweep pushes), no runtime object, no raw
//     text, no profile hook;
//   - control stays inside (no break, continue or return), so that the push
//     happens exactly as often as before;
//   - nothing writes a variable the push reads (its scalar, or its element's
//     base and indices), and, when it pushes an element of memory, nothing
//     writes through a pointer (which might alias it).
//
//===----------------------------------------------------------------------===//
#include "transform/EarlyPushes.h"

#include <set>

namespace cgp {
namespace {

/// What a push reads: its variables, and whether it reads memory.
struct PushReads {
  std::set<const Var *> vars;
  bool memory = false;
};

PushReads readsOf(const StmtRef &push) {
  PushReads r;
  std::vector<Var *> vars;
  collectVars(push->value, vars);
  r.vars.insert(vars.begin(), vars.end());
  forEachExpr(push->value, [&](const ExprRef &x) {
    r.memory |= x->kind == ExprKind::Index || (x->var && x->var->isMemory());
  });
  return r;
}

bool opaqueExpr(const ExprRef &e) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    found |= x->kind == ExprKind::Call || x->kind == ExprKind::Opaque ||
             x->kind == ExprKind::TapePop || x->kind == ExprKind::Member;
  });
  return found;
}

/// True if a push reading `reads` may move from after `s` to before it.
bool passable(const StmtRef &s, const PushReads &reads) {
  bool ok = true;
  forEachStmt(s, [&](const StmtRef &n) {
    switch (n->kind) {
    case StmtKind::Block:
    case StmtKind::Comment:
    case StmtKind::If:
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile:
      break;
    case StmtKind::Assign:
      if (reads.vars.count(n->lhs->var) ||
          (reads.memory && n->lhs->kind == ExprKind::Index && n->lhs->var->isPointer()))
        ok = false;
      break;
    case StmtKind::Decl:
      if (reads.vars.count(n->var))
        ok = false;
      break;
    default: // Push, Eval, Raw, Switch, Break, Continue, Return
      ok = false;
      break;
    }
    for (const ExprRef &e : ownExprs(n))
      if (opaqueExpr(e))
        ok = false;
  });
  return ok;
}

bool isLiteral(const ExprRef &e) {
  return e->kind == ExprKind::IntLit || e->kind == ExprKind::FloatLit;
}

void hoistIn(const StmtRef &s);

void hoistList(std::vector<StmtRef> &stmts) {
  for (const StmtRef &s : stmts)
    hoistIn(s);
  for (size_t i = 0; i < stmts.size(); ++i) {
    if (!stmts[i] || stmts[i]->kind != StmtKind::Push || isLiteral(stmts[i]->value))
      continue; // a branch record stays at the end of its arm
    PushReads reads = readsOf(stmts[i]);
    size_t to = i;
    while (to > 0 && stmts[to - 1] && passable(stmts[to - 1], reads))
      --to;
    if (to == i)
      continue;
    StmtRef push = stmts[i];
    stmts.erase(stmts.begin() + static_cast<std::ptrdiff_t>(i));
    stmts.insert(stmts.begin() + static_cast<std::ptrdiff_t>(to), push);
  }
}

/// Hoists within every block nested in `s`.
void hoistIn(const StmtRef &s) {
  if (!s)
    return;
  hoistList(s->stmts);
  hoistIn(s->init);
  hoistIn(s->step);
  hoistIn(s->body);
  hoistIn(s->elseBody);
  for (SwitchCase &c : s->cases)
    hoistList(c.body);
}

} // namespace

void hoistPushes(std::vector<StmtRef> &stmts) { hoistList(stmts); }

} // namespace cgp
