//===- CheckpointedLoops.cpp - loops reversed from snapshots --------------===//
//
// An outermost counted loop of a kernel, whose trip count is known at its
// entry and whose body writes only scalars and local arrays (its "state"),
// gets two ways to be reversed, chosen at run time by the runtime's
// planLoopReversal() against the memory budget:
//
//   - tape every iteration (the code store-all would write), or
//   - binomial checkpointing: the forward sweep runs the loop untaped,
//     keeping snapshots of the state where the schedule says, and runs its
//     last iteration taped; the reverse sweep reverses that iteration, then
//     follows the schedule: restore a snapshot, replay iterations untaped,
//     run one taped and reverse it, and so on down to the first.
//
// Replays run the same statements on the same state, so gradients are the
// same bits either way; only memory and time move.
//
//===----------------------------------------------------------------------===//
#include "transform/Sweeps.h"

#include "analysis/Liveness.h"
#include "ir/Printer.h"
#include "planner/CostModel.h"
#include "transform/Declarations.h"

#include <algorithm>
#include <set>

namespace cgp {
namespace {

/// A runtime object of generated code (its type is spelled as given).
Var *newObject(Module &m, const std::string &name, const std::string &type) {
  return makeTemp(m, name, ScalarType{ScalarType::Void, type});
}

/// The whole of `v` (an array too), for put/get.
ExprRef whole(Var *v) {
  auto e = std::make_shared<ExprNode>(ExprKind::VarRef, v->elem);
  e->var = v;
  return e;
}

bool hasEffectfulCall(const ExprRef &e) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    found |= x->kind == ExprKind::Call || x->kind == ExprKind::Opaque ||
             x->kind == ExprKind::TapePop;
  });
  return found;
}

} // namespace

bool SweepBuilder::canCheckpoint(const StmtRef &s, std::vector<Var *> &state,
                                 std::string &why) const {
  if (!f_.isKernel || options_.storeAll)
    return false;
  Var *index = s->counted.index;
  if (!s->init || s->init->kind != StmtKind::Decl || !s->init->value ||
      hasEffectfulCall(s->init->value)) {
    why = "its index is not its own";
    return false;
  }
  const ExprRef &cond = s->value;
  if (cond->kind != ExprKind::Binary || cond->operands[0]->kind != ExprKind::VarRef ||
      cond->operands[0]->var != index) {
    why = "it may leave early (break or return)";
    return false;
  }
  BinaryOp op = cond->binaryOp;
  int64_t by = s->counted.step;
  bool upwards = (op == BinaryOp::Lt || op == BinaryOp::Le) && by > 0;
  bool downwards = (op == BinaryOp::Gt || op == BinaryOp::Ge) && by < 0;
  if (!upwards && !downwards) {
    why = "its trip count cannot be computed at its entry";
    return false;
  }
  // What the body writes: assignments, and what its calls write through
  // the pointers they are given (per the callee's summary).
  std::set<const Var *> written, writtenByCall, taped;
  forEachStmt(s->body, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Assign && tbr.pushes.count(n.get()))
      taped.insert(n->lhs->var); // the forward sweep keeps its old value
    if (n->kind == StmtKind::Assign)
      written.insert(n->lhs->var);
    if (n->kind == StmtKind::Decl)
      written.insert(n->var);
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind != ExprKind::Call)
          return;
        const FunctionSummary &sum = sums_.of(x->callee);
        for (size_t a = 0; a < x->operands.size(); ++a)
          if (x->operands[a]->kind == ExprKind::Address && sum.writesParam[a]) {
            written.insert(x->operands[a]->var);
            writtenByCall.insert(x->operands[a]->var);
          }
      });
  });
  const ExprRef &bound = cond->operands[1];
  std::vector<Var *> boundVars, startVars;
  collectVars(bound, boundVars);
  collectVars(s->init->value, startVars);
  for (Var *v : boundVars)
    if (written.count(v)) {
      why = "its bound changes inside it";
      return false;
    }
  if (hasEffectfulCall(bound)) {
    why = "its bound calls a function";
    return false;
  }
  bool opaqueStatement = false;
  forEachStmt(s->body, [&](const StmtRef &n) {
    opaqueStatement |= n->kind == StmtKind::Eval && n->value->kind == ExprKind::Opaque &&
                       !isProfileHook(n); // the runtime does not count replays
  });
  if (opaqueStatement) {
    why = "it calls a function without body for its effects, which a replay would repeat";
    return false;
  }
  // Variables declared inside the body live only within one iteration:
  // they are not state, taped or not. Their declarations have moved to the
  // top of the function (Var::loopScoped remembers where they were), except
  // the own indices of inner loops. A replay may leave another iteration's
  // values in them; nothing reads those, since the code before and after
  // the loop cannot name them and each iteration writes them before reading.
  // Leaving out the LSTM's gate pre-activations (declared in the step's
  // body) cuts its snapshot from 6 KiB to 2 KiB, three times as many
  // snapshots for the same budget.
  std::set<const Var *> scoped;
  forEachStmt(s->body, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Decl)
      scoped.insert(n->var);
  });
  // A scalar the body always writes before reading it (dead at the loop's
  // entry) is left out of the state only if the forward sweep never tapes
  // its old value: a taped old value may be the one from before the loop,
  // which the reverse sweep of the code before the loop needs, and a probe
  // iteration or a replay would leave a later iteration's value there
  // instead (fuzz regression 003). Leaving such temporaries out matters:
  // scalars restored from snapshots stay live across the schedule loop,
  // which costs GCC 1.6x on the LSTM benchmark.
  if (liveAtLoops_.empty()) {
    VarSet atEnd;
    if (f_.result)
      atEnd.insert(f_.result);
    for (Var *p : f_.params)
      atEnd.insert(p);
    liveAtLoops_ = liveAtLoopEntries(f_, atEnd);
  }
  const VarSet &live = liveAtLoops_[s.get()];
  std::vector<Var *> vars;
  for (const Var *v : written) {
    if (v == index || scoped.count(v) || v->loopScoped)
      continue;
    if (v->isScalar() && !live.count(const_cast<Var *>(v)) && !taped.count(v) &&
        !writtenByCall.count(v))
      continue;
    if (v->isPointer() || v->origin == Var::Global) {
      why = "it writes memory outside the kernel ('" + v->name + "')";
      return false;
    }
    vars.push_back(const_cast<Var *>(v));
  }
  std::sort(vars.begin(), vars.end(), VarLess());
  state = vars;
  return true;
}

SweepBuilder::Sweeps SweepBuilder::sweepCheckpointedLoop(const StmtRef &s, const Sweeps &inner,
                                                         const std::vector<Var *> &state) {
  Module &m = adj_.module();
  Sweeps storeAll = sweepCountedLoop(s, inner);
  Var *i = s->counted.index;
  const ScalarType &it = i->elem;
  ScalarType i64 = ScalarType::int64Type();
  int64_t by = s->counted.step;
  const ExprRef &start = s->init->value;
  const ExprRef &cond = s->value;

  // What the run-time plan needs: bytes of the state, of one taped
  // iteration, and of what the rest of the kernel pushes after the loop.
  Frequencies freq = estimateFrequencies(f_, profileOf(options_.profile.get(), f_));
  double stateBytes = 0;
  std::string stateNames;
  for (Var *v : state) {
    stateBytes += scalarBytes(v->elem) * static_cast<double>(v->elementCount());
    stateNames += (stateNames.empty() ? "" : ", ") + v->name;
  }
  // Estimates when compiling; with a budget in force the run measures one
  // taped iteration instead.
  double perIteration = std::max(freq.of(s->body.get()), 1.0);
  double iterationBytes = 16, afterBytes = 0;
  std::set<const StmtNode *> inLoop;
  forEachStmt(s, [&](const StmtRef &n) { inLoop.insert(n.get()); });
  bool after = false;
  forEachStmt(f_.body, [&](const StmtRef &n) {
    bool pushes = n->kind == StmtKind::Assign && tbr.pushes.count(n.get());
    if (n.get() == s.get())
      after = true;
    else if (inLoop.count(n.get())) {
      if (pushes)
        iterationBytes += scalarBytes(n->lhs->var->elem) * freq.of(n.get()) / perIteration;
      if (n->kind == StmtKind::For || n->kind == StmtKind::While || n->kind == StmtKind::DoWhile)
        iterationBytes += 16 * freq.of(n.get()) / perIteration;
    } else if (after && pushes) {
      afterBytes += scalarBytes(n->lhs->var->elem) * freq.of(n.get());
    }
  });

  Var *checkpoints = newObject(m, i->name + "_checkpoints", "cgp::rt::LoopCheckpoints");
  Var *site = newObject(m, i->name + "_site", "thread_local cgp::rt::LoopSite");
  topDecls.push_back(decl(site));
  topDecls.push_back(decl(checkpoints));
  Var *steps = makeTemp(m, i->name + "_steps", i64, true);
  Var *snapshots = makeTemp(m, i->name + "_snapshots", ScalarType::intType(), true);
  Var *first = makeTemp(m, i->name + "_start", it, true);
  Var *action = newObject(m, i->name + "_action", "cgp::rt::ScheduleAction");
  action->isConst = true;
  Var *k = makeTemp(m, i->name + "_step", i64);

  // steps = the trip count, from the start and the bound
  ExprRef f = cast(i64, start), b = cast(i64, cond->operands[1]);
  ExprRef zero = intLit(0, i64), one = intLit(1, i64);
  ExprRef stepsValue;
  switch (cond->binaryOp) {
  case BinaryOp::Lt:
    stepsValue = select(binary(BinaryOp::Gt, b, f),
                        binary(BinaryOp::Div,
                               binary(BinaryOp::Add, binary(BinaryOp::Sub, b, f), intLit(by - 1, i64)),
                               intLit(by, i64)),
                        zero);
    break;
  case BinaryOp::Le:
    stepsValue = select(binary(BinaryOp::Ge, b, f),
                        binary(BinaryOp::Add,
                               binary(BinaryOp::Div, binary(BinaryOp::Sub, b, f), intLit(by, i64)), one),
                        zero);
    break;
  case BinaryOp::Gt:
    stepsValue = select(binary(BinaryOp::Gt, f, b),
                        binary(BinaryOp::Div,
                               binary(BinaryOp::Add, binary(BinaryOp::Sub, f, b), intLit(-by - 1, i64)),
                               intLit(-by, i64)),
                        zero);
    break;
  default: // Ge
    stepsValue = select(binary(BinaryOp::Ge, f, b),
                        binary(BinaryOp::Add,
                               binary(BinaryOp::Div, binary(BinaryOp::Sub, f, b), intLit(-by, i64)), one),
                        zero);
    break;
  }
  // `int t = t_start + step * by;` before statements that use the index.
  auto withIndex = [&](ExprRef stepNumber, std::vector<StmtRef> stmts) {
    bool uses = false;
    for (const StmtRef &st : stmts)
      forEachStmt(st, [&](const StmtRef &n) {
        for (const ExprRef &e : ownExprs(n))
          uses |= mentions(e, i);
      });
    if (uses)
      stmts.insert(stmts.begin(),
                   decl(i, cast(it, binary(BinaryOp::Add, cast(i64, varRef(first)),
                                           binary(BinaryOp::Mul, stepNumber, intLit(by, i64))))));
    return stmts;
  };
  // Scalars go in and out by value (their address is never taken).
  auto putState = [&](Var *v) {
    return eval(method(checkpoints, "put", ScalarType::voidType(), {whole(v)}));
  };
  auto getState = [&](Var *v) {
    if (v->isScalar())
      return assign(varRef(v), method(checkpoints, "getValue<" + v->elem.spelling + ">", v->elem));
    return eval(method(checkpoints, "get", ScalarType::voidType(), {whole(v)}));
  };
  auto is = [&](const char *what) { return method(action, what, ScalarType::boolType()); };
  auto field = [&](const char *name, ScalarType t) { return member(action, name, std::move(t)); };

  // The schedule's actions, as code. `reverseAction` is what a Reverse
  // action runs (forward phase: the taped iteration only).
  auto scheduleLoop = [&](std::vector<StmtRef> reverseAction) {
    std::vector<StmtRef> save{eval(method(checkpoints, "beginSave", ScalarType::voidType(),
                                          {field("slot", ScalarType::intType())}))};
    std::vector<StmtRef> load{eval(method(checkpoints, "beginLoad", ScalarType::voidType(),
                                          {field("slot", ScalarType::intType())}))};
    for (Var *v : state) {
      save.push_back(putState(v));
      load.push_back(getState(v));
    }
    std::vector<StmtRef> replayBody;
    appendFlat(replayBody, s->body);
    replayBody = withIndex(varRef(k), replayBody);
    StmtRef replay = forStmt(decl(k, field("step", i64)),
                             binary(BinaryOp::Lt, varRef(k), field("to", i64)),
                             assign(varRef(k), intLit(1, i64), AssignOp::Add), block(replayBody));
    std::vector<StmtRef> taped = withIndex(field("step", i64), reverseAction);
    StmtRef dispatch = ifStmt(
        is("isStore"), block(save),
        ifStmt(is("isRestore"), block(load),
               ifStmt(is("isAdvance"), block({comment("replay iterations without taping them"), replay}),
                      ifStmt(is("isReverse"), block(taped), block({breakStmt()})))));
    return forStmt(nullptr, nullptr, nullptr,
                   block({decl(action, method(checkpoints, "next", ScalarType::voidType())), dispatch}));
  };

  Sweeps out;
  out.fwd.push_back(comment(
      "loop over " + i->name + ": at run time, tape every iteration if that fits the memory "
      "budget, else keep snapshots of its state (" + stateNames + ") on a binomial schedule and "
      "replay iterations in the reverse sweep"));
  out.fwd.push_back(decl(steps, stepsValue));
  // With a budget in force, measure the tape of one iteration: keep the
  // state, run iteration 0 taped, drop what it pushed, put the state back.
  Var *measured = makeTemp(m, i->name + "_iteration_bytes", ScalarType::doubleType());
  Var *mark = makeTemp(m, i->name + "_mark", ScalarType{ScalarType::Integer, "std::size_t"}, true);
  out.fwd.push_back(decl(measured, floatLit(iterationBytes, ScalarType::doubleType())));
  {
    std::vector<StmtRef> probe{
        eval(method(checkpoints, "beginProbe", ScalarType::voidType(),
                    {intLit(static_cast<int64_t>(stateBytes), i64)})),
        eval(method(checkpoints, "beginSave", ScalarType::voidType(), {intLit(0)}))};
    for (Var *v : state)
      probe.push_back(putState(v));
    probe.push_back(decl(mark, opaque("cgp_tape.bytes", mark->elem, {})));
    probe.push_back(decl(first, start));
    probe.push_back(scope(withIndex(intLit(0, i64), inner.fwd)));
    probe.push_back(assign(varRef(measured),
                           cast(ScalarType::doubleType(),
                                binary(BinaryOp::Sub, opaque("cgp_tape.bytes", mark->elem, {}),
                                       varRef(mark)))));
    probe.push_back(eval(opaque("cgp_tape.discardTo", ScalarType::voidType(), {varRef(mark)})));
    probe.push_back(eval(method(checkpoints, "beginLoad", ScalarType::voidType(), {intLit(0)})));
    for (Var *v : state)
      probe.push_back(getState(v));
    probe.push_back(eval(method(checkpoints, "endProbe", ScalarType::voidType())));
    ExprRef budgetInForce =
        binary(BinaryOp::Ge,
               opaque("cgp::rt::memoryBudget", i64, {intLit(options_.memoryBudget, i64)}),
               intLit(0, i64));
    out.fwd.push_back(ifStmt(binary(BinaryOp::LAnd, budgetInForce,
                                    binary(BinaryOp::Gt, varRef(steps), one)),
                             scope(probe)));
  }
  out.fwd.push_back(decl(snapshots,
                         opaque("cgp::rt::planLoopReversal", ScalarType::intType(),
                                {varRef(site), varRef(steps), varRef(measured),
                                 intLit(static_cast<int64_t>(stateBytes), i64),
                                 floatLit(afterBytes, ScalarType::doubleType()),
                                 intLit(options_.memoryBudget, i64)})));

  // Forward phase: run to the last iteration, taped; keep it for the reverse.
  std::vector<StmtRef> taped = inner.fwd;
  taped.push_back(breakStmt());
  std::vector<StmtRef> forward{decl(first, start),
                               eval(method(checkpoints, "start", ScalarType::voidType(),
                                           {varRef(steps), varRef(snapshots),
                                            intLit(static_cast<int64_t>(stateBytes), i64)})),
                               scheduleLoop(taped)};
  if (start->kind != ExprKind::IntLit)
    forward.push_back(push(varRef(first)));
  out.fwd.push_back(ifStmt(binary(BinaryOp::Eq, varRef(snapshots), intLit(0)),
                           block(storeAll.fwd), block(forward)));
  out.fwd.push_back(push(varRef(snapshots)));

  // Reverse phase: the iteration taped in the forward sweep, then the rest
  // of the schedule, each iteration run taped and reversed at once.
  std::vector<StmtRef> last =
      withIndex(binary(BinaryOp::Sub, method(checkpoints, "steps", i64), one), inner.rev);
  // The taped run and its reverse declare the same temporaries: two scopes.
  std::vector<StmtRef> both{scope(inner.fwd), scope(inner.rev)};
  std::vector<StmtRef> reverse;
  reverse.push_back(decl(first, start->kind == ExprKind::IntLit ? start : tapePop(it)));
  reverse.push_back(scope(last));
  reverse.push_back(scheduleLoop(both));
  reverse.push_back(eval(method(checkpoints, "finish", ScalarType::voidType())));
  out.rev.push_back(comment("reverse of the loop over " + i->name +
                            ": from the tape of every iteration, or from the snapshots"));
  out.rev.push_back(decl(snapshots, tapePop(ScalarType::intType())));
  out.rev.push_back(ifStmt(binary(BinaryOp::Eq, varRef(snapshots), intLit(0)),
                           block(storeAll.rev), block(reverse)));
  return out;
}

} // namespace cgp
