//===- Liveness.cpp - which scalars a loop carries from one iteration -----===//
#include "analysis/Liveness.h"

namespace cgp {
namespace {

class Liveness {
public:
  std::map<const StmtNode *, VarSet> loopEntries;

  VarSet before(const StmtRef &s, VarSet live) {
    if (!s)
      return live;
    switch (s->kind) {
    case StmtKind::Block:
      for (auto it = s->stmts.rbegin(); it != s->stmts.rend(); ++it)
        live = before(*it, live);
      return live;
    case StmtKind::Assign: {
      if (s->lhs->kind == ExprKind::VarRef && s->assignOp == AssignOp::Set)
        live.erase(s->lhs->var);
      uses(s->value, live);
      if (s->lhs->kind == ExprKind::Index || s->assignOp != AssignOp::Set)
        uses(s->lhs, live);
      return live;
    }
    case StmtKind::Decl:
      live.erase(s->var);
      uses(s->value, live);
      return live;
    case StmtKind::If: {
      VarSet a = before(s->body, live), b = before(s->elseBody, live);
      a.insert(b.begin(), b.end());
      uses(s->value, a);
      return a;
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: {
      // At the end of an iteration: after the loop, or the next iteration.
      VarSet tail = live, entry;
      while (true) {
        VarSet atCond = tail;
        uses(s->value, atCond);
        entry = before(s->body, before(s->step, atCond));
        VarSet next = live;
        uses(s->value, next);
        next.insert(entry.begin(), entry.end());
        if (next == tail)
          break;
        tail = next;
      }
      loopEntries[s.get()] = entry;
      VarSet out = live;
      uses(s->value, out);
      if (s->kind == StmtKind::DoWhile)
        out = entry;
      else
        out.insert(entry.begin(), entry.end());
      return before(s->init, out);
    }
    default:
      for (const ExprRef &e : ownExprs(s))
        uses(e, live);
      return live;
    }
  }

private:
  static void uses(const ExprRef &e, VarSet &live) {
    forEachExpr(e, [&](const ExprRef &x) {
      if (x->var)
        live.insert(x->var);
    });
  }
};

} // namespace

std::map<const StmtNode *, VarSet> liveAtLoopEntries(const Function &f, const VarSet &liveAtEnd) {
  Liveness l;
  l.before(f.body, liveAtEnd);
  return l.loopEntries;
}

} // namespace cgp
