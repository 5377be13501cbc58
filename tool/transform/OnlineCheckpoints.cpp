//===- OnlineCheckpoints.cpp - loops of unknown trip count from snapshots -===//
//
// A `while` or `do while` loop (or a `for` without init that is not
// counted, or a counted `for` that may leave by `break` or `return`) knows
// its trip count only when it ends: an adaptive ODE solver, a convergence
// loop with an iteration limit, a search that stops at what it finds.
// Under a memory budget, such a loop of a kernel (nested ones too) whose
// body writes only scalars, local arrays and a span of the caller's
// buffers known at its entry (its "state") gets two ways to
// be reversed, chosen at run time by the runtime's planOnlineReversal():
//
//   - tape every iteration (no budget in force at run time), or
//   - online checkpointing: the forward sweep runs the loop untaped and,
//     before every d-th iteration, keeps a snapshot of the state; when the
//     slots for them fill up, every other snapshot goes and d doubles
//     (LoopCheckpoints::due). When the loop has ended, the trip count is
//     known, and the runtime's StretchSchedule reverses the stretch after
//     each snapshot, last first, with a binomial schedule on segments (the
//     same Store, Restore, Advance, Tape and Reverse actions as a counted
//     loop's, CheckpointCode.h). The forward sweep ends by running the
//     last segment taped, so the loop's variables hold their final values.
//
// The condition is not evaluated by replays (they run a known number of
// iterations), so it must not call anything. Replays run the same
// statements on the same state, so gradients are the same bits either way.
//
//===----------------------------------------------------------------------===//
#include "transform/Sweeps.h"

#include "transform/CheckpointCode.h"
#include "transform/Declarations.h"
#include "transform/TapeBound.h"

#include <algorithm>

namespace cgp {

bool SweepBuilder::canCheckpointOnline(const StmtRef &s, std::vector<Var *> &state,
                                       std::string &why) const {
  if (!f_.isKernel || options_.storeAll)
    return false;
  if (hasEffectfulCall(s->value)) {
    why = "its condition calls a function";
    return false;
  }
  Var *index = nullptr;
  if (s->kind == StmtKind::For && s->counted.index) {
    // Each iteration's index is rebuilt from its number, as in a counted loop.
    if (!s->init || s->init->kind != StmtKind::Decl || !s->init->value ||
        hasEffectfulCall(s->init->value)) {
      why = "its index is not its own";
      return false;
    }
    index = s->counted.index;
  } else if (!isEmpty(s->init)) {
    why = "it has an init statement";
    return false;
  }
  return loopState(s, index, {}, state, why);
}

SweepBuilder::Sweeps SweepBuilder::sweepOnlineLoop(const StmtRef &s, const Sweeps &inner,
                                                   const Sweeps &step,
                                                   const std::vector<Var *> &state, Sweeps taped,
                                                   bool plansInside, Var *outerSite) {
  runTimePlans_.insert(s.get());
  Module &m = adj_.module();
  ScalarType i64 = ScalarType::int64Type();
  std::string label = s->label.empty() ? "loop" : s->label;
  if (s->kind == StmtKind::For && s->counted.index)
    label = "loop over " + s->counted.index->name;
  std::string name = loopObjectPrefix(s);

  double stateBytes = 0, iterationBytes = 0, afterBytes = 0, laterLoopsBytes = 0;
  std::string stateNames;
  loopBytes(s, state, stateBytes, stateNames, iterationBytes, afterBytes, laterLoopsBytes);
  loopChoices_[s.get()] = {"tape every iteration without a memory budget in force, else online "
                           "checkpointing of its state",
                           "chosen at run time; state: " + stateText(s, state, /*asWritten=*/true)};

  Var *checkpoints = newRuntimeObject(m, name + "_checkpoints",
                                       "thread_local cgp::rt::LoopCheckpoints");
  Var *site = loopSite(s);
  topDecls.push_back(siteDecl(site, s, false));
  topDecls.push_back(decl(checkpoints));
  Var *snapshots = makeTemp(m, name + "_snapshots", ScalarType::intType(), true);
  Var *trips = makeTemp(m, name + "_count", i64);
  Var *action = newRuntimeObject(m, name + "_action", "cgp::rt::ScheduleAction");
  action->isConst = true;
  Var *k = makeTemp(m, name + "_step", i64);
  Var *measured = makeTemp(m, name + "_iteration_bytes", ScalarType::doubleType());
  Var *mark = makeTemp(m, name + "_mark", ScalarType{ScalarType::Integer, "std::size_t"}, true);

  // One iteration: the body, then the step (of a `for`). A counted loop's
  // iterations rebuild their index from their number instead (its step
  // writes only the index), from `first`, kept on the tape unless it is a
  // constant.
  Var *index = s->kind == StmtKind::For ? s->counted.index : nullptr;
  ExprRef start = index ? s->init->value : nullptr;
  Var *first = index ? makeTemp(m, index->name + "_start", index->elem, true) : nullptr;
  // The reverse phase needs `first` only if an iteration reads its index
  // (taped, reversed or replayed untaped).
  bool indexUsed = index && iterationsReadIndex(s, inner.fwd, inner.rev, index);
  bool pushFirst = indexUsed && !knownInteger(start); // a known first is spelled again
  std::vector<StmtRef> primal;
  appendFlat(primal, s->body);
  if (s->step && !index)
    appendFlat(primal, s->step);
  std::vector<StmtRef> tapedIteration = inner.fwd;
  std::vector<StmtRef> reversedIteration = inner.rev;
  if (!index) {
    appendAll(tapedIteration, step.fwd);
    reversedIteration = step.rev;
    appendAll(reversedIteration, inner.rev);
  }
  auto numbered = [&](const ExprRef &number, const std::vector<StmtRef> &code) {
    return index ? withIndex(index, first, s->counted.step, number, code) : code;
  };
  auto replay = [&](const ExprRef &n) { return numbered(n, primal); };
  auto tape = [&](const ExprRef &n) { return numbered(n, tapedIteration); };
  auto reverseOne = [&](const ExprRef &n) { return numbered(n, reversedIteration); };

  // When TapeBound knows what an iteration tapes (exactly, or at the most
  // when its branches tape different amounts), the plan takes that, and no
  // probe runs.
  TapeBound bound = boundTape(tapedIteration);
  Sweeps out;
  appendAll(out.fwd, spanCode(s, state));
  out.fwd.push_back(comment(label + ": its trip count is known when it ends; at run time, tape "
                            "every iteration without a memory budget in force, else keep "
                            "snapshots of its state (" + stateNames + ") while it runs and "
                            "replay iterations in the reverse sweep" + describeBound(bound)));
  if (bound.known)
    iterationBytes = bound.most;
  warnBelowMinimum(s, 2, stateBytes, bound.known && !plansInside ? iterationBytes : 0);
  out.fwd.push_back(decl(measured, floatLit(iterationBytes, ScalarType::doubleType())));
  // A counted loop's index lives in a scope of its own around the probe
  // (iteration 0, its index the start) and around the loop run untaped, so
  // that it shadows none of the indices the iterations rebuild.
  auto indexScope = [&](StmtRef stmt) {
    return index ? scope({decl(index, varRef(first)), std::move(stmt)}) : stmt;
  };
  if (index)
    out.fwd.push_back(decl(first, start));
  // With a budget in force, measure the tape of one iteration (if there is
  // one: the condition, which calls nothing, is evaluated once more); not
  // when loops inside plan their own reversal (see sweepCheckpointedLoop).
  ExprRef runs = s->kind == StmtKind::DoWhile ? boolLit(true) : s->value;
  if (!plansInside && !bound.known)
    out.fwd.push_back(indexScope(
      ifStmt(binary(BinaryOp::LAnd, roomLeftBy(outerSite, budgetInForce(options_.memoryBudget)),
                    runs),
             scope(probeIteration(checkpoints, state, measured, mark, {},
                                  tapedIteration)))));
  PlanCallOptions plan;
  plan.nestedPlans = plansInside;
  plan.mostBytes = bound.known;
  plan.laterLoopsBytes = laterLoopsBytes;
  out.fwd.push_back(decl(
      snapshots, planReversal(true,
                              {varRef(site), varRef(measured), snapshotBytesValue(state),
                               floatLit(afterBytes, ScalarType::doubleType()),
                               intLit(options_.memoryBudget, i64)},
                              plan, outerSite)));

  // Forward phase: the loop, untaped, with snapshots; then, its trip count
  // known, run to the last segment, taped, and keep it for the reverse.
  std::vector<StmtRef> save{ifStmt(method(checkpoints, "due", ScalarType::boolType(),
                                          {varRef(trips)}),
                                   block({}))};
  for (Var *v : state)
    save.front()->body->stmts.push_back(putState(checkpoints, v));
  std::vector<StmtRef> body = save;
  appendAll(body, primal);
  if (index)
    appendFlat(body, s->step);
  body.push_back(assign(varRef(trips), intLit(1, i64), AssignOp::Add));
  StmtRef loop = s->kind == StmtKind::DoWhile ? doWhile(block(body), s->value)
                                              : whileStmt(s->value, block(body));
  loop->pos = s->pos;
  std::vector<StmtRef> forward{
      eval(method(checkpoints, "startOnline", ScalarType::voidType(),
                  {varRef(snapshots), snapshotBytesValue(state), member(site, "segment", i64)})),
      decl(trips, intLit(0, i64)),
      indexScope(loop),
      eval(method(checkpoints, "endOnline", ScalarType::voidType(), {varRef(trips)})),
      scheduleLoop(checkpoints, action, k, state, replay, tape, nullptr),
      eval(method(checkpoints, "hold", ScalarType::voidType()))};
  if (loopDepth() > 0) // runs again before this run is reversed (CheckpointedLoops.cpp)
    forward.push_back(eval(method(checkpoints, "suspend", ScalarType::voidType())));
  appendAll(forward, keepSpans(state));
  if (pushFirst)
    forward.push_back(push(varRef(first)));
  out.fwd.push_back(ifStmt(binary(BinaryOp::Eq, varRef(snapshots), intLit(0)),
                           block(taped.fwd), block(forward)));
  out.fwd.push_back(push(varRef(snapshots)));

  // Reverse phase: the schedule, from the Reverse action the forward phase
  // stopped at. Its restores put back earlier values of the state; the
  // kernel's result, set in the loop by a `return`, is the one the
  // gradient returns: kept aside.
  std::vector<StmtRef> reverse;
  if (loopDepth() > 0)
    reverse.push_back(eval(method(checkpoints, "resume", ScalarType::voidType())));
  if (indexUsed)
    reverse.push_back(decl(first, pushFirst ? tapePop(index->elem) : start));
  appendAll(reverse, takeSpans(state));
  Var *keptResult = nullptr;
  if (f_.result && std::find(state.begin(), state.end(), f_.result) != state.end()) {
    keptResult = makeTemp(m, "kept_result", f_.result->elem, true);
    reverse.push_back(decl(keptResult, varRef(f_.result)));
  }
  reverse.push_back(scheduleLoop(checkpoints, action, k, state, replay, tape, reverseOne));
  reverse.push_back(eval(method(checkpoints, "finish", ScalarType::voidType())));
  if (keptResult)
    reverse.push_back(assign(varRef(f_.result), varRef(keptResult)));
  out.rev.push_back(comment("reverse of " + label +
                            ": from the tape of every iteration, or from the snapshots"));
  out.rev.push_back(decl(snapshots, tapePop(ScalarType::intType())));
  out.rev.push_back(ifStmt(binary(BinaryOp::Eq, varRef(snapshots), intLit(0)),
                           block(taped.rev), block(reverse)));
  return out;
}

} // namespace cgp
