//===- Planner.cpp - store or recompute, value by value -------------------===//
//
// Three steps: list the values that store-all would push (the values the
// reverse sweep needs), find which of them can be recomputed exactly, and
// choose among those by score within the recompute allowance.
//
//===----------------------------------------------------------------------===//
#include "planner/Planner.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace cgp {
namespace {

/// True if evaluating `e` again could differ or have effects: calls of
/// functions cgp-ad cannot see into, and of helpers that write memory.
bool hasEffects(const ExprRef &e, Summaries &summaries) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    if (x->kind == ExprKind::Opaque || x->kind == ExprKind::TapePop)
      found = true;
    if (x->kind == ExprKind::Call)
      for (bool writes : summaries.of(x->callee).writesParam)
        found |= writes;
  });
  return found;
}

/// Why `v`, assigned by `def` (`stmts[at]` or inside it) from `operands`,
/// cannot be computed again before the reverse of the last statement whose
/// reverse reads it, or an empty string: every such statement must come
/// after `stmts[at]`, in `stmts` (nested statements included), and nothing
/// in `operands` may change up to the last of them, whose index goes to
/// `last`.
std::string whyNotAtHand(const std::vector<StmtRef> &stmts, size_t at, const StmtNode *def,
                         Var *v, const std::vector<Var *> &operands,
                         const std::map<const StmtNode *, VarSet> &reads, size_t &last) {
  std::set<const StmtNode *> users;
  for (const auto &[stmt, vars] : reads)
    if (vars.count(v))
      users.insert(stmt);
  if (users.count(def))
    return "read by its own reverse code";
  size_t found = 0;
  bool any = false;
  for (size_t j = at + 1; j < stmts.size(); ++j)
    forEachStmt(stmts[j], [&](const StmtRef &n) {
      if (users.erase(n.get())) {
        found = j;
        any = true;
      }
    });
  if (!users.empty() || !any)
    return "read by the reverse sweep outside the block that assigns it";
  std::set<const Var *> written;
  for (size_t j = at + 1; j <= found; ++j)
    collectWrittenVars(stmts[j], written);
  for (Var *o : operands)
    if (written.count(o))
      return "'" + o->name + "', which it is computed from, changes before its last use";
  last = found;
  return "";
}

/// Why `definition` (statement `d` of `block`) cannot be recomputed, or
/// an empty string; on success sets `last` to the index of the last
/// statement of the block whose reverse reads the value.
std::string whyNotRecomputable(const StmtRef &block, size_t d,
                               const std::map<const StmtNode *, VarSet> &reads,
                               const std::map<const Var *, int> &assignments,
                               Summaries &summaries, size_t &last) {
  const StmtRef &def = block->stmts[d];
  Var *v = def->lhs->var;
  if (v->origin != Var::Local && v->origin != Var::Temp)
    return "a parameter";
  if (assignments.at(v) != 1)
    return "assigned more than once";
  if (hasEffects(def->value, summaries))
    return "computed by a call that writes memory or cannot be seen into";
  // Where the reverse sweep reads it: only after the assignment, in this
  // block; nothing the expression reads may change before the last reader.
  return whyNotAtHand(block->stmts, d, def.get(), v, recomputeOperands(def->value, nullptr),
                      reads, last);
}

/// Where each statement sits: its block and its place there.
struct Place {
  StmtRef block;
  size_t index = 0;
};

/// Why the array elements assigned by `def`, the whole body of the counted
/// loop `fill` (`a[i] = e;`, i its index), cannot be filled again in the
/// reverse sweep instead of taping the old elements, or an empty string.
/// They can when `a` is a 1-D local array that the loop fills whole, written
/// nowhere else (no other assignment, initialiser or call), `e` has no
/// effects, and every reverse
/// code that reads `a` comes after the loop in the block that holds it,
/// with nothing the loop reads changing in between: then running the loop
/// again there gives the same bits. On success sets `last` to the index,
/// in that block, of the last statement whose reverse reads `a`.
std::string whyNotRefillable(const Function &f, const StmtRef &def, const StmtRef &fill,
                             const Place &where,
                             const std::map<const StmtNode *, VarSet> &reads,
                             Summaries &summaries, size_t &last) {
  const ExprRef &lhs = def->lhs;
  Var *a = lhs->var;
  Var *index = fill->counted.index;
  if (def->assignOp != AssignOp::Set || !index || lhs->operands.size() != 1 ||
      lhs->operands[0]->kind != ExprKind::VarRef || lhs->operands[0]->var != index ||
      !a->isArray() || a->origin != Var::Local)
    return "an array element";
  // Every element, one per iteration: no element keeps a value from an
  // earlier fill that the reverse sweep would then not get back.
  std::optional<int64_t> trips = knownTripCount(fill);
  if (a->dims.size() != 1 || !trips || *trips != a->elementCount() ||
      (fill->counted.step != 1 && fill->counted.step != -1))
    return "an array element, filled in part";
  if (hasEffects(def->value, summaries) || mentions(def->value, a))
    return "an array element, computed by a call or from its own array";
  bool elsewhere = false;
  forEachStmt(f.body, [&](const StmtRef &n) {
    if (n.get() != def.get() && n->kind == StmtKind::Assign && n->lhs->var == a)
      elsewhere = true;
    if (n->kind == StmtKind::Decl && n->var == a && n->value)
      elsewhere = true;
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Address && x->var == a)
          elsewhere = true; // a helper may write it
      });
  });
  if (elsewhere)
    return "an array element of an array written elsewhere too";
  std::string why = whyNotAtHand(where.block->stmts, where.index, def.get(), a,
                                 recomputeOperands(def->value, fill), reads, last);
  return why.empty() ? why : "an array element; " + why;
}

/// Where a candidate sits: the block whose statements read it, the place
/// there of its assignment (of the fill loop, for a refill), the last
/// statement there whose reverse reads it, and what recomputing it reads.
struct CandidateSite {
  const StmtNode *block = nullptr;
  size_t at = 0, last = 0;
  std::vector<Var *> operands;
};

bool readsValueOf(const CandidateSite &site, const Var *v) {
  return std::find(site.operands.begin(), site.operands.end(), v) != site.operands.end();
}

/// The place in its block before whose reverse each recomputed value (and
/// `extra`, if given) is recomputed: its last reader's, or later, where a
/// recomputed value that reads it is recomputed. Values of a block come in
/// program order, so those read come before those that read them.
std::vector<size_t> chainPoints(const FunctionPlan &plan, const std::vector<CandidateSite> &sites,
                                const ValueDecision *extra) {
  std::vector<size_t> point(plan.values.size());
  for (size_t x = plan.values.size(); x-- > 0;) {
    point[x] = sites[x].last;
    for (size_t y = x + 1; y < plan.values.size(); ++y) {
      bool recomputed = plan.values[y].recompute || &plan.values[y] == extra;
      if (recomputed && sites[y].block == sites[x].block &&
          readsValueOf(sites[y], plan.values[x].var))
        point[x] = std::max(point[x], point[y]);
    }
  }
  return point;
}

/// Why `v` cannot be recomputed along with the values already recomputed,
/// or an empty string. Values that read one another must be scalars of one
/// block; recomputing one later, for a value that reads it, must not take
/// it past a change of what it is computed from.
std::string whyNotChained(const FunctionPlan &plan, const ValueDecision &v,
                          const std::vector<CandidateSite> &sites) {
  size_t vi = &v - plan.values.data();
  for (size_t w = 0; w < plan.values.size(); ++w) {
    if (!plan.values[w].recompute)
      continue;
    bool related = readsValueOf(sites[vi], plan.values[w].var) ||
                   readsValueOf(sites[w], v.var);
    if (related && (v.refill || plan.values[w].refill || sites[w].block != sites[vi].block))
      return "its expression and another recomputed value depend on each other";
  }
  std::vector<size_t> point = chainPoints(plan, sites, &v);
  for (size_t x = 0; x < plan.values.size(); ++x) {
    if ((!plan.values[x].recompute && x != vi) || point[x] == sites[x].last)
      continue;
    const StmtNode *block = sites[x].block;
    std::set<const Var *> written;
    for (size_t j = sites[x].last + 1; j <= point[x]; ++j)
      collectWrittenVars(block->stmts[j], written);
    for (Var *o : sites[x].operands)
      if (written.count(o))
        return "recomputing '" + plan.values[x].var->name + "' for the values computed from it "
               "would read '" + o->name + "' after it changes";
  }
  return "";
}

/// Moves each recomputed value's recomputation to its place in the chain.
void chainRecomputePoints(FunctionPlan &plan, const std::vector<CandidateSite> &sites) {
  std::vector<size_t> point = chainPoints(plan, sites, nullptr);
  for (size_t x = 0; x < plan.values.size(); ++x)
    if (plan.values[x].recompute)
      plan.values[x].recomputeBefore = sites[x].block->stmts[point[x]].get();
}

/// The replay allowance (`left`, operation units) goes to the kernel's
/// outermost loops, the one whose stored values take the most tape first.
/// Each gets the share of its iterations that `left` pays for running
/// again, at most all of them, and what it takes is gone for the next. At
/// run time the loop tapes only its last iterations and runs the others
/// again from snapshots (planLoopReversal), when that holds less than its
/// whole tape.
void shareReplays(FunctionPlan &plan,
                  const std::map<const StmtNode *, std::set<const StmtNode *>> &outermost,
                  double left) {
  std::vector<LoopDecision *> order;
  for (LoopDecision &loop : plan.loops) {
    auto inside = outermost.find(loop.loop);
    if (inside == outermost.end())
      continue;
    for (const ValueDecision &v : plan.values)
      if (!v.recompute && inside->second.count(v.definition))
        loop.tapeBytes += v.bytes;
    if (loop.tapeBytes > 0 && loop.cost > 0)
      order.push_back(&loop);
  }
  std::stable_sort(order.begin(), order.end(), [](const LoopDecision *a, const LoopDecision *b) {
    return a->tapeBytes > b->tapeBytes;
  });
  for (LoopDecision *loop : order) {
    if (left <= 0)
      break;
    // In thousandths, as the generated code spells it.
    loop->replayShare = std::floor(std::min(1.0, left / loop->cost) * 1000) / 1000;
    left -= loop->replayShare * loop->cost;
  }
}

} // namespace

std::vector<Var *> recomputeOperands(const ExprRef &value, const StmtRef &refill) {
  std::vector<Var *> operands;
  collectVars(value, operands);
  if (refill) {
    collectVars(refill->value, operands); // the loop's condition
    operands.erase(std::remove(operands.begin(), operands.end(), refill->counted.index),
                   operands.end());
  }
  return operands;
}

FunctionPlan planValues(const Function &f, const std::map<const StmtNode *, VarSet> &reads,
                        const TbrResult &storeAll, const PlanOptions &options,
                        Summaries &summaries) {
  FunctionPlan plan;
  plan.function = f.name;
  plan.storeAll = options.storeAll;
  const KernelStats *profile = profileOf(options.profile.get(), f);
  Frequencies freq = estimateFrequencies(f, profile);
  plan.primalCost = freq.primalCost;
  plan.profiled = profile != nullptr;

  plan.isKernel = f.isKernel;
  plan.pos = f.pos;
  // The statements of each outermost loop (loops come outer first).
  std::map<const StmtNode *, std::set<const StmtNode *>> outermost;
  std::set<const StmtNode *> nested;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind != StmtKind::For && s->kind != StmtKind::While && s->kind != StmtKind::DoWhile)
      return;
    LoopDecision loop;
    if (!nested.count(s.get())) {
      std::set<const StmtNode *> &inside = outermost[s.get()];
      forEachStmt(s, [&](const StmtRef &n) {
        inside.insert(n.get());
        nested.insert(n.get());
        for (const ExprRef &e : ownExprs(n))
          loop.cost += freq.of(n.get()) * exprCost(e);
      });
    }
    loop.loop = s.get();
    loop.pos = s->pos;
    loop.label = s->counted.index ? "loop over " + s->counted.index->name
                                  : (s->label.empty() ? "loop" : s->label);
    if (s->counted.index && s->counted.index->origin == Var::Temp)
      loop.label = "zero fill"; // made by cgp-ad for an array initialiser
    if (std::optional<int64_t> trips = knownTripCount(s))
      loop.trips = *trips;
    loop.runs = freq.of(s.get());
    Frequencies::TripEstimate estimate;
    if (auto found = freq.trips.find(s.get()); found != freq.trips.end())
      estimate = found->second;
    loop.estimatedTrips = estimate.trips;
    loop.tripSource = estimate.source;
    loop.strategy = "tape every iteration";
    loop.reason = options.storeAll ? "strategy store-all" : "";
    plan.loops.push_back(loop);
  });

  std::map<const Var *, int> assignments;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::VarRef)
      ++assignments[s->lhs->var];
  });

  // Where each statement sits, and the loop each block is the body of.
  std::map<const StmtNode *, Place> places;
  std::map<const StmtNode *, StmtRef> loopOfBody;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Block)
      for (size_t i = 0; i < s->stmts.size(); ++i)
        places[s->stmts[i].get()] = Place{s, i};
    if (s->kind == StmtKind::For && s->body)
      loopOfBody[s->body.get()] = s;
  });

  // Every value store-all pushes, in program order, and where it sits.
  std::vector<CandidateSite> sites;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Block) {
      for (size_t d = 0; d < s->stmts.size(); ++d) {
        const StmtRef &def = s->stmts[d];
        if (def->kind != StmtKind::Assign || !storeAll.pushes.count(def.get()))
          continue;
        ValueDecision v;
        v.var = def->lhs->var;
        v.definition = def.get();
        v.definitionPos = def->pos.line ? def->pos : v.var->pos;
        v.value = def->value;
        v.runs = freq.of(def.get());
        v.bytes = scalarBytes(v.var->elem) * v.runs;
        plan.storeAllBytes += v.bytes;
        size_t last = 0;
        // The block whose statements read it: the assignment's, or for an
        // array element the fill loop's, when the loop does nothing else
        // (it fills the array from values at hand).
        const StmtNode *readersIn = s.get();
        size_t at = d;
        StmtRef fill;
        if (def->lhs->kind == ExprKind::VarRef) {
          v.reason = whyNotRecomputable(s, d, reads, assignments, summaries, last);
        } else {
          v.reason = "an array element";
          auto loop = loopOfBody.find(s.get());
          auto place = loop != loopOfBody.end() ? places.find(loop->second.get()) : places.end();
          if (s->stmts.size() == 1 && place != places.end() && loop->second->counted.index) {
            fill = loop->second;
            readersIn = place->second.block.get();
            at = place->second.index;
            v.reason = whyNotRefillable(f, def, fill, place->second, reads, summaries, last);
          }
        }
        v.candidate = v.reason.empty();
        if (v.candidate) {
          v.refill = fill;
          v.cost = exprCost(def->value) * v.runs;
          v.recomputeBefore = readersIn->stmts[last].get();
          for (const auto &[stmt, vars] : reads)
            if (vars.count(v.var))
              v.G += freq.of(stmt);
        }
        sites.push_back({readersIn, at, last, recomputeOperands(def->value, fill)});
        plan.values.push_back(v);
      }
    }
  });

  // Scores, on shares of the whole, so that the weights compare like with like.
  double totalG = 0;
  for (const ValueDecision &v : plan.values)
    totalG += v.G;
  for (ValueDecision &v : plan.values) {
    if (!v.candidate)
      continue;
    v.G = totalG > 0 ? v.G / totalG : 0;
    v.T = plan.primalCost > 0 ? v.cost / plan.primalCost : 0;
    v.M = plan.storeAllBytes > 0 ? v.bytes / plan.storeAllBytes : 0;
    v.score = options.alpha * v.G + options.beta * v.T - options.gamma * v.M;
  }

  plan.plannedBytes = plan.storeAllBytes;
  if (options.storeAll) {
    for (ValueDecision &v : plan.values)
      v.reason = "stored: strategy store-all";
    return plan;
  }

  // Recompute the lowest scores first, within the allowance. A value may be
  // computed from other recomputed values of its block (a chain: `t2 = t +
  // 0.5 * h` with t recomputed too): each is then recomputed no later than
  // the values that read it, which moves it before a later statement's
  // reverse and must not take it past a change of what it reads. Array
  // refills and values in different blocks never chain.
  std::vector<ValueDecision *> order;
  for (ValueDecision &v : plan.values)
    if (v.candidate)
      order.push_back(&v);
  std::stable_sort(order.begin(), order.end(),
                   [](const ValueDecision *a, const ValueDecision *b) { return a->score < b->score; });
  double allowance = options.recomputeAllowance * plan.primalCost;
  for (ValueDecision *v : order) {
    std::string why = whyNotChained(plan, *v, sites);
    if (!why.empty()) {
      v->reason = "stored: " + why;
      continue;
    }
    if (plan.recomputeCost + v->cost > allowance) {
      v->reason = "stored: recomputing it would exceed the recompute allowance";
      continue;
    }
    v->recompute = true;
    v->reason = "recomputed: cheaper to evaluate again than to keep";
    plan.recomputeCost += v->cost;
    plan.plannedBytes -= v->bytes;
    chainRecomputePoints(plan, sites);
  }
  for (ValueDecision &v : plan.values)
    if (!v.candidate)
      v.reason = "stored: " + v.reason;
  if (f.isKernel && options.memoryBudget < 0)
    shareReplays(plan, outermost, options.replayAllowance * plan.primalCost);
  return plan;
}

} // namespace cgp
