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

/// 0, also converted.
bool zeroLiteral(const ExprRef &e) {
  ExprRef v = withoutCasts(e);
  return v && v->kind == ExprKind::IntLit && v->intValue == 0;
}

/// `size - 1`, also converted.
bool lastIndex(const ExprRef &index, const Var *size) {
  ExprRef i = withoutCasts(index);
  if (!i || i->kind != ExprKind::Binary || i->binaryOp != BinaryOp::Sub)
    return false;
  ExprRef last = withoutCasts(i->operands[0]), one = withoutCasts(i->operands[1]);
  return last->kind == ExprKind::VarRef && last->var == size && one->kind == ExprKind::IntLit &&
         one->intValue == 1;
}

/// `v[size - 1]`: the last element.
bool lastElement(const ExprRef &lhs, const Var *size) {
  return lhs->kind == ExprKind::Index && lhs->operands.size() == 1 &&
         lastIndex(lhs->operands[0], size);
}

/// The count of a vector of structs that `value` sizes a column from:
/// `count`, or `count * width` for a member of `width` numbers (an array).
/// Null for other values.
const Var *countOf(const ExprRef &value, int64_t &width) {
  ExprRef v = withoutCasts(value);
  width = 1;
  if (v && v->kind == ExprKind::Binary && v->binaryOp == BinaryOp::Mul) {
    ExprRef w = withoutCasts(v->operands[1]);
    if (!w || w->kind != ExprKind::IntLit || w->intValue <= 0)
      return nullptr;
    width = w->intValue;
    v = withoutCasts(v->operands[0]);
  }
  return v && v->kind == ExprKind::VarRef ? v->var : nullptr;
}

/// Where `lhs` writes in the last element of a column of `width` numbers
/// per element: j for `v[(count - 1) * width + j]` (`v[count - 1]` when the
/// width is 1), 0 <= j < width; -1 elsewhere.
int64_t lastRow(const ExprRef &lhs, const Var *count, int64_t width) {
  if (width == 1)
    return lastElement(lhs, count) ? 0 : -1;
  if (lhs->kind != ExprKind::Index || lhs->operands.size() != 1)
    return -1;
  ExprRef i = withoutCasts(lhs->operands[0]);
  int64_t at = 0;
  if (i && i->kind == ExprKind::Binary && i->binaryOp == BinaryOp::Add) {
    ExprRef j = withoutCasts(i->operands[1]);
    if (!j || j->kind != ExprKind::IntLit || j->intValue < 0 || j->intValue >= width)
      return -1;
    at = j->intValue;
    i = withoutCasts(i->operands[0]);
  }
  if (!i || i->kind != ExprKind::Binary || i->binaryOp != BinaryOp::Mul)
    return -1;
  ExprRef w = withoutCasts(i->operands[1]);
  if (!w || w->kind != ExprKind::IntLit || w->intValue != width)
    return -1;
  return lastIndex(i->operands[0], count) ? at : -1;
}

/// The count a column's size follows, and the column's width.
struct Follow {
  const Var *count = nullptr;
  int64_t width = 1;
};

class AppendFinder {
public:
  /// `count`: the integer the size follows (`size = count` after `++count`,
  /// a vector of structs' column), or null.
  AppendFinder(const Var *vector, Follow follow)
      : vector_(vector), size_(vector->sizeVar), count_(follow.count), width_(follow.width) {}

  bool holds(const StmtRef &loop) {
    visit(loop->body, false);
    visit(loop->step, false);
    return holds_;
  }

private:
  /// Visits `s`, run after the size grew (`grown`) or not; returns whether
  /// it has grown once `s` has run. With a count, the count grows and the
  /// size takes its value: `grown` says the count grew, and the size
  /// followed it since (`followed_`).
  bool visit(const StmtRef &s, bool grown) {
    if (!s || !holds_)
      return grown;
    switch (s->kind) {
    case StmtKind::Block:
      for (const StmtRef &c : s->stmts)
        grown = visit(c, grown);
      return grown;
    case StmtKind::Assign:
      if (count_ && s->lhs->var == count_) {
        holds_ = s->assignOp == AssignOp::Add && positiveConstant(s->value);
        followed_ = false;
        return true;
      }
      if (s->lhs->var == size_) {
        if (count_) {
          int64_t width = 0;
          holds_ = grown && s->assignOp == AssignOp::Set && countOf(s->value, width) == count_ &&
                   width == width_;
          followed_ = true;
          return grown;
        }
        holds_ = s->assignOp == AssignOp::Add && positiveConstant(s->value);
        return true;
      }
      if (s->lhs->var == vector_)
        holds_ = grown && (count_ ? followed_ && lastRow(s->lhs, count_, width_) >= 0
                                  : lastElement(s->lhs, size_));
      return grown;
    case StmtKind::Decl:
      holds_ = s->var != size_ && s->var != vector_ && s->var != count_;
      return grown;
    default: // growth inside a branch or a loop may not happen
      forEachChild(s, [&](const StmtRef &c) { visit(c, grown); });
      return grown;
    }
  }

  const Var *vector_;
  const Var *size_;
  const Var *count_;
  int64_t width_;
  bool holds_ = true;
  bool followed_ = false;
};

/// The integer a std::vector local's size follows in `loop` (`size = c`
/// or `size = c * width`, the column of a vector of structs taking its
/// count), when in the whole of `f` the size is only ever set from that
/// integer (with that width) or to 0, and the integer is unsigned and, each
/// time it is set otherwise than grown, is followed by the size in the same
/// list of statements before any loop: the size is then at most the count
/// times the width wherever a loop starts. No count otherwise.
Follow followedCount(const Function &f, const StmtRef &loop, const Var *size) {
  Follow follow;
  forEachStmt(loop, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Assign && n->lhs->var == size && n->assignOp == AssignOp::Set) {
      int64_t width = 0;
      if (const Var *c = countOf(n->value, width)) {
        follow.count = c;
        follow.width = width;
      }
    }
  });
  const Var *count = follow.count;
  if (!count || count->elem.kind != ScalarType::Integer ||
      count->elem.spelling.find("unsigned") == std::string::npos || !count->isScalar())
    return Follow{};
  bool follows = true;
  auto setsSizeFromCount = [&](const StmtRef &n) {
    if (n->kind != StmtKind::Assign || n->lhs->var != size || n->assignOp != AssignOp::Set)
      return false;
    int64_t width = 0;
    return countOf(n->value, width) == count && width == follow.width;
  };
  auto checkList = [&](const std::vector<StmtRef> &list) {
    for (size_t i = 0; i < list.size(); ++i) {
      const StmtRef &n = list[i];
      if (!n || n->kind != StmtKind::Assign || n->lhs->var != count ||
          (n->assignOp == AssignOp::Add && positiveConstant(n->value)))
        continue;
      // The count set (cleared, resized): the size must follow before a
      // loop (set to 0 with it, where the count is set to 0).
      const bool zeroed = n->assignOp == AssignOp::Set && zeroLiteral(n->value);
      bool followed = false;
      for (size_t j = i + 1; j < list.size() && !followed; ++j) {
        const StmtRef &m = list[j];
        if (!m || m->kind == StmtKind::For || m->kind == StmtKind::While ||
            m->kind == StmtKind::DoWhile)
          break;
        followed = setsSizeFromCount(m) ||
                   (zeroed && m->kind == StmtKind::Assign && m->lhs->var == size &&
                    m->assignOp == AssignOp::Set && zeroLiteral(m->value));
      }
      follows &= followed;
    }
  };
  forEachStmt(f.body, [&](const StmtRef &n) {
    checkList(n->stmts);
    for (const SwitchCase &c : n->cases)
      checkList(c.body);
    if (n->kind == StmtKind::Assign && n->lhs->var == size)
      follows &= setsSizeFromCount(n) || (n->assignOp == AssignOp::Set && zeroLiteral(n->value));
    if (n->kind == StmtKind::Decl && n->var == size)
      follows &= !n->value || zeroLiteral(n->value);
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        follows &= !(x->kind == ExprKind::Address && (x->var == size || x->var == count));
      });
  });
  return follows ? follow : Follow{};
}

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
  /// `follow`: the count the size follows (a column of a vector of
  /// structs), if any: then it is the count that grows, and the numbers
  /// written are those of the last element, `v[(count - 1) * width + j]`.
  FreshFinder(const Var *vector, Follow follow)
      : vector_(vector), size_(vector->sizeVar), count_(follow.count), width_(follow.width) {}

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
    const Var *grows = count_ ? count_ : size_;
    if (s->kind == StmtKind::Assign && count_ && s->lhs->var == size_) {
      // The column takes the count: it follows it, whatever it grew by.
      int64_t width = 0;
      if (s->assignOp == AssignOp::Set && countOf(s->value, width) == count_ && width == width_)
        return freshLast;
      shrinks_ = s->assignOp != AssignOp::Set || nested || written_;
      return false;
    }
    if (s->kind == StmtKind::Assign && s->lhs->var == grows) {
      if (s->assignOp == AssignOp::Add && positiveConstant(s->value)) {
        rowWritten_.clear();
        return true;
      }
      // Set where it is declared: before any element is written.
      shrinks_ = s->assignOp != AssignOp::Set || nested || written_;
      return false;
    }
    if (s->kind == StmtKind::Assign && s->lhs->var == vector_) {
      written_ = true;
      if (count_) {
        // Each number of the new element is fresh until written once.
        const int64_t at = lastRow(s->lhs, count_, width_);
        const bool first = at >= 0 && rowWritten_.insert(at).second;
        if (freshLast && first && s->assignOp == AssignOp::Set)
          fresh_.push_back(s.get());
        return freshLast && first && width_ > 1;
      }
      if (freshLast && s->assignOp == AssignOp::Set && lastElement(s->lhs, size_))
        fresh_.push_back(s.get());
      return false;
    }
    if (s->kind == StmtKind::Decl && (s->var == size_ || s->var == vector_ || s->var == count_)) {
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
  const Var *count_;
  int64_t width_;
  std::set<int64_t> rowWritten_; // numbers of the last element written since it grew
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
    return zeroLiteral(v) || (v->kind == ExprKind::VarRef && atMost_.count(v->var));
  }

  /// `s` shrinks the size whatever it was (pop_back, clear).
  bool shrinks(const StmtRef &s) const {
    if (s->kind != StmtKind::Assign || s->lhs->var != size_)
      return false;
    ExprRef v = withoutCasts(s->value);
    return (s->assignOp == AssignOp::Sub && positiveConstant(v)) ||
           (s->assignOp == AssignOp::Set && zeroLiteral(v));
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
  for (const Var *v : vectors) {
    for (const StmtNode *s : FreshFinder(v, followedCount(f, f.body, v->sizeVar)).find(f.body))
      fresh.insert(s);
  }
  return fresh;
}

bool clearedFirst(const StmtRef &loop, const Var *vector) {
  return vector->sizeVar && ClearFinder(vector).holds(loop->body);
}

bool onlyAppends(const StmtRef &loop, const Var *vector, const Function *f) {
  if (!vector->sizeVar)
    return false;
  if (AppendFinder(vector, Follow{}).holds(loop))
    return true;
  const Follow follow = f ? followedCount(*f, loop, vector->sizeVar) : Follow{};
  return follow.count && AppendFinder(vector, follow).holds(loop);
}

} // namespace cgp
