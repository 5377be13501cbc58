//===- Appends.cpp - std::vector locals a loop only appends to ------------===//
//
// See Appends.h. For appends, the body is walked in order, block by block,
// carrying whether the size has grown since the iteration's entry on every
// path to the statement: growth inside an if or a loop counts only within
// it. For a vector emptied first, the walk stops at the first statement
// that mentions it. For a size that never grows, the walk follows which
// integers are at most the size at the entry. For fresh element writes,
// the whole function is walked once per vector local.
//
//===----------------------------------------------------------------------===//
#include "analysis/Appends.h"

#include <iterator>
#include <set>

namespace cgp {
namespace {

bool positiveConstant(const ExprRef &e) {
  ExprRef c = withoutCasts(e);
  return c && c->kind == ExprKind::IntLit && c->intValue > 0;
}

/// `v[size - 1]`: the last element.
bool lastElement(const ExprRef &lhs, const Var *size) {
  if (lhs->kind != ExprKind::Index || lhs->operands.size() != 1)
    return false;
  ExprRef i = withoutCasts(lhs->operands[0]);
  if (!i || i->kind != ExprKind::Binary || i->binaryOp != BinaryOp::Sub)
    return false;
  ExprRef last = withoutCasts(i->operands[0]), one = withoutCasts(i->operands[1]);
  return last->kind == ExprKind::VarRef && last->var == size && one->kind == ExprKind::IntLit &&
         one->intValue == 1;
}

class AppendFinder {
public:
  explicit AppendFinder(const Var *vector) : vector_(vector), size_(vector->sizeVar) {}

  bool holds(const StmtRef &loop) {
    visit(loop->body, false);
    visit(loop->step, false);
    return holds_;
  }

private:
  /// Visits `s`, run after the size grew (`grown`) or not; returns whether
  /// it has grown once `s` has run.
  bool visit(const StmtRef &s, bool grown) {
    if (!s || !holds_)
      return grown;
    switch (s->kind) {
    case StmtKind::Block:
      for (const StmtRef &c : s->stmts)
        grown = visit(c, grown);
      return grown;
    case StmtKind::Assign:
      if (s->lhs->var == size_) {
        holds_ = s->assignOp == AssignOp::Add && positiveConstant(s->value);
        return true;
      }
      if (s->lhs->var == vector_)
        holds_ = grown && lastElement(s->lhs, size_);
      return grown;
    case StmtKind::Decl:
      holds_ = s->var != size_ && s->var != vector_;
      return grown;
    default: // growth inside a branch or a loop may not happen
      forEachChild(s, [&](const StmtRef &c) { visit(c, grown); });
      return grown;
    }
  }

  const Var *vector_;
  const Var *size_;
  bool holds_ = true;
};

/// Whether `s` (with what it holds) mentions `v`.
bool stmtMentions(const StmtRef &s, const Var *v) {
  bool found = false;
  forEachStmt(s, [&](const StmtRef &n) {
    found |= n->var == v;
    for (const ExprRef &e : ownExprs(n))
      found |= mentions(e, v);
  });
  return found;
}

/// Whether `s` (with what it holds) assigns `v` or passes its address.
bool writes(const StmtRef &s, const Var *v) {
  bool found = false;
  forEachStmt(s, [&](const StmtRef &n) {
    found |= n->var == v || (n->kind == StmtKind::Assign && n->lhs->var == v);
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) { found |= x->kind == ExprKind::Address && x->var == v; });
  });
  return found;
}

/// Walks the body's statements in order (into plain blocks only) until the
/// first that mentions the vector or its size.
class ClearFinder {
public:
  explicit ClearFinder(const Var *vector) : vector_(vector), size_(vector->sizeVar) {}

  bool holds(const StmtRef &body) { return visit(body) == Found::Cleared; }

private:
  enum class Found { Nothing, Cleared, Used };

  Found visit(const StmtRef &s) {
    if (!s)
      return Found::Nothing;
    if (s->kind == StmtKind::Block) {
      for (const StmtRef &c : s->stmts)
        if (Found f = visit(c); f != Found::Nothing)
          return f;
      return Found::Nothing;
    }
    const bool setsZero = s->kind == StmtKind::Assign && s->assignOp == AssignOp::Set &&
                          s->lhs->kind == ExprKind::VarRef && zero(s->value);
    if (setsZero && s->lhs->var == size_)
      return Found::Cleared;
    if (stmtMentions(s, vector_) || stmtMentions(s, size_))
      return Found::Used;
    for (auto at = zeroed_.begin(); at != zeroed_.end();)
      at = writes(s, *at) ? zeroed_.erase(at) : std::next(at);
    if (setsZero)
      zeroed_.insert(s->lhs->var);
    return Found::Nothing;
  }

  /// 0, or an integer set to 0 just before.
  bool zero(const ExprRef &e) const {
    return (e->kind == ExprKind::IntLit && e->intValue == 0) ||
           (e->kind == ExprKind::VarRef && zeroed_.count(e->var));
  }

  const Var *vector_;
  const Var *size_;
  std::set<const Var *> zeroed_;
};

/// Walks a whole function for one vector: where its last element is
/// written first after a growth, and whether its size ever shrinks.
class FreshFinder {
public:
  explicit FreshFinder(const Var *vector) : vector_(vector), size_(vector->sizeVar) {}

  /// The fresh writes, or none if the vector may shrink.
  std::vector<const StmtNode *> find(const StmtRef &body) {
    visit(body, false, false);
    return shrinks_ ? std::vector<const StmtNode *>{} : fresh_;
  }

private:
  /// Visits `s`, run where the last element is fresh (`freshLast`) or
  /// not, inside a loop or a branch (`nested`) or not; returns whether the
  /// last element is fresh once `s` has run.
  bool visit(const StmtRef &s, bool freshLast, bool nested) {
    if (!s || shrinks_)
      return false;
    if (s->kind == StmtKind::Block) {
      for (const StmtRef &c : s->stmts)
        freshLast = visit(c, freshLast, nested);
      return freshLast;
    }
    if (s->kind == StmtKind::Assign && s->lhs->var == size_) {
      if (s->assignOp == AssignOp::Add && positiveConstant(s->value))
        return true;
      // Set where it is declared: before any element is written.
      shrinks_ = s->assignOp != AssignOp::Set || nested || written_;
      return false;
    }
    if (s->kind == StmtKind::Assign && s->lhs->var == vector_) {
      written_ = true;
      if (freshLast && s->assignOp == AssignOp::Set && lastElement(s->lhs, size_))
        fresh_.push_back(s.get());
      return false;
    }
    if (s->kind == StmtKind::Decl && (s->var == size_ || s->var == vector_)) {
      shrinks_ = nested || written_;
      return false;
    }
    if (s->kind == StmtKind::Assign || s->kind == StmtKind::Decl || s->kind == StmtKind::Eval ||
        s->kind == StmtKind::Push) {
      if (isStorageUpkeep(s))
        return freshLast;
      written_ |= stmtMentions(s, vector_); // a call may write it
      return freshLast && !stmtMentions(s, vector_);
    }
    forEachChild(s, [&](const StmtRef &c) { visit(c, false, true); });
    written_ |= stmtMentions(s, vector_);
    return false;
  }

  const Var *vector_;
  const Var *size_;
  bool shrinks_ = false, written_ = false;
  std::vector<const StmtNode *> fresh_;
};

/// Follows, through one iteration, which integers are at most the size the
/// vector had at the iteration's entry.
class SizeBound {
public:
  explicit SizeBound(const Var *size) : size_(size) { atMost_.insert(size); }

  bool holds(const StmtRef &loop) {
    visit(loop->body);
    visit(loop->step);
    return atMost_.count(size_) > 0;
  }

private:
  /// `value` is at most the size at the entry.
  bool bounded(const ExprRef &value) const {
    ExprRef v = withoutCasts(value);
    return (v->kind == ExprKind::IntLit && v->intValue == 0) ||
           (v->kind == ExprKind::VarRef && atMost_.count(v->var));
  }

  /// `s` shrinks the size whatever it was (pop_back, clear).
  bool shrinks(const StmtRef &s) const {
    if (s->kind != StmtKind::Assign || s->lhs->var != size_)
      return false;
    ExprRef v = withoutCasts(s->value);
    return (s->assignOp == AssignOp::Sub && positiveConstant(v)) ||
           (s->assignOp == AssignOp::Set && v->kind == ExprKind::IntLit && v->intValue == 0);
  }

  void visit(const StmtRef &s) {
    if (!s)
      return;
    if (s->kind == StmtKind::Block) {
      for (const StmtRef &c : s->stmts)
        visit(c);
      return;
    }
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::VarRef) {
      const bool keeps = s->assignOp == AssignOp::Set
                             ? bounded(s->value)
                             : shrinks(s) && atMost_.count(size_) > 0;
      set(s->lhs->var, keeps);
      return;
    }
    if (s->kind == StmtKind::Decl) {
      set(s->var, s->value && bounded(s->value));
      return;
    }
    if (s->kind != StmtKind::If && s->kind != StmtKind::For && s->kind != StmtKind::While &&
        s->kind != StmtKind::DoWhile && s->kind != StmtKind::Switch)
      return;
    // Inside a branch or a loop: what it writes is no longer known, but for
    // the size, which stays bounded if all it does there is shrink.
    bool onlyShrinks = true;
    std::set<const Var *> written;
    forEachStmt(s, [&](const StmtRef &n) {
      if (n->kind == StmtKind::Assign && n->lhs->kind == ExprKind::VarRef) {
        written.insert(n->lhs->var);
        onlyShrinks &= n->lhs->var != size_ || shrinks(n);
      }
      if (n->kind == StmtKind::Decl)
        written.insert(n->var);
    });
    for (const Var *v : written)
      set(v, v == size_ && onlyShrinks && atMost_.count(size_));
  }

  void set(const Var *v, bool bounded) {
    if (bounded)
      atMost_.insert(v);
    else
      atMost_.erase(v);
  }

  const Var *size_;
  std::set<const Var *> atMost_;
};

} // namespace

bool sizeNeverGrows(const StmtRef &loop, const Var *vector) {
  return vector->sizeVar && SizeBound(vector->sizeVar).holds(loop);
}

std::set<const StmtNode *> freshElementWrites(const Function &f) {
  std::set<const Var *> vectors;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->var->ownsStorage && s->lhs->var->sizeVar &&
        s->lhs->var->origin == Var::Local)
      vectors.insert(s->lhs->var);
  });
  std::set<const StmtNode *> fresh;
  for (const Var *v : vectors)
    for (const StmtNode *s : FreshFinder(v).find(f.body))
      fresh.insert(s);
  return fresh;
}

bool clearedFirst(const StmtRef &loop, const Var *vector) {
  return vector->sizeVar && ClearFinder(vector).holds(loop->body);
}

bool onlyAppends(const StmtRef &loop, const Var *vector) {
  return vector->sizeVar && AppendFinder(vector).holds(loop);
}

} // namespace cgp
