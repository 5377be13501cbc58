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
#include <optional>
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

/// True for `x = e;` with x a scalar.
bool isPlainAssignment(const StmtRef &s) {
  return s->kind == StmtKind::Assign && s->assignOp == AssignOp::Set &&
         s->lhs->kind == ExprKind::VarRef;
}

/// The last of `stmts[0 .. before)` that writes `v` (nested statements
/// included), if one does.
std::optional<size_t> lastWriteBefore(const std::vector<StmtRef> &stmts, size_t before,
                                      const Var *v) {
  std::set<const Var *> written;
  for (size_t j = before; j-- > 0;) {
    collectWrittenVars(stmts[j], written);
    if (written.count(v))
      return j;
  }
  return std::nullopt;
}

/// The first of `operands` that `stmts(after .. upTo]` write, or null.
Var *changedBetween(const std::vector<StmtRef> &stmts, size_t after, size_t upTo,
                    const std::vector<Var *> &operands) {
  std::set<const Var *> written;
  for (size_t j = after + 1; j <= upTo; ++j)
    collectWrittenVars(stmts[j], written);
  for (Var *o : operands)
    if (written.count(o))
      return o;
  return nullptr;
}

/// Why `v`, assigned by `def` (`stmts[at]` or inside it) from `operands`,
/// cannot be computed again before the reverse of the last statement whose
/// reverse reads it, or an empty string. Its readers are the statements of
/// `stmts[at+1 .. end]` (nested ones included) whose reverse reads `v`; with
/// `everywhere`, no statement elsewhere may read it. Nothing in `operands`
/// may change up to the last reader, whose index goes to `last`; the
/// readers go to `readers`.
std::string whyNotAtHand(const std::vector<StmtRef> &stmts, size_t at, size_t end,
                         bool everywhere, const StmtNode *def, Var *v,
                         const std::vector<Var *> &operands,
                         const std::map<const StmtNode *, VarSet> &reads, size_t &last,
                         std::vector<const StmtNode *> &readers) {
  std::set<const StmtNode *> users;
  for (const auto &[stmt, vars] : reads)
    if (vars.count(v))
      users.insert(stmt);
  if (users.count(def))
    return "read by its own reverse code";
  size_t found = 0;
  for (size_t j = at + 1; j <= end && j < stmts.size(); ++j)
    forEachStmt(stmts[j], [&](const StmtRef &n) {
      if (users.erase(n.get())) {
        found = j;
        readers.push_back(n.get());
      }
    });
  if ((everywhere && !users.empty()) || readers.empty())
    return "read by the reverse sweep outside the block that assigns it";
  if (Var *o = changedBetween(stmts, at, found, operands))
    return "'" + sourceName(*o) + "', which it is computed from, changes before its last use";
  last = found;
  return "";
}

/// Why the value that the assignment `block->stmts[d]` pushes cannot be
/// recomputed, or an empty string. Of a scalar assigned once, that is the
/// value it assigns (the one of the iteration before); of a scalar assigned
/// more than once, the one it overwrites, which a plain assignment earlier
/// in the block must have computed, and which only the statements up to
/// this one read. On success sets `at` to the index of the assignment that
/// computes it, `end` to the last index where it may be read, `last` to the
/// last one where it is, and `readers`.
std::string whyNotRecomputable(const StmtRef &block, size_t d,
                               const std::map<const StmtNode *, VarSet> &reads,
                               const std::map<const Var *, int> &assignments,
                               Summaries &summaries, size_t &at, size_t &end, size_t &last,
                               std::vector<const StmtNode *> &readers) {
  const std::vector<StmtRef> &stmts = block->stmts;
  Var *v = stmts[d]->lhs->var;
  if (v->origin != Var::Local && v->origin != Var::Temp)
    return "a parameter";
  at = d;
  end = stmts.size() - 1;
  bool once = assignments.at(v) == 1;
  if (!once) {
    // The value overwritten here: the last one written before, in this block.
    std::optional<size_t> earlier = lastWriteBefore(stmts, d, v);
    if (!earlier || !isPlainAssignment(stmts[*earlier]))
      return "assigned more than once";
    if (mentions(stmts[*earlier]->value, v))
      return "assigned more than once, from its own earlier value";
    at = *earlier;
    end = d;
  }
  const StmtRef &def = stmts[at];
  if (hasEffects(def->value, summaries))
    return "computed by a call that writes memory or cannot be seen into";
  // Where the reverse sweep reads it: only after the assignment, in this
  // block; nothing the expression reads may change before the last reader.
  return whyNotAtHand(stmts, at, end, once, def.get(), v, recomputeOperands(def->value, nullptr),
                      reads, last, readers);
}

/// Where each statement sits: its block and its place there.
struct Place {
  StmtRef block;
  size_t index = 0;
};

/// CUDA: true if the assignment `def` writes or reads a __shared__ array,
/// whose elements other threads of the block write: evaluating it again
/// later would not see the values it saw.
static bool touchesBlockShared(const StmtRef &def) {
  bool shared = def->lhs && def->lhs->var && def->lhs->var->blockShared;
  forEachExpr(def->value, [&](const ExprRef &x) { shared |= x->var && x->var->blockShared; });
  return shared;
}

/// Why the array elements assigned by `def`, the whole body of the counted
/// loop `fill` (`a[i] = e;`, i its index), cannot be filled again in the
/// reverse sweep instead of taping the old elements, or an empty string.
/// They can when `a` is a 1-D local array that the loop fills whole, written
/// nowhere else (no other assignment, initialiser or call), `e` has no
/// effects, and every reverse
/// code that reads `a` comes after the loop in the block that holds it,
/// with nothing the loop reads changing in between: then running the loop
/// again there gives the same bits. On success sets `last` to the index,
/// in that block, of the last statement whose reverse reads `a`, and
/// `readers`.
std::string whyNotRefillable(const Function &f, const StmtRef &def, const StmtRef &fill,
                             const Place &where,
                             const std::map<const StmtNode *, VarSet> &reads,
                             Summaries &summaries, size_t &last,
                             std::vector<const StmtNode *> &readers) {
  const ExprRef &lhs = def->lhs;
  Var *a = lhs->var;
  Var *index = fill->counted.index;
  if (def->assignOp != AssignOp::Set || !index || lhs->operands.size() != 1 ||
      lhs->operands[0]->kind != ExprKind::VarRef || lhs->operands[0]->var != index ||
      !(a->isArray() || a->ownsStorage) || a->origin != Var::Local)
    return "an array element";
  // Every element, one per iteration: no element keeps a value from an
  // earlier fill that the reverse sweep would then not get back.
  if (!writesEveryElement(f, fill, def.get()))
    return "an array element, filled in part";
  if (hasEffects(def->value, summaries) || mentions(def->value, a))
    return "an array element, computed by a call or from its own array";
  // Its readers all follow the fill in the fill's block (whyNotAtHand
  // checks that), so only a write there could come between the fill and a
  // reader.
  bool elsewhere = false;
  for (size_t j = where.index + 1; j < where.block->stmts.size(); ++j)
    forEachStmt(where.block->stmts[j], [&](const StmtRef &n) {
      if (n->kind == StmtKind::Assign && n->lhs->var == a)
        elsewhere = true;
      for (const ExprRef &e : ownExprs(n))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->kind != ExprKind::Call && x->kind != ExprKind::Opaque)
            return;
          for (size_t i = 0; i < x->operands.size(); ++i)
            if (x->operands[i]->kind == ExprKind::Address && x->operands[i]->var == a &&
                (x->kind == ExprKind::Opaque || summaries.of(x->callee).writesParam[i]))
              elsewhere = true; // a helper writes it
        });
    });
  if (elsewhere)
    return "an array element of an array written elsewhere too";
  std::string why = whyNotAtHand(where.block->stmts, where.index, where.block->stmts.size() - 1,
                                 true, def.get(), a, recomputeOperands(def->value, fill), reads,
                                 last, readers);
  return why.empty() ? why : "an array element; " + why;
}

/// Where a candidate sits: the block whose statements read it, the place
/// there of the assignment that computes it (of the fill loop, for a
/// refill), the last place where it may be read (before the next
/// assignment of a scalar assigned more than once) and the last where it
/// is, and what recomputing it reads.
struct CandidateSite {
  const StmtNode *block = nullptr;
  size_t at = 0, end = 0, last = 0;
  std::vector<Var *> operands;
};

bool readsVar(const CandidateSite &site, const Var *v) {
  return std::find(site.operands.begin(), site.operands.end(), v) != site.operands.end();
}

/// True if recomputing value `y` reads value `x` of the plan: x's variable,
/// computed before y in y's block and not assigned again before it.
bool readsValue(const FunctionPlan &plan, const std::vector<CandidateSite> &sites, size_t y,
                size_t x) {
  const CandidateSite &a = sites[x], &b = sites[y];
  return a.block == b.block && a.at < b.at && b.at <= a.end && readsVar(b, plan.values[x].var);
}

/// The values of the plan in the order of the statements that compute them
/// within each block (what a value reads comes before it).
std::vector<size_t> byPlace(const std::vector<CandidateSite> &sites) {
  std::vector<size_t> order(sites.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sites[a].at < sites[b].at; });
  return order;
}

/// The place in its block before whose reverse each recomputed value (and
/// `extra`, if given) is recomputed: its last reader's, or later, where a
/// recomputed value that reads it is recomputed.
std::vector<size_t> chainPoints(const FunctionPlan &plan, const std::vector<CandidateSite> &sites,
                                const ValueDecision *extra) {
  std::vector<size_t> point(plan.values.size());
  std::vector<size_t> order = byPlace(sites);
  for (size_t k = order.size(); k-- > 0;) { // those that read it first
    size_t x = order[k];
    point[x] = sites[x].last;
    for (size_t y = 0; y < plan.values.size(); ++y)
      if ((plan.values[y].recompute || &plan.values[y] == extra) && readsValue(plan, sites, y, x))
        point[x] = std::max(point[x], point[y]);
  }
  return point;
}

/// Why `v` cannot be recomputed along with the values already recomputed,
/// or an empty string. Values that read one another must be of one block
/// (an array's fill loop counts as a statement of the block that holds it);
/// recomputing one later, for a value that reads it, must not take
/// it past a change of what it is computed from, nor past its variable's
/// next assignment.
std::string whyNotChained(const FunctionPlan &plan, const ValueDecision &v,
                          const std::vector<CandidateSite> &sites) {
  size_t vi = &v - plan.values.data();
  for (size_t w = 0; w < plan.values.size(); ++w) {
    if (!plan.values[w].recompute)
      continue;
    // In one block, which value of a variable each reads is known, and
    // chainPoints orders them; across blocks, a shared variable is enough.
    if (sites[vi].block != sites[w].block &&
        (readsVar(sites[vi], plan.values[w].var) || readsVar(sites[w], v.var)))
      return "its expression and another recomputed value depend on each other";
  }
  std::vector<size_t> point = chainPoints(plan, sites, &v);
  for (size_t x = 0; x < plan.values.size(); ++x) {
    if ((!plan.values[x].recompute && x != vi) || point[x] == sites[x].last)
      continue;
    const std::string name = sourceName(*plan.values[x].var);
    if (point[x] > sites[x].end)
      return "recomputing '" + name + "' for the values computed from it would come after '" +
             name + "' is assigned again";
    if (Var *o = changedBetween(sites[x].block->stmts, sites[x].last, point[x],
                                sites[x].operands))
      return "recomputing '" + name + "' for the values computed from it would read '" +
             sourceName(*o) + "' after it changes";
  }
  return "";
}

/// Moves each recomputed value's recomputation to its place in the chain,
/// lists what must be at hand where it is computed (its operands, less the
/// recomputed values of the chain) and the order to recompute them in.
void settleChains(FunctionPlan &plan, const std::vector<CandidateSite> &sites) {
  std::vector<size_t> point = chainPoints(plan, sites, nullptr);
  for (size_t x = 0; x < plan.values.size(); ++x) {
    ValueDecision &v = plan.values[x];
    if (!v.recompute)
      continue;
    v.recomputeBefore = sites[x].block->stmts[point[x]].get();
    v.operandsAtHand.clear();
    for (Var *o : sites[x].operands) {
      bool recomputed = false;
      for (size_t w = 0; w < plan.values.size(); ++w)
        recomputed |= plan.values[w].recompute && plan.values[w].var == o &&
                      readsValue(plan, sites, x, w);
      if (!recomputed)
        v.operandsAtHand.push_back(o);
    }
  }
  plan.recomputeOrder.clear();
  for (size_t x : byPlace(sites))
    if (plan.values[x].recompute)
      plan.recomputeOrder.push_back(x);
}

/// The values that only recomputing needs: what a recomputed value is
/// computed from, assigned earlier in its block by a plain assignment, and
/// not itself a value the reverse sweep reads. Kept at hand, such a value
/// goes on the tape where it is overwritten; it is recomputed too, as part
/// of the chain, when that stays within the allowance. Runs until no
/// recomputed value adds one.
void addOperandValues(FunctionPlan &plan, std::vector<CandidateSite> &sites,
                      const Frequencies &freq, Summaries &summaries, const PlanOptions &options,
                      double allowance) {
  for (bool added = true; added;) {
    added = false;
    for (size_t x = 0; x < plan.values.size(); ++x) {
      if (!plan.values[x].recompute || plan.values[x].refill)
        continue;
      const StmtNode *block = sites[x].block;
      for (Var *o : std::vector<Var *>(sites[x].operands)) {
        if (!o->isScalar() || (o->origin != Var::Local && o->origin != Var::Temp))
          continue;
        // Its assignment: the last statement before x's that writes it.
        std::optional<size_t> at = lastWriteBefore(block->stmts, sites[x].at, o);
        if (!at)
          continue;
        size_t j = *at;
        const StmtRef &def = block->stmts[j];
        if (!isPlainAssignment(def) || mentions(def->value, o) ||
            hasEffects(def->value, summaries))
          continue;
        // Its next assignment, if any.
        size_t end = j + 1;
        for (std::set<const Var *> written; end < block->stmts.size(); ++end) {
          collectWrittenVars(block->stmts[end], written);
          if (written.count(o))
            break;
        }
        bool listed = false;
        for (size_t w = 0; w < plan.values.size(); ++w)
          listed |= plan.values[w].var == o && sites[w].block == block &&
                    (sites[w].at == j || (end < block->stmts.size() &&
                                          plan.values[w].definition == block->stmts[end].get()));
        if (listed)
          continue;
        ValueDecision u;
        u.var = o;
        u.definition = u.computedAt = def.get();
        u.definitionPos = def->pos.line ? def->pos : o->pos;
        u.value = def->value;
        u.candidate = !touchesBlockShared(def);
        u.runs = freq.of(def.get());
        u.bytes = scalarBytes(o->elem) * u.runs;
        u.cost = exprCost(u.value) * u.runs;
        u.T = plan.primalCost > 0 ? u.cost / plan.primalCost : 0;
        u.M = plan.storeAllBytes > 0 ? u.bytes / plan.storeAllBytes : 0;
        u.score = options.beta * u.T - options.gamma * u.M;
        u.recomputeBefore = def.get();
        plan.values.push_back(u);
        sites.push_back({block, j, std::min(end, block->stmts.size() - 1), j,
                         recomputeOperands(u.value, nullptr)});
        ValueDecision &v = plan.values.back();
        std::string needed = "read to recompute '" + sourceName(*plan.values[x].var) + "'";
        std::string why = whyNotChained(plan, v, sites);
        if (why.empty() && plan.recomputeCost + v.cost > allowance)
          why = "recomputing it would exceed the recompute allowance";
        if (!why.empty()) {
          v.reason = "stored: " + needed + "; " + why;
          plan.plannedBytes += v.bytes; // a push store-all does not make
          continue;
        }
        v.recompute = true;
        v.reason = "recomputed: " + needed + ", and cheaper to evaluate again than to keep";
        plan.recomputeCost += v.cost;
        settleChains(plan, sites);
        added = true;
      }
    }
  }
}

/// Operation units one run of a loop that keeps snapshots spends on its
/// schedule, besides its iterations: the run-time plan, the start, hold,
/// suspend, resume and finish of its checkpoints, a few schedule actions
/// (about 0.5 microseconds, measured on the benchmark machine). A loop
/// inside others pays it at each of their iterations. An outermost loop
/// pays it once a call, when its tape is over 64 KiB (else the run-time
/// plan tapes it, cgp/checkpoint.h): thousands of iterations, beside which
/// it is nothing, so it is not counted (the estimates, with 100 iterations
/// for an unknown trip count, would make it weigh).
constexpr double kScheduleRunCost = 600;

/// The replay allowance (`left`, operation units) goes to the kernel's
/// loops, the one whose stored values take the most tape first. Each gets
/// the share of its iterations that `left` pays for running again, at most
/// all of them, and what it takes is gone for the next. At run time the
/// loop tapes only its last iterations and runs the others again from
/// snapshots (planLoopReversal), when that holds less than its whole tape:
/// a loop inside others does so at each of its runs, and the snapshots of
/// a run stay until the reverse sweep reverses that run.
///
/// On the host a loop takes its share only when the score says the trade
/// pays: running its iterations again costs their time, plus, inside other
/// loops, its schedule's cost at each run (kScheduleRunCost), and frees their tape
/// less the snapshots of its state, so it pays when gamma * M > beta * T,
/// M the bytes freed over store-all's and T that time over the primal's
/// (the weights of the values' score), both for the whole loop (a share of
/// 1). A run of N iterations of B bytes each with snapshots of S bytes
/// holds least with segments of about sqrt(N S / B) iterations, a snapshot
/// each: about 2 sqrt(N S B) bytes where its tape takes N B. A loop that is
/// most of the primal and most of the tape is taped; a cheap loop inside it
/// whose iterations tape much more than its state may take a share. A loop
/// inside one that takes a share, or around one, gets none (the outer one,
/// holding more tape, is weighed first). On the device a thread's tape
/// past its small local array goes to global memory, which costs more than
/// recomputing: its outermost loops always take their share (the device
/// keeps snapshots at that level only).
void shareReplays(FunctionPlan &plan,
                  const std::map<const StmtNode *, std::set<const StmtNode *>> &inLoop,
                  const PlanOptions &options) {
  double left = options.replayAllowance * plan.primalCost;
  std::vector<LoopDecision *> order;
  for (LoopDecision &loop : plan.loops) {
    if (loop.snapshotBytes < 0)
      continue; // it cannot keep snapshots
    bool nested = false;
    for (const auto &[other, stmts] : inLoop)
      nested |= other != loop.loop && stmts.count(loop.loop);
    if (nested && options.device)
      continue;
    if (loop.tapeBytes <= 0 || loop.cost <= 0)
      continue;
    loop.tapeShare = plan.storeAllBytes > 0 ? loop.tapeBytes / plan.storeAllBytes : 0;
    loop.scheduleCost = nested ? kScheduleRunCost * loop.runs : 0;
    loop.timeShare = plan.primalCost > 0 ? (loop.cost + loop.scheduleCost) / plan.primalCost : 0;
    // What a run holds with every iteration but the last segment run
    // again, over its whole tape.
    const double trips = std::max(loop.estimatedTrips, 1.0);
    const double iteration = loop.tapeBytes / std::max(loop.runs, 1.0) / trips;
    const double state = loop.snapshotBytes;
    const double held = trips * state >= iteration
                            ? 2 * std::sqrt(trips * state * iteration)
                            : iteration + (trips - 1) * state;
    loop.freedShare = loop.tapeShare * std::max(0.0, 1 - held / (trips * iteration));
    loop.replayPays =
        options.device || options.gamma * loop.freedShare > options.beta * loop.timeShare;
    if (loop.replayPays)
      order.push_back(&loop);
  }
  std::stable_sort(order.begin(), order.end(), [](const LoopDecision *a, const LoopDecision *b) {
    return a->tapeBytes > b->tapeBytes;
  });
  std::vector<const LoopDecision *> sharing;
  for (LoopDecision *loop : order) {
    if (left <= 0)
      break;
    bool overlaps = false;
    for (const LoopDecision *taken : sharing)
      overlaps |= inLoop.at(taken->loop).count(loop->loop) ||
                  inLoop.at(loop->loop).count(taken->loop);
    if (overlaps)
      continue;
    const double schedule = loop->scheduleCost;
    if (left <= schedule)
      continue;
    // In thousandths, as the generated code spells it.
    loop->replayShare = std::floor(std::min(1.0, (left - schedule) / loop->cost) * 1000) / 1000;
    if (loop->replayShare <= 0)
      continue;
    left -= loop->replayShare * loop->cost + schedule;
    sharing.push_back(loop);
  }
}

/// What each loop holds: the tape bytes of the values stored in it, with
/// this plan and storing every value, and a snapshot of its state when it
/// can keep them; and where it ends, for the pictures of the report.
void measureLoops(FunctionPlan &plan,
                  const std::map<const StmtNode *, std::set<const StmtNode *>> &inLoop,
                  const std::map<const StmtNode *, double> &snapshotBytes) {
  for (LoopDecision &loop : plan.loops) {
    const std::set<const StmtNode *> &inside = inLoop.at(loop.loop);
    for (const ValueDecision &v : plan.values) {
      if (!inside.count(v.definition))
        continue;
      loop.storeAllBytes += v.bytes; // 0 for an inverted update, never taped
      if (!v.recompute && !v.inverted)
        loop.tapeBytes += v.bytes;
    }
    if (auto snapshot = snapshotBytes.find(loop.loop); snapshot != snapshotBytes.end())
      loop.snapshotBytes = snapshot->second;
    for (const StmtNode *s : inside)
      loop.endLine = std::max(loop.endLine, s->pos.line);
    plan.endLine = std::max(plan.endLine, loop.endLine);
  }
}

/// The value that the integer update `def` overwrites, which the reverse
/// sweep gets back by the inverse update: no tape, no recompute.
ValueDecision invertedValue(const StmtRef &def, double runs) {
  ValueDecision v;
  v.var = def->lhs->var;
  v.definition = v.computedAt = def.get();
  v.definitionPos = def->pos.line ? def->pos : v.var->pos;
  v.inverted = true;
  v.runs = runs;
  StmtRef inverse = inverseUpdate(def);
  std::string update = printStmt(def), undo = printStmt(inverse);
  for (std::string *text : {&update, &undo})
    while (!text->empty() && (text->back() == '\n' || text->back() == ';'))
      text->pop_back();
  v.reason = "restored by the inverse update, not stored: the reverse sweep undoes `" + update +
             "` with `" + undo + "` (integer arithmetic is exact)";
  return v;
}

/// The array element that the load `def` overwrites, which the reverse
/// sweep loads again from where the previous iteration loaded it.
ValueDecision reloadedValue(const StmtRef &def, double runs) {
  ValueDecision v;
  v.var = def->lhs->var;
  v.definition = v.computedAt = def.get();
  v.definitionPos = def->pos.line ? def->pos : v.var->pos;
  v.inverted = v.reloaded = true;
  v.runs = runs;
  std::string load = printStmt(def);
  while (!load.empty() && (load.back() == '\n' || load.back() == ';'))
    load.pop_back();
  v.reason = "loaded again, not stored: the reverse sweep repeats `" + load +
             "` of the iteration before (what it reads does not change)";
  return v;
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

PlanOptions deviceOptions(PlanOptions options) {
  options.device = true;
  options.recomputeAllowance = 1.0;
  options.replayAllowance = 1.0;
  return options;
}

FunctionPlan planValues(const Function &f, const std::map<const StmtNode *, VarSet> &reads,
                        const TbrResult &storeAll, const PlanOptions &options,
                        Summaries &summaries,
                        const std::map<const StmtNode *, double> &snapshotBytes) {
  FunctionPlan plan;
  plan.function = f.name;
  plan.storeAll = options.storeAll;
  const KernelStats *profile = profileOf(options.profile.get(), f);
  Frequencies freq = estimateFrequencies(f, profile);
  plan.primalCost = freq.primalCost;
  plan.profiled = profile != nullptr;

  plan.isKernel = f.isKernel;
  plan.pos = f.pos;
  // The statements of each loop, itself included.
  std::map<const StmtNode *, std::set<const StmtNode *>> inLoop;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind != StmtKind::For && s->kind != StmtKind::While && s->kind != StmtKind::DoWhile)
      return;
    LoopDecision loop;
    std::set<const StmtNode *> &inside = inLoop[s.get()];
    forEachStmt(s, [&](const StmtRef &n) {
      inside.insert(n.get());
      for (const ExprRef &e : ownExprs(n))
        loop.cost += freq.of(n.get()) * exprCost(e);
    });
    loop.loop = s.get();
    loop.pos = s->pos;
    loop.label = s->counted.index ? "loop over " + sourceName(*s->counted.index)
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
  double invertedBytes = 0; // what store-all tapes of the inverted updates
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Block) {
      for (size_t d = 0; d < s->stmts.size(); ++d) {
        const StmtRef &def = s->stmts[d];
        bool reloaded = def->kind == StmtKind::Assign && storeAll.reloads.count(def.get());
        if (def->kind == StmtKind::Assign && (storeAll.inverts.count(def.get()) || reloaded)) {
          plan.values.push_back(reloaded ? reloadedValue(def, freq.of(def.get()))
                                         : invertedValue(def, freq.of(def.get())));
          plan.storeAllBytes += scalarBytes(def->lhs->var->elem) * plan.values.back().runs;
          invertedBytes += scalarBytes(def->lhs->var->elem) * plan.values.back().runs;
          sites.push_back({s.get(), d, d, d, {}}); // nothing reads it, nothing recomputes it
          continue;
        }
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
        size_t at = d, end = s->stmts.size() - 1;
        StmtRef fill;
        if (def->lhs->kind == ExprKind::VarRef) {
          v.reason = whyNotRecomputable(s, d, reads, assignments, summaries, at, end, last,
                                        v.readers);
        } else {
          v.reason = "an array element";
          auto loop = loopOfBody.find(s.get());
          auto place = loop != loopOfBody.end() ? places.find(loop->second.get()) : places.end();
          if (s->stmts.size() == 1 && place != places.end() && loop->second->counted.index) {
            fill = loop->second;
            readersIn = place->second.block.get();
            at = place->second.index;
            end = readersIn->stmts.size() - 1;
            v.reason = whyNotRefillable(f, def, fill, place->second, reads, summaries, last,
                                        v.readers);
          }
        }
        if (v.reason.empty() && touchesBlockShared(def))
          v.reason = "it reads or is __shared__ memory, which other threads write";
        // On the device recomputing costs less than a tape (deviceOptions).
        if (v.reason.empty() && v.var->namedFactor && !options.device)
          v.reason = "a math call's value, named so that the reverse sweep need not call again";
        v.candidate = v.reason.empty();
        v.computedAt = def.get();
        if (v.candidate) {
          if (!fill && at != d) { // the value before, of a scalar assigned again here
            v.computedAt = s->stmts[at].get();
            v.value = s->stmts[at]->value;
            if (s->stmts[at]->pos.line)
              v.definitionPos = s->stmts[at]->pos;
          }
          v.refill = fill;
          v.cost = exprCost(v.value) * v.runs;
          v.recomputeBefore = readersIn->stmts[last].get();
          for (const StmtNode *reader : v.readers)
            v.G += freq.of(reader);
        } else {
          at = d;
          v.readers.clear();
        }
        sites.push_back({readersIn, at, end, last, recomputeOperands(v.value, fill)});
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

  plan.plannedBytes = plan.storeAllBytes - invertedBytes;
  forEachStmt(f.body, [&](const StmtRef &s) { plan.endLine = std::max(plan.endLine, s->pos.line); });
  if (options.storeAll) {
    for (ValueDecision &v : plan.values)
      v.reason = "stored: strategy store-all";
    measureLoops(plan, inLoop, snapshotBytes);
    return plan;
  }

  // Recompute the lowest scores first, within the allowance. A value may be
  // computed from other recomputed values of its block (a chain: `t2 = t +
  // 0.5 * h` with t recomputed too): each is then recomputed no later than
  // the values that read it, which moves it before a later statement's
  // reverse and must not take it past a change of what it reads. Values in
  // different blocks never chain.
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
    settleChains(plan, sites);
  }
  for (ValueDecision &v : plan.values)
    if (!v.candidate && !v.inverted)
      v.reason = "stored: " + v.reason;
  addOperandValues(plan, sites, freq, summaries, options, allowance);
  measureLoops(plan, inLoop, snapshotBytes);
  if (f.isKernel && options.memoryBudget < 0)
    shareReplays(plan, inLoop, options);
  return plan;
}

} // namespace cgp
