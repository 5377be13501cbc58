//===- EarlyPushes.cpp - tape pushes move up to where their value is ready ===//
//
// See EarlyPushes.h. A push may pass a statement when, in the whole of that
// statement:
//   - nothing touches the tape or runs code we cannot see: no push, no pop,
//     no helper's forward sweep (it pushes), no runtime object, no raw text,
//     no profile hook; a call of the user's own code (`thread_num()`) may be
//     passed when the push reads neither memory nor globals and the call is
//     given no pointer (so that it cannot change what the push reads);
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
  bool globals = false;
};

PushReads readsOf(const StmtRef &push) {
  PushReads r;
  std::vector<Var *> vars;
  collectVars(push->value, vars);
  r.vars.insert(vars.begin(), vars.end());
  forEachExpr(push->value, [&](const ExprRef &x) {
    r.memory |= x->kind == ExprKind::Index || (x->var && x->var->isMemory());
    r.globals |= x->var && x->var->origin == Var::Global;
  });
  return r;
}

/// True if `e` may change what a push reading `reads` reads, or touch the tape.
bool opaqueExpr(const ExprRef &e, const PushReads &reads) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    if (x->kind == ExprKind::TapePop || x->kind == ExprKind::Member)
      found = true;
    else if (x->kind == ExprKind::Call || x->kind == ExprKind::Opaque) {
      bool givenPointer = false;
      for (const ExprRef &arg : x->operands)
        givenPointer |= arg->kind == ExprKind::Address || (arg->var && arg->var->isPointer());
      // A runtime constant (threadIdx.x) is no call; a call of the user's
      // own code (not cgp-ad's: callsGeneratedCode) is passed under the
      // conditions at the top.
      bool runtimeConstant = x->kind == ExprKind::Opaque && x->calleeName.empty();
      if (!runtimeConstant &&
          (callsGeneratedCode(*x) || givenPointer || reads.memory || reads.globals))
        found = true;
    }
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
    case StmtKind::Eval: // a call: passable by what it calls (below)
      break;
    default: // Push, Raw, Switch, Break, Continue, Return
      ok = false;
      break;
    }
    for (const ExprRef &e : ownExprs(n))
      if (opaqueExpr(e, reads))
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
