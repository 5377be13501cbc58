//===- TapeBound.cpp - the most and least one piece of forward code tapes -===//
//
// See TapeBound.h. Exits (`break`, `continue`, `return`) end a path early:
// after a statement that may exit, the least a block tapes stops growing.
//
//===----------------------------------------------------------------------===//
#include "transform/TapeBound.h"

#include "planner/CostModel.h"

#include <algorithm>
#include <map>
#include <set>

namespace cgp {
namespace {

/// Code that runs `a` and then `b`.
TapeBound then(TapeBound a, const TapeBound &b) {
  a.known = a.known && b.known;
  a.most += b.most;
  a.least += b.least;
  return a;
}

class Bounder {
public:
  TapeBound block(const std::vector<StmtRef> &stmts) {
    TapeBound sum;
    bool exited = false;
    for (const StmtRef &s : stmts) {
      TapeBound b = stmt(s);
      if (exited)
        b.least = 0;
      sum = then(sum, b);
      exited = exited || containsExit(s);
    }
    return sum;
  }

private:
  TapeBound stmt(const StmtRef &s) {
    TapeBound b;
    if (!s)
      return b;
    switch (s->kind) {
    case StmtKind::Block:
      return block(s->stmts);
    case StmtKind::Push:
      b.most = b.least = pushedBytes(s->value);
      return b;
    case StmtKind::If: {
      TapeBound yes = stmt(s->body), no = stmt(s->elseBody);
      b = calls(s->value);
      b.known = b.known && yes.known && no.known;
      b.most += std::max(yes.most, no.most);
      b.least += std::min(yes.least, no.least);
      return b;
    }
    case StmtKind::Switch: {
      // Fallthrough may run several cases: their sum bounds the most.
      b = calls(s->value);
      for (const SwitchCase &c : s->cases) {
        TapeBound arm = block(c.body);
        b.known = b.known && arm.known;
        b.most += arm.most;
      }
      return b;
    }
    case StmtKind::For: {
      TapeBound body = stmt(s->body);
      TapeBound init = stmt(s->init), step = stmt(s->step), cond = calls(s->value);
      b.known = body.known && init.known && step.known && cond.known;
      // A loop whose trips tape nothing tapes what its init does, however
      // many trips it makes (a dot product over a run-time length).
      if (b.known && body.most + step.most + cond.most == 0)
        return init;
      if (s->tripBound < 0 || !b.known) {
        b.known = false;
        return b;
      }
      // The init once; the condition, the body and the step per trip (the
      // condition once more).
      double trips = static_cast<double>(s->tripBound);
      b.most = init.most + (trips + 1) * cond.most + trips * (body.most + step.most);
      b.least = init.least + cond.least +
                (containsExit(s->body) ? 0 : trips * (body.least + step.least + cond.least));
      return b;
    }
    case StmtKind::While:
    case StmtKind::DoWhile:
      b.known = false;
      return b;
    case StmtKind::Decl:
      return s->value ? calls(s->value) : b;
    case StmtKind::Assign:
      return then(calls(s->lhs), calls(s->value));
    case StmtKind::Eval:
    case StmtKind::Return:
      return s->value ? calls(s->value) : b;
    default:
      return b;
    }
  }

  /// What the helpers an expression calls tape, by their forward code.
  TapeBound calls(const ExprRef &e) {
    TapeBound b;
    if (!e)
      return b;
    if (e->kind == ExprKind::Opaque && !e->callee &&
        e->calleeName.find("_fwd") != std::string::npos) {
      b.known = false; // a helper's forward sweep, not known here
      return b;
    }
    if ((e->kind == ExprKind::Call || e->kind == ExprKind::Opaque) && e->callee) {
      const Function *f = e->callee;
      if (!f->body || inProgress_.count(f)) { // not generated yet, or recursive
        b.known = false;
        return b;
      }
      inProgress_.insert(f);
      b = stmt(f->body);
      inProgress_.erase(f);
    }
    for (const ExprRef &o : e->operands)
      b = then(b, calls(o));
    return b;
  }

  static double pushedBytes(const ExprRef &v) {
    if (v->kind == ExprKind::VarRef && v->var && v->var->isArray())
      return scalarBytes(v->var->elem) * static_cast<double>(v->var->elementCount());
    return scalarBytes(v->type);
  }

  /// `s` may end the path through the code around it (a `break` in a loop
  /// inside it counts too: the least is then smaller than it could be).
  /// Remembered per statement: blocks ask at every level of a nest.
  bool containsExit(const StmtRef &s) {
    if (!s)
      return false;
    auto known = exits_.find(s.get());
    if (known != exits_.end())
      return known->second;
    bool found = s->kind == StmtKind::Break || s->kind == StmtKind::Continue ||
                 s->kind == StmtKind::Return;
    for (const StmtRef &c : s->stmts)
      found = containsExit(c) || found;
    for (const StmtRef *c : {&s->init, &s->step, &s->body, &s->elseBody})
      found = containsExit(*c) || found;
    for (const SwitchCase &c : s->cases)
      for (const StmtRef &b : c.body)
        found = containsExit(b) || found;
    exits_[s.get()] = found;
    return found;
  }

  std::set<const Function *> inProgress_;
  std::map<const StmtNode *, bool> exits_;
};

} // namespace

TapeBound boundTape(const std::vector<StmtRef> &code) { return Bounder().block(code); }

std::string describeBound(const TapeBound &bound) {
  auto bytes = [](double b) { return std::to_string(static_cast<long long>(b)); };
  if (bound.exact())
    return "; an iteration tapes " + bytes(bound.most) + " bytes, so no probe measures it";
  if (!bound.varies())
    return "";
  return "; an iteration tapes " + bytes(bound.least) + " to " + bytes(bound.most) +
         " bytes, by the branches it takes: the plan assumes " + bytes(bound.most) +
         ", and no probe measures iteration 0";
}

} // namespace cgp
