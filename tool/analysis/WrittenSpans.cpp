//===- WrittenSpans.cpp - the elements a loop overwrites in place ---------===//
//
// See WrittenSpans.h. The loop's body is walked once, keeping the ranges
// of the loops around the statement being visited; an assignment of the
// buffer splits its index polynomial into a part in values the loop does
// not change and one term per index of a loop around it.
//
//===----------------------------------------------------------------------===//
#include "analysis/WrittenSpans.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace cgp {
namespace {

class SpanFinder {
public:
  SpanFinder(const StmtRef &loop, const Var *buffer, Defs before)
      : loop_(loop), buffer_(buffer), defs_(std::move(before)), integers_(loop) {}

  WrittenSpan find() {
    visit(loop_->body, /*unsure=*/nullptr);
    visit(loop_->step, "in the loop's step"); // a counted loop's writes its index only
    if (span_.why.empty() && span_.writes.empty())
      span_.why = "through a call";
    if (!span_.why.empty())
      span_.writes.clear();
    return span_;
  }

private:
  /// A loop inside the analysed one, around the statement being visited.
  struct Around {
    const Var *index;
    Polynomial lowest, highest;
    bool byOne; // its index takes every value from lowest to highest
  };

  void fail(std::string why) {
    if (span_.why.empty())
      span_.why = std::move(why);
  }

  /// Whether the loop changes `v` (its index too: a span must hold over
  /// all its iterations).
  bool changes(const Var *v) const {
    return integers_.changes(v) || (loop_->counted.index && v == loop_->counted.index);
  }

  /// Whether `p` is made of values the loop does not change.
  bool fixed(const Polynomial &p) const {
    for (const auto &[m, c] : p)
      for (const Var *v : m)
        if (changes(v))
          return false;
    return true;
  }

  /// The range of a counted loop's index, from values the loop being
  /// analysed does not change, when it runs to its bound without leaving
  /// early (a loop whose index does not step by one still counts as a
  /// loop that runs, not as one whose every index is written).
  std::optional<Around> rangeOf(const StmtRef &s) const {
    if (s->kind != StmtKind::For || !s->counted.index || s->counted.step == 0 || !s->init ||
        s->init->kind != StmtKind::Decl || !s->init->value || !s->value ||
        s->value->kind != ExprKind::Binary || s->value->operands[0]->kind != ExprKind::VarRef ||
        s->value->operands[0]->var != s->counted.index)
      return std::nullopt;
    bool leaves = false;
    forEachStmt(s->body, [&](const StmtRef &n) {
      leaves |= n->kind == StmtKind::Break || n->kind == StmtKind::Continue ||
                n->kind == StmtKind::Return;
    });
    std::optional<Polynomial> start = polynomialOf(s->init->value, defs_);
    std::optional<Polynomial> bound = polynomialOf(s->value->operands[1], defs_);
    if (leaves || !start || !bound || !fixed(*start) || !fixed(*bound))
      return std::nullopt;
    const BinaryOp op = s->value->binaryOp;
    const bool up = s->counted.step > 0;
    Polynomial edge = *bound; // the last index inside the bound
    if (up && op == BinaryOp::Lt)
      addTo(edge, {}, -1);
    else if (!up && op == BinaryOp::Gt)
      addTo(edge, {}, 1);
    else if (!(up && op == BinaryOp::Le) && !(!up && op == BinaryOp::Ge))
      return std::nullopt;
    Around range{s->counted.index, up ? *start : edge, up ? edge : *start,
                 s->counted.step == 1 || s->counted.step == -1};
    return range;
  }

  void write(const ExprRef &lhs, const char *unsure) {
    if (unsure) {
      fail(std::string(unsure) + ", so the elements it writes are not known at the loop's entry");
      return;
    }
    if (lhs->kind != ExprKind::Index || lhs->operands.size() != 1) {
      fail("at an index of more than one dimension");
      return;
    }
    std::optional<Polynomial> p = polynomialOf(lhs->operands[0], defs_);
    if (!p) {
      fail("at an index that is not a sum of products of integers");
      return;
    }
    SpanWrite w;
    std::map<const Var *, Polynomial, VarLess> coefficients;
    for (const auto &[m, c] : *p) {
      const Var *inner = nullptr;
      Monomial rest;
      for (const Var *v : m) {
        auto range = std::find_if(around_.begin(), around_.end(),
                                  [&](const Around &a) { return a.index == v; });
        if (range == around_.end()) {
          if (changes(v)) {
            span_.movesWithLoop |= v == loop_->counted.index;
            fail(v == loop_->counted.index
                     ? "at an index that moves with the loop's"
                     : "at an index computed from values the loop changes");
            return;
          }
          rest.push_back(v);
        } else if (inner || !range->byOne) {
          fail("at an index that is not a sum of loop indices that step by one");
          return;
        } else {
          inner = v;
        }
      }
      if (inner)
        addTo(coefficients[inner], rest, c);
      else
        addTo(w.base, m, c);
    }
    for (const Around &a : around_) {
      auto c = coefficients.find(a.index);
      w.loops.push_back({a.lowest, a.highest, c != coefficients.end() ? c->second : Polynomial()});
    }
    span_.writes.push_back(std::move(w));
  }

  /// `unsure`: null where the statement runs at every iteration for every
  /// value of the indices of the loops around it (inside the analysed
  /// loop), else why it may not.
  void visit(const StmtRef &s, const char *unsure) {
    if (!s || !span_.why.empty())
      return;
    if (s->kind == StmtKind::Assign && lvalueVar(s->lhs) == buffer_) {
      write(s->lhs, unsure);
      return;
    }
    constexpr const char *kLoop =
        "in a loop that may leave early or whose range changes from step to step";
    switch (s->kind) {
    case StmtKind::Block:
      for (const StmtRef &c : s->stmts) {
        visit(c, unsure);
        if (s == loop_->body)
          integers_.define(c, defs_);
      }
      return;
    case StmtKind::For: {
      std::optional<Around> range = rangeOf(s);
      for (const StmtRef *c : {&s->init, &s->step})
        visit(*c, unsure ? unsure : "in a loop's init or step");
      if (range)
        around_.push_back(*range);
      visit(s->body, unsure ? unsure : range ? nullptr : kLoop);
      if (range)
        around_.pop_back();
      return;
    }
    case StmtKind::While:
    case StmtKind::DoWhile:
      visit(s->body, unsure ? unsure : kLoop);
      return;
    default:
      break;
    }
    const char *inside = unsure ? unsure : "under a condition";
    forEachChild(s, [&](const StmtRef &c) { visit(c, inside); });
  }

  const StmtRef &loop_;
  const Var *buffer_;
  Defs defs_;
  LoopIntegers integers_;
  std::vector<Around> around_;
  WrittenSpan span_;
};

} // namespace

WrittenSpan analyzeWrittenSpan(const Function &f, const StmtRef &loop, const Var *buffer) {
  return SpanFinder(loop, buffer, definedBefore(f, loop)).find();
}

} // namespace cgp
