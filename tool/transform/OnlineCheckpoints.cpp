//===- OnlineCheckpoints.cpp - loops of unknown trip count from snapshots -===//
//
// A `while` or `do while` loop (or a `for` without init that is not
// counted) knows its trip count only when it ends: an adaptive ODE solver,
// a convergence loop, a loop that leaves by `break`. Under a memory budget,
// an outermost such loop of a kernel whose body writes only scalars and
// local arrays (its "state") gets two ways to be reversed, chosen at run
// time by the runtime's planOnlineReversal():
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

#include <algorithm>
#include <cctype>

namespace cgp {

bool SweepBuilder::canCheckpointOnline(const StmtRef &s, std::vector<Var *> &state,
                                       std::string &why) const {
  if (!f_.isKernel || options_.storeAll)
    return false;
  if (hasEffectfulCall(s->value)) {
    why = "its condition calls a function";
    return false;
  }
  return loopState(s, nullptr, {}, state, why);
}

SweepBuilder::Sweeps SweepBuilder::sweepOnlineLoop(const StmtRef &s, const Sweeps &inner,
                                                   const Sweeps &step,
                                                   const std::vector<Var *> &state, Sweeps taped) {
  Module &m = adj_.module();
  ScalarType i64 = ScalarType::int64Type();
  std::string label = s->label.empty() ? "loop" : s->label;
  std::string name = label;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';

  double stateBytes = 0, iterationBytes = 0, afterBytes = 0;
  std::string stateNames;
  loopBytes(s, state, stateBytes, stateNames, iterationBytes, afterBytes);
  loopChoices_[s.get()] = {"tape every iteration without a memory budget in force, else online "
                           "checkpointing of its state",
                           "chosen at run time; state: " + stateNames};

  Var *checkpoints = newRuntimeObject(m, name + "_checkpoints", "cgp::rt::LoopCheckpoints");
  Var *site = newRuntimeObject(m, name + "_site", "thread_local cgp::rt::LoopSite");
  topDecls.push_back(decl(site));
  topDecls.push_back(decl(checkpoints));
  Var *snapshots = makeTemp(m, name + "_snapshots", ScalarType::intType(), true);
  Var *trips = makeTemp(m, name + "_count", i64);
  Var *action = newRuntimeObject(m, name + "_action", "cgp::rt::ScheduleAction");
  action->isConst = true;
  Var *k = makeTemp(m, name + "_step", i64);
  Var *measured = makeTemp(m, name + "_iteration_bytes", ScalarType::doubleType());
  Var *mark = makeTemp(m, name + "_mark", ScalarType{ScalarType::Integer, "std::size_t"}, true);

  // One iteration: the body, then the step (of a `for`).
  std::vector<StmtRef> primal;
  appendFlat(primal, s->body);
  if (s->step)
    appendFlat(primal, s->step);
  std::vector<StmtRef> tapedIteration = inner.fwd;
  appendAll(tapedIteration, step.fwd);
  std::vector<StmtRef> reversedIteration = step.rev;
  appendAll(reversedIteration, inner.rev);
  auto replay = [&](const ExprRef &) { return primal; };
  auto tape = [&](const ExprRef &) { return tapedIteration; };
  auto reverseOne = [&](const ExprRef &) { return reversedIteration; };

  Sweeps out;
  out.fwd.push_back(comment(label + ": its trip count is known when it ends; at run time, tape "
                            "every iteration without a memory budget in force, else keep "
                            "snapshots of its state (" + stateNames + ") while it runs and "
                            "replay iterations in the reverse sweep"));
  out.fwd.push_back(decl(measured, floatLit(iterationBytes, ScalarType::doubleType())));
  // With a budget in force, measure the tape of one iteration (if there is
  // one: the condition, which calls nothing, is evaluated once more).
  ExprRef runs = s->kind == StmtKind::DoWhile ? boolLit(true) : s->value;
  out.fwd.push_back(ifStmt(binary(BinaryOp::LAnd, budgetInForce(options_.memoryBudget), runs),
                           scope(probeIteration(checkpoints, state, stateBytes, measured, mark,
                                                {}, tapedIteration))));
  out.fwd.push_back(decl(snapshots,
                         opaque("cgp::rt::planOnlineReversal", ScalarType::intType(),
                                {varRef(site), varRef(measured),
                                 intLit(static_cast<int64_t>(stateBytes), i64),
                                 floatLit(afterBytes, ScalarType::doubleType()),
                                 intLit(options_.memoryBudget, i64)})));

  // Forward phase: the loop, untaped, with snapshots; then, its trip count
  // known, run to the last segment, taped, and keep it for the reverse.
  std::vector<StmtRef> save{ifStmt(method(checkpoints, "due", ScalarType::boolType(),
                                          {varRef(trips)}),
                                   block({}))};
  for (Var *v : state)
    save.front()->body->stmts.push_back(putState(checkpoints, v));
  std::vector<StmtRef> body = save;
  appendAll(body, primal);
  body.push_back(assign(varRef(trips), intLit(1, i64), AssignOp::Add));
  StmtRef loop = s->kind == StmtKind::DoWhile ? doWhile(block(body), s->value)
                                              : whileStmt(s->value, block(body));
  loop->pos = s->pos;
  std::vector<StmtRef> forward{
      eval(method(checkpoints, "startOnline", ScalarType::voidType(),
                  {varRef(snapshots), intLit(static_cast<int64_t>(stateBytes), i64),
                   member(site, "segment", i64)})),
      decl(trips, intLit(0, i64)),
      loop,
      eval(method(checkpoints, "endOnline", ScalarType::voidType(), {varRef(trips)})),
      scheduleLoop(checkpoints, action, k, state, replay, tape, nullptr),
      eval(method(checkpoints, "hold", ScalarType::voidType()))};
  out.fwd.push_back(ifStmt(binary(BinaryOp::Eq, varRef(snapshots), intLit(0)),
                           block(taped.fwd), block(forward)));
  out.fwd.push_back(push(varRef(snapshots)));

  // Reverse phase: the schedule, from the Reverse action the forward phase
  // stopped at. Its restores put back earlier values of the state; the
  // kernel's result, set in the loop by a `return`, is the one the
  // gradient returns: kept aside.
  std::vector<StmtRef> reverse;
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
