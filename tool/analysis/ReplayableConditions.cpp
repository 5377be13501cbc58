//===- ReplayableConditions.cpp - branch conditions evaluated again --------===//
//
// See ReplayableConditions.h. One walk carries, down to each statement, the
// variables that what runs after it may write.
//
//===----------------------------------------------------------------------===//
#include "analysis/ReplayableConditions.h"

namespace cgp {
namespace {

using Writes = std::set<const Var *>;

Writes writesOf(const StmtRef &s) {
  Writes out;
  collectWrittenVars(s, out, /*opaqueCalls=*/true);
  return out;
}

class Finder {
public:
  explicit Finder(const Function &f) { writtenAnywhere_ = writesOf(f.body); }

  /// `later`: what may be written after `s` has run, by code outside it.
  void walk(const StmtRef &s, const Writes &later, std::set<const StmtNode *> &out) {
    if (!s)
      return;
    switch (s->kind) {
    case StmtKind::Block: { // last first, gathering what comes after
      Writes after = later;
      for (size_t k = s->stmts.size(); k-- > 0;) {
        walk(s->stmts[k], after, out);
        collectWrittenVars(s->stmts[k], after, /*opaqueCalls=*/true);
      }
      return;
    }
    case StmtKind::If: {
      Writes during = later, arms = writesOf(s->body), other = writesOf(s->elseBody);
      during.insert(arms.begin(), arms.end());
      during.insert(other.begin(), other.end());
      if (replayable(s->value, during))
        out.insert(s.get());
      walk(s->body, later, out);
      walk(s->elseBody, later, out);
      return;
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: {
      // The next iterations run after any statement of the body, but the
      // reverse loop gives a counted loop's index its forward values.
      Writes inLoop = later, body = writesOf(s->body), step = writesOf(s->step);
      inLoop.insert(body.begin(), body.end());
      inLoop.insert(step.begin(), step.end());
      if (s->kind == StmtKind::For && s->counted.index)
        inLoop.erase(s->counted.index);
      walk(s->body, inLoop, out);
      return;
    }
    case StmtKind::Switch:
      for (const SwitchCase &c : s->cases)
        for (const StmtRef &b : c.body)
          walk(b, later, out);
      return;
    default:
      return;
    }
  }

private:
  bool replayable(const ExprRef &cond, const Writes &changed) const {
    if (!cond || !isPure(cond))
      return false;
    bool ok = true;
    forEachExpr(cond, [&](const ExprRef &x) {
      if (x->kind == ExprKind::Address)
        ok = false;
      if (!x->var)
        return;
      if (x->kind == ExprKind::Index ? writtenAnywhere_.count(x->var) != 0
                                     : changed.count(x->var) != 0)
        ok = false;
    });
    return ok;
  }

  Writes writtenAnywhere_;
};

} // namespace

std::set<const StmtNode *> replayableConditions(const Function &f) {
  std::set<const StmtNode *> out;
  Finder(f).walk(f.body, {}, out);
  return out;
}

} // namespace cgp
