//===- ReservedTape.cpp - a loop that tapes the same every trip reserves it -===//
//
// See ReservedTape.h. The forward loop is checked before anything changes:
// what each of its statements pushes (bytesOf), and that nothing else in it
// or in its reverse touches the tape. Then its pushes and the reverse's pops
// are marked (the printer spells them pushReserved and popReserved), and the
// two runtime calls go before the loops.
//
//===----------------------------------------------------------------------===//
#include "transform/ReservedTape.h"

#include "planner/CostModel.h"

#include <algorithm>

namespace cgp {
namespace {

/// Whether `e` may touch the tape or the runtime in a way that a count of
/// pushes does not see: a pop, a helper's sweep, a runtime object or call.
bool touchesRuntime(const ExprRef &e) {
  bool touches = false;
  forEachExpr(e, [&](const ExprRef &x) {
    touches |= x->kind == ExprKind::TapePop || x->kind == ExprKind::Member ||
               callsGeneratedCode(*x);
  });
  return touches;
}

/// Removes `target` from the statement lists in `s` (blocks, arms, bodies).
void erase(const StmtRef &s, const StmtNode *target) {
  if (!s)
    return;
  auto &list = s->stmts;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const StmtRef &c) { return c.get() == target; }),
             list.end());
  forEachChild(s, [&](const StmtRef &c) { erase(c, target); });
  for (SwitchCase &c : s->cases)
    c.body.erase(std::remove_if(c.body.begin(), c.body.end(),
                                [&](const StmtRef &b) { return b.get() == target; }),
                 c.body.end());
}

/// `e` with every tape pop in it made a reserved one.
ExprRef reservedPops(const ExprRef &e) {
  if (!e)
    return e;
  std::vector<ExprRef> ops;
  bool changed = false;
  for (const ExprRef &o : e->operands) {
    ops.push_back(reservedPops(o));
    changed |= ops.back() != o;
  }
  if (e->kind != ExprKind::TapePop && !changed)
    return e;
  auto copy = std::make_shared<ExprNode>(*e);
  copy->operands = std::move(ops);
  if (e->kind == ExprKind::TapePop)
    copy->reservedTape = true;
  return copy;
}

ExprRef times(const ExprRef &a, const ExprRef &b) {
  if (a->kind == ExprKind::IntLit && b->kind == ExprKind::IntLit)
    return intLit(a->intValue * b->intValue, ScalarType::int64Type());
  return binary(BinaryOp::Mul, a, b);
}

void insertBefore(std::vector<StmtRef> &list, const StmtRef &at, const StmtRef &s) {
  auto where = std::find(list.begin(), list.end(), at);
  list.insert(where, s);
}

} // namespace

bool TapeReservations::bytesOf(const StmtRef &s, const std::set<const Var *> &changing,
                               Bytes &out) const {
  if (!s)
    return true;
  for (const ExprRef &e : ownExprs(s))
    if (s->kind != StmtKind::Eval || !isNestedReserve(s))
      if (touchesRuntime(e))
        return false;
  // Code that must push nothing: loops that did not reserve, switches.
  auto pushesNothing = [&](const StmtRef &n) {
    Bytes inner;
    bool ok = true;
    forEachChild(n, [&](const StmtRef &c) { ok = ok && bytesOf(c, changing, inner); });
    return ok && inner.constant == 0 && inner.nested.empty();
  };
  switch (s->kind) {
  case StmtKind::Block:
    for (const StmtRef &c : s->stmts)
      if (!bytesOf(c, changing, out))
        return false;
    return true;
  case StmtKind::Push: {
    const ExprRef &v = s->value;
    if (v->kind == ExprKind::VarRef && v->var && v->var->isArray())
      return false; // a whole array: pushed by a checked copy
    out.constant += static_cast<int64_t>(scalarBytes(v->type));
    return true;
  }
  case StmtKind::If: {
    Bytes yes, no;
    if (!bytesOf(s->body, changing, yes) || !bytesOf(s->elseBody, changing, no))
      return false;
    if (!yes.nested.empty() || !no.nested.empty() || yes.constant != no.constant)
      return false;
    out.constant += yes.constant;
    return true;
  }
  case StmtKind::For: {
    auto it = reserved_.find(s.get());
    if (it == reserved_.end())
      return pushesNothing(s);
    std::vector<Var *> reads;
    collectVars(it->second.bytes, reads);
    for (Var *v : reads)
      if (changing.count(v))
        return false; // its trip count changes from one run to the next
    out.nested.push_back(it->second.bytes);
    out.loops.push_back(s.get());
    return true;
  }
  case StmtKind::While:
  case StmtKind::DoWhile:
  case StmtKind::Switch:
    return pushesNothing(s);
  case StmtKind::Decl:
  case StmtKind::Assign:
  case StmtKind::Eval:
  case StmtKind::Comment:
    return true;
  default: // break, continue, return: an iteration may push less; raw text
    return false;
  }
}

bool TapeReservations::isNestedReserve(const StmtRef &s) const {
  return std::any_of(reserved_.begin(), reserved_.end(),
                     [&](const auto &r) { return r.second.reserve == s; });
}

bool TapeReservations::isNestedExpose(const StmtRef &s) const {
  return std::any_of(reserved_.begin(), reserved_.end(),
                     [&](const auto &r) { return r.second.expose == s; });
}

void TapeReservations::reserve(const StmtRef &loop, const StmtRef &rloop, const ExprRef &trips,
                               const ExprRef &reverseTrips, std::vector<StmtRef> &fwd,
                               std::vector<StmtRef> &rev) {
  std::set<const Var *> changing;
  collectWrittenVars(loop, changing, /*opaqueCalls=*/true);
  Bytes per;
  if (!isPure(trips) || !bytesOf(loop->body, changing, per) ||
      (per.constant == 0 && per.nested.empty()))
    return;
  // The reverse pops what the forward pushed and nothing else touches the
  // tape there (a nested loop's exposeReserved goes away below).
  bool reverseClean = true;
  forEachStmt(rloop->body, [&](const StmtRef &n) {
    reverseClean &= n->kind != StmtKind::Push && n->kind != StmtKind::Raw;
    if (isNestedExpose(n))
      return;
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        reverseClean &= x->kind == ExprKind::TapePop || !touchesRuntime(x);
      });
  });
  if (!reverseClean)
    return;

  ScalarType i64 = ScalarType::int64Type();
  ExprRef perTrip = per.constant ? intLit(per.constant, i64) : nullptr;
  for (const ExprRef &b : per.nested)
    perTrip = perTrip ? binary(BinaryOp::Add, perTrip, b) : b;
  // Loops nested in this one give their reservation up to it.
  for (const StmtNode *inner : per.loops) {
    const Reserved &r = reserved_.at(inner);
    erase(loop->body, r.reserve.get());
    erase(rloop->body, r.expose.get());
    reserved_.erase(inner);
  }
  forEachStmt(loop->body, [](const StmtRef &n) {
    if (n->kind == StmtKind::Push)
      n->reservedTape = true;
  });
  forEachStmt(rloop->body, [](const StmtRef &n) {
    n->value = reservedPops(n->value);
    n->lhs = reservedPops(n->lhs);
  });
  Reserved r;
  r.bytes = times(trips, perTrip);
  r.reserve = eval(opaque("cgp_tape.reserve", ScalarType::voidType(), {r.bytes}));
  r.expose = eval(
      opaque("cgp_tape.exposeReserved", ScalarType::voidType(), {times(reverseTrips, perTrip)}));
  insertBefore(fwd, loop, r.reserve);
  insertBefore(rev, rloop, r.expose);
  reserved_[loop.get()] = r;
}

} // namespace cgp
