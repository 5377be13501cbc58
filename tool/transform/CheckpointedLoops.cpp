//===- CheckpointedLoops.cpp - loops reversed from snapshots --------------===//
//
// A counted loop of a kernel, whose trip count is known at its entry and
// whose body writes only scalars, local arrays, std::vector locals (their
// elements, or only the size of one it appends to: analysis/Appends.h) and
// a span of the caller's buffers known at its entry (SpanCode.cpp; its
// "state"), gets two
// ways to be reversed, chosen at run time by the runtime's
// planLoopReversal() against the memory budget:
//
//   - tape every iteration (the code store-all would write), or
//   - binomial checkpointing on segments of k iterations (k = 1 when the
//     budget leaves tape room for one iteration only): the forward sweep
//     runs the loop untaped, keeping snapshots of the state where the
//     schedule says, and runs its last segment taped; the reverse sweep
//     reverses those iterations, then follows the schedule: restore a
//     snapshot, replay iterations untaped, run a segment taped and reverse
//     it, last iteration first, and so on down to the first.
//
// Replays run the same statements on the same state, so gradients are the
// same bits either way; only memory and time move.
//
// Nested loops plan each level: a loop inside another plans at each of its
// runs, against the bytes in use then (the snapshots of the loops around
// it, the tape of their segment). Its runs are reversed last first, after
// the runs that follow them: suspend() puts each run's schedule aside at
// the end of its forward phase and resume() takes it back. A loop with
// such loops inside tells the runtime (nestedPlans) and runs no probe:
// under a budget it tapes its iterations while they hold less than half
// the room (the loops inside plan within that half), then keeps snapshots
// in at most half of what is left and reverses the other iterations one
// at a time, whatever they tape. A loop whose
// iteration's tape TapeBound knows (exactly, or at the most when its
// branches tape more or less) plans with that and runs no probe either.
//
//===----------------------------------------------------------------------===//
#include "transform/Sweeps.h"

#include "analysis/Appends.h"
#include "analysis/Liveness.h"
#include "analysis/RowWrites.h"
#include "analysis/WrittenSpans.h"
#include "ir/Printer.h"
#include "planner/CostModel.h"
#include "transform/CheckpointCode.h"
#include "transform/CountedLoops.h"
#include "transform/Declarations.h"
#include "transform/TapeBound.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace cgp {

/// CUDA: true if `s` does what threads do together, which one thread cannot
/// run again on its own in a replayed iteration (its neighbours follow
/// schedules of their own): a barrier, a warp collective (a shuffle, a vote),
/// in `s` or in a function it calls, or a read of __shared__ memory, which
/// other threads write.
static bool needsThreadsTogether(const StmtRef &s, std::set<const Function *> &seen) {
  static const char *const kCollectives[] = {"__shfl", "__ballot", "__any_sync", "__all_sync",
                                             "__syncwarp", "__activemask", "__match",
                                             "__reduce"};
  bool together = false;
  forEachStmt(s, [&](const StmtRef &n) {
    together |= isBarrier(n);
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->var && x->var->blockShared)
          together = true;
        for (const char *name : kCollectives)
          together |= x->kind == ExprKind::Opaque && x->calleeName.rfind(name, 0) == 0;
        const Function *callee = x->kind == ExprKind::Call ? x->callee : nullptr;
        if (callee && !callee->pullback.empty())
          together |= callee->pullback.rfind("cgp::dev::shfl", 0) == 0;
        else if (callee && callee->body && seen.insert(callee).second)
          together |= needsThreadsTogether(callee->body, seen);
      });
  });
  return together;
}

bool SweepBuilder::canCheckpoint(const StmtRef &s, std::vector<Var *> &state,
                                 std::string &why) const {
  if (!f_.isKernel || options_.storeAll)
    return false;
  std::set<const Function *> seen;
  if (options_.device && needsThreadsTogether(s->body, seen)) {
    why = "on the device, its iterations hold a barrier, a warp collective or a read of "
          "__shared__ memory, which a thread cannot run again on its own";
    return false;
  }
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
  const ExprRef &bound = cond->operands[1];
  if (hasEffectfulCall(bound)) {
    why = "its bound calls a function";
    return false;
  }
  return loopState(s, index, {bound}, state, why);
}

/// Adds what statement `n` itself writes to `written`: what it assigns or
/// declares, and what its calls write through the addresses they are given
/// (per the callee's summary; those go to `writtenByCall` too).
static void collectWrites(const StmtRef &n, Summaries &sums, ConstVarSet &written,
                          ConstVarSet &writtenByCall) {
  if (n->kind == StmtKind::Assign)
    written.insert(n->lhs->var);
  if (n->kind == StmtKind::Decl)
    written.insert(n->var);
  for (const ExprRef &e : ownExprs(n))
    forEachExpr(e, [&](const ExprRef &x) {
      if (x->kind != ExprKind::Call)
        return;
      const FunctionSummary &sum = sums.of(x->callee);
      for (size_t a = 0; a < x->operands.size(); ++a)
        if (x->operands[a]->kind == ExprKind::Address && sum.writesParam[a]) {
          written.insert(x->operands[a]->var);
          writtenByCall.insert(x->operands[a]->var);
        }
    });
}

/// Calls `fn(loop, around)` on every loop inside `s` (`s` too), with the
/// innermost loop around it (`around` for those not inside another).
template <class Fn> static void forEachLoop(const StmtRef &s, const StmtRef &around, Fn &&fn) {
  if (!s)
    return;
  bool loop = s->kind == StmtKind::For || s->kind == StmtKind::While ||
              s->kind == StmtKind::DoWhile;
  if (loop)
    fn(s, around);
  const StmtRef &inner = loop ? s : around;
  forEachChild(s, [&](const StmtRef &c) { forEachLoop(c, inner, fn); });
}

bool SweepBuilder::leftToLoopsAround(const StmtRef &s, const StmtRef &around,
                                     bool planningAround) const {
  if (!planningAround || !around || s->kind != StmtKind::For || !s->counted.index)
    return false;
  if (knownTripCount(s))
    return true;
  if (!s->init || s->init->kind != StmtKind::Decl || !s->init->value ||
      s->value->kind != ExprKind::Binary)
    return false;
  auto [at, fresh] = writtenByLoop_.try_emplace(around.get());
  ConstVarSet &written = at->second;
  if (fresh) {
    ConstVarSet unused;
    forEachStmt(around, [&](const StmtRef &n) { collectWrites(n, sums_, written, unused); });
  }
  std::vector<Var *> reads;
  collectVars(s->init->value, reads);
  collectVars(s->value->operands[1], reads);
  for (Var *v : reads)
    if (written.count(v))
      return false;
  return true;
}

bool SweepBuilder::loopState(const StmtRef &s, const Var *index,
                             const std::vector<ExprRef> &fixed, std::vector<Var *> &state,
                             std::string &why) const {
  // What the body (and the step) writes: assignments, and what its calls
  // write through the pointers they are given (per the callee's summary).
  ConstVarSet written, writtenByCall, taped;
  auto scan = [&](const StmtRef &n) {
    // The forward sweep keeps its old value, or the reverse sweep gets it
    // back from the new one by the inverse update: either way the reverse
    // needs what the iterations before left there.
    if (n->kind == StmtKind::Assign &&
        (tbr.pushes.count(n.get()) || tbr.inverts.count(n.get())))
      taped.insert(n->lhs->var);
    collectWrites(n, sums_, written, writtenByCall);
  };
  forEachStmt(s->body, scan);
  if (!index)
    forEachStmt(s->step, scan); // a counted loop's step writes only its index
  for (const ExprRef &e : fixed) {
    std::vector<Var *> vars;
    collectVars(e, vars);
    for (Var *v : vars)
      if (written.count(v)) {
        why = "its bound changes inside it";
        return false;
      }
  }
  bool opaqueStatement = false;
  auto findOpaque = [&](const StmtRef &n) {
    opaqueStatement |= n->kind == StmtKind::Eval && n->value->kind == ExprKind::Opaque &&
                       !isProfileHook(n) &&   // the runtime does not count replays
                       !isAssertion(n) &&     // a check runs again as it ran
                       !isStorageUpkeep(n);   // a vector sized again to its size
  };
  forEachStmt(s->body, findOpaque);
  forEachStmt(s->step, findOpaque);
  if (opaqueStatement) {
    why = "it calls a function without body for its effects, which a replay would repeat";
    return false;
  }
  // Variables declared inside the body live only within one iteration:
  // they are not state, taped or not. Their declarations have moved to the
  // top of the function, and Var::loopDepth remembers how deep in loops
  // they were: deeper than this loop means inside its body (its enclosing
  // scopes are the bodies of the loops around it, less deep). A replay may
  // leave another iteration's values in them; nothing reads those, since
  // the code before and after the loop cannot name them and each iteration
  // writes them before reading. Leaving out the LSTM's gate
  // pre-activations (declared in the step's body) cuts its snapshot from
  // 6 KiB to 2 KiB, three times as many snapshots for the same budget.
  // Variables declared in the body of a loop around this one are state if
  // this loop writes them. In a nested loop, so are those declared in its
  // body whose old values the forward sweep tapes: the tape's restores
  // chain their values from one run of this loop to the next, and the
  // reverse of the previous run reads the value this run's first iteration
  // tapes (a replay or a probe would leave another one there).
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
  std::vector<const Var *> inPlace;
  for (const Var *v : written) {
    if (v == index)
      continue;
    if (v->loopDepth > loopDepth() &&
        (loopDepth() == 0 || (!taped.count(v) && !writtenByCall.count(v))))
      continue;
    if (v->isScalar() && !live.count(const_cast<Var *>(v)) && !taped.count(v) &&
        !writtenByCall.count(v))
      continue;
    if (v->ownsStorage && v->origin == Var::Local && !options_.device) {
      // A std::vector local: its snapshot holds its elements, as many as
      // it has when the loop starts. One the loop only appends to needs
      // none: its size, in the state, is enough; one each iteration
      // empties first needs neither (Appends.h). Unless the forward sweep
      // tapes the elements the loop overwrites: what they held before the
      // loop (a loop around it may read them) would be gone when a replay
      // tapes them.
      if (written.count(v->sizeVar)) {
        if (!writtenByCall.count(v) && !taped.count(v) &&
            (onlyAppends(s, v, &f_) || clearedFirst(s, v)))
          continue;
        // One that never grows past its size at the loop's entry: those
        // elements, a span of it, with its size.
        if (!writtenByCall.count(v) && sizeNeverGrows(s, v)) {
          vars.push_back(vectorSpanVar(s, v));
          continue;
        }
        why = "it resizes the std::vector '" + sourceName(*v) +
              "' and overwrites elements it held at the loop's entry";
        return false;
      }
    } else if (v->isPointer() && v->origin == Var::Param) {
      // The caller's buffer: left in place, not in the state, when the
      // loop fills it a row per iteration from rows written before (a
      // trajectory), so that replays find there what the first run found.
      if (options_.device || writtenByCall.count(v)) {
        why = "it writes the caller's memory ('" + sourceName(*v) + "'), which snapshots do not hold";
        return false;
      }
      auto analysed = rowFills_.find(s.get());
      const RowFill fill = analysed != rowFills_.end() && analysed->second.count(v)
                               ? analysed->second.at(v)
                               : analyzeRowFill(f_, s, v); // a loop inside another, say
      std::string rowsWhy;
      if (fill.holds(taped.count(v) > 0, rowsWhy)) {
        inPlace.push_back(v);
        continue;
      }
      // Else snapshots hold the elements it overwrites, if they are known
      // at the loop's entry (an update in place: `h[i]` at every step).
      std::string spanWhy;
      Var *span = spanVar(s, v, spanWhy);
      if (!span) {
        why = spanWhy.empty() ? rowsWhy : spanWhy;
        return false;
      }
      vars.push_back(span);
      continue;
    } else if (v->isPointer() || v->origin == Var::Global) {
      why = "it writes memory outside the kernel ('" + sourceName(*v) + "')";
      return false;
    }
    vars.push_back(const_cast<Var *>(v));
  }
  std::sort(vars.begin(), vars.end(), VarLess());
  state = vars;
  if (inPlace.empty())
    rowsInPlace_.erase(s.get());
  else
    rowsInPlace_[s.get()] = inPlace;
  return true;
}

std::string SweepBuilder::stateText(const StmtRef &s, const std::vector<Var *> &state,
                                    bool asWritten) const {
  std::string text = state.empty() ? "nothing" : cgp::stateNames(state, asWritten);
  auto rows = rowsInPlace_.find(s.get());
  if (rows == rowsInPlace_.end())
    return text;
  std::string buffers;
  for (const Var *v : rows->second)
    buffers += (buffers.empty() ? "" : ", ") + (asWritten ? sourceName(*v) : v->name);
  return text + "; the rows it writes of " + buffers + " stay in place";
}

std::map<const StmtNode *, double> SweepBuilder::loopSnapshotBytes() const {
  std::map<const StmtNode *, double> bytes;
  forEachStmt(f_.body, [&](const StmtRef &s) {
    std::vector<Var *> state;
    std::string why;
    if (s->kind == StmtKind::For && s->counted.index && canCheckpoint(s, state, why))
      bytes[s.get()] = snapshotBytes(state);
  });
  return bytes;
}

bool SweepBuilder::addReplayInputs() {
  if (!f_.isKernel || options_.storeAll)
    return false;
  bool added = false;
  // Per loop, visited outer first: how many loops are around it, and
  // whether it or a loop around it may plan its reversal under a budget
  // (then a loop inside whose runs all tape alike is left to it, and never
  // replays on its own: the loop around replays whole iterations, which
  // compute its inputs again).
  std::map<const StmtNode *, std::pair<int, bool>> level;
  const bool budget = options_.memoryBudget >= 0;
  forEachLoop(f_.body, nullptr, [&](const StmtRef &s, const StmtRef &around) {
    const auto [depth, planningAround] =
        around ? std::make_pair(level.at(around.get()).first + 1, level.at(around.get()).second)
               : std::make_pair(0, false);
    const bool counted = s->kind == StmtKind::For && s->counted.index;
    const LoopDecision *decision = plan.loopDecision(s.get());
    const double share = decision ? decision->replayShare : 0;
    // As sweepLoop decides: a counted loop that can keep snapshots (those
    // of snapshotBytes_), unless left to the loops around it, else under a
    // budget one checkpointed online.
    std::vector<Var *> state;
    std::string why;
    bool plans = counted && (budget || share > 0) && (!options_.device || depth == 0) &&
                 snapshotBytes_.count(s.get());
    if (plans && budget && leftToLoopsAround(s, around, planningAround))
      plans = false;
    else if (!plans && budget && !options_.device)
      plans = canCheckpointOnline(s, state, why);
    level[s.get()] = {depth, planningAround || (plans && budget)};
    // A loop whose iterations tape nothing is taped (it runs as it is); a
    // call may tape in its forward sweep.
    bool tapes = false;
    forEachStmt(s, [&](const StmtRef &n) {
      tapes |= tbr.pushes.count(n.get()) > 0;
      for (const ExprRef &e : ownExprs(n))
        forEachExpr(e, [&](const ExprRef &x) { tapes |= x->kind == ExprKind::Call; });
    });
    if (!plans || !tapes)
      return;
    ConstVarSet written, unused;
    std::vector<Var *> read;
    forEachStmt(s, [&](const StmtRef &n) {
      collectWrites(n, sums_, written, unused);
      if (isStorageUpkeep(n)) // reads the vector's storage, not its elements
        return;
      for (const ExprRef &e : ownExprs(n))
        collectVars(e, read);
    });
    // A vector the loop only appends to keeps, for its replays, the
    // elements it had: they are read as if the loop did not write them.
    auto replayReads = [&](const Var *v) {
      return !written.count(v) || (v->ownsStorage && v->origin == Var::Local &&
                                   !unused.count(v) && onlyAppends(s, v, &f_));
    };
    VarSet &atEnd = reads_[s.get()];
    for (Var *v : read)
      if (replayReads(v) && !(counted && v == s->counted.index) && !adj_.isGenerated(v) &&
          atEnd.insert(v).second)
        added = true;
  });
  return added;
}

void SweepBuilder::loopBytes(const StmtRef &s, const std::vector<Var *> &state, double &stateBytes,
                             std::string &stateNames, double &iterationBytes, double &afterBytes,
                             double &laterLoopsBytes) const {
  // What the run-time plan needs: bytes of the state, of one taped
  // iteration, and of what the rest of the kernel pushes after the loop.
  Frequencies freq = estimateFrequencies(f_, profileOf(options_.profile.get(), f_));
  stateBytes = snapshotBytes(state);
  stateNames = stateText(s, state, /*asWritten=*/false);
  // Estimates when compiling; with a budget in force the run measures one
  // taped iteration instead.
  double perIteration = std::max(freq.of(s->body.get()), 1.0);
  iterationBytes = 16;
  afterBytes = laterLoopsBytes = 0;
  // What follows the loop until its reverse: the rest of the kernel, or
  // for a nested loop the rest of one iteration of the loop around it
  // (planned per iteration, that loop tapes one at a time, or they all
  // fit). Loops there that may plan their own reversal fit themselves in
  // what is left: their tapes (which estimates with default trip counts
  // inflate) count apart, in laterLoopsBytes, and the runtime keeps them
  // at most half the room. As in sweepLoop, a loop plans only below
  // kPlannedLevels planned loops, and a nested one not when its trip count
  // is a constant.
  StmtRef region = f_.body;
  double perScope = 1;
  std::set<const StmtNode *> adapts;
  // The least each of those loops needs, kept out of this loop's room
  // whole: its snapshots (two for a loop of unknown trip count), its
  // records, and one iteration's tape, as far as it is sure (loops inside
  // count their records only: their trip counts, defaults when unknown,
  // would inflate it; a branch its record), and the least of the loops
  // inside it that plan too. Without it, a loop could take all the room
  // and leave the next less than its minimum (fuzz seed 6131: a counted
  // loop left its last segment of 63 iterations, 1953 bytes of a 2 KiB
  // budget, on the tape, and the loop after it, which needs 84, found 12).
  std::map<const StmtNode *, double> leastOfLoop;
  const StmtNode *outermost = nullptr;
  if (!enclosingLoops_.empty()) {
    region = enclosingLoops_.back()->body;
    perScope = std::max(freq.of(region.get()), 1.0);
  }
  auto oneIteration = [&](const StmtRef &loop) {
    double perIteration = std::max(freq.of(loop->body.get()), 1.0), bytes = 0;
    std::function<void(const StmtRef &)> visit = [&](const StmtRef &x) {
      if (!x)
        return;
      if (x->kind == StmtKind::For || x->kind == StmtKind::While ||
          x->kind == StmtKind::DoWhile) {
        bytes += 16 * freq.of(x.get()) / perIteration;
        return;
      }
      if (x->kind == StmtKind::Assign && tbr.pushes.count(x.get()))
        bytes += scalarBytes(x->lhs->var->elem) * freq.of(x.get()) / perIteration;
      if (x->kind == StmtKind::If)
        bytes += 1;
      for (const StmtRef &c : x->stmts)
        visit(c);
      for (const StmtRef *c : {&x->body, &x->elseBody})
        visit(*c);
      for (const SwitchCase &c : x->cases)
        for (const StmtRef &b : c.body)
          visit(b);
    };
    visit(loop->body);
    return bytes;
  };
  forEachLoop(region, enclosingLoops_.empty() ? nullptr : enclosingLoops_.back(),
              [&](const StmtRef &n, const StmtRef &around) {
                std::vector<Var *> loopState;
                std::string why;
                // As sweepLoop decides: a counted loop that may leave early
                // is checkpointed online.
                bool counted = n->kind == StmtKind::For && n->counted.index;
                bool online = !counted || !canCheckpoint(n, loopState, why);
                if (n.get() == s.get() || plannedSites_.size() >= kPlannedLevels ||
                    (!online && leftToLoopsAround(n, around, !plannedSites_.empty())) ||
                    (online && !canCheckpointOnline(n, loopState, why)))
                  return;
                double least = (online ? 2 : 1) * snapshotBytes(loopState) + 16 + oneIteration(n);
                // Loops come outer first, each nest in one go: a loop inside
                // one that plans counts in the last outermost one's least.
                if (!adapts.count(n.get()))
                  outermost = n.get();
                leastOfLoop[outermost] += least;
                forEachStmt(n->body, [&](const StmtRef &x) { adapts.insert(x.get()); });
              });
  std::set<const StmtNode *> inLoop;
  forEachStmt(s, [&](const StmtRef &n) { inLoop.insert(n.get()); });
  bool after = false;
  forEachStmt(region, [&](const StmtRef &n) {
    bool pushes = n->kind == StmtKind::Assign && tbr.pushes.count(n.get());
    if (n.get() == s.get())
      after = true;
    else if (inLoop.count(n.get())) {
      if (pushes)
        iterationBytes += scalarBytes(n->lhs->var->elem) * freq.of(n.get()) / perIteration;
      bool tapesBounds = n->kind == StmtKind::While || n->kind == StmtKind::DoWhile ||
                         (n->kind == StmtKind::For && !boundsAgain_.count(n.get()));
      if (tapesBounds) // its trip count (and first index)
        iterationBytes += 16 * freq.of(n.get()) / perIteration;
    } else if (after && pushes) {
      (adapts.count(n.get()) ? laterLoopsBytes : afterBytes) +=
          scalarBytes(n->lhs->var->elem) * freq.of(n.get()) / perScope;
    } else if (auto least = leastOfLoop.find(n.get()); after && least != leastOfLoop.end()) {
      afterBytes += least->second;
    }
  });
}

SweepBuilder::Sweeps SweepBuilder::sweepCheckpointedLoop(const StmtRef &s, const Sweeps &inner,
                                                         const std::vector<Var *> &state,
                                                         bool plansInside, Var *outerSite,
                                                         double replayShare) {
  runTimePlans_.insert(s.get());
  Module &m = adj_.module();
  Var *i = s->counted.index;
  const ScalarType &it = i->elem;
  ScalarType i64 = ScalarType::int64Type();
  int64_t by = s->counted.step;
  const ExprRef &start = s->init->value;

  double stateBytes = 0, iterationBytes = 0, afterBytes = 0, laterLoopsBytes = 0;
  std::string stateNames;
  loopBytes(s, state, stateBytes, stateNames, iterationBytes, afterBytes, laterLoopsBytes);

  // Device code: the thread's own objects, locals of its gradient
  // (cgp/device_checkpoint.h); the host's are thread_local (checkpoint.h).
  const bool device = options_.device;
  Var *checkpoints = newRuntimeObject(m, i->name + "_checkpoints",
                                       device ? "cgp::dev::LoopCheckpoints"
                                              : "thread_local cgp::rt::LoopCheckpoints");
  Var *site = loopSite(s);
  topDecls.push_back(siteDecl(site, s, device));
  topDecls.push_back(decl(checkpoints));
  Var *steps = makeTemp(m, i->name + "_steps", i64, true);
  Var *snapshots = makeTemp(m, i->name + "_snapshots", ScalarType::intType(), true);
  Var *first = makeTemp(m, i->name + "_start", it, true);
  // Iterations rebuild their index from `first`; a body that never reads
  // its index needs neither (nor a place on the tape).
  bool indexUsed = iterationsReadIndex(s, inner.fwd, inner.rev, i);
  bool pushFirst = indexUsed && !knownInteger(start); // a known first is spelled again
  Var *action = newRuntimeObject(m, i->name + "_action",
                                  device ? "cgp::dev::ScheduleAction" : "cgp::rt::ScheduleAction");
  action->isConst = true;
  Var *k = makeTemp(m, i->name + "_step", i64);

  // steps = the trip count, from the start and the bound
  ExprRef stepsValue = tripCountExpr(s, start);
  // `int t = t_start + step * by;` before statements that use the index.
  auto replay = [&](const ExprRef &number) {
    std::vector<StmtRef> body;
    appendFlat(body, s->body);
    return withIndex(i, first, by, number, body);
  };
  auto tape = [&](const ExprRef &number) { return withIndex(i, first, by, number, inner.fwd); };
  auto reverseOne = [&](const ExprRef &number) {
    return withIndex(i, first, by, number, inner.rev);
  };

  TapeBound bound = boundTape(inner.fwd);
  // What an iteration tapes varies by its branches (TapeBound gives the
  // most), or a probe measures one iteration: the runtime may tape the
  // first iterations while they fit and plan the rest from what they took.
  // (Not on the device: there the plan takes the most, TapeBound's.)
  const bool bytesVary = !device && !plansInside && (bound.varies() || !bound.known);
  // Either way, or with loops inside that plan (an iteration holds what
  // they meet), under a budget the runtime may tape the first iterations
  // while they fit and plan the rest in the room they leave.
  const bool tapesFirst = bytesVary || plansInside;
  // Variables whose old values the body tapes (or its calls write) that
  // snapshots leave out (declared in the body): where the iterations taped
  // first end, a Keep action puts them on the tape, and the reverse sweep
  // takes them back before reversing those iterations. The reverse of the
  // last of them reads them as the reverse of the next one restores them,
  // and that one ran again from a snapshot that does not hold them
  // (rnn_inplace.cpp's rnn_loss under 2 KiB, its `a`, gave wrong
  // gradients without it).
  std::vector<Var *> kept;
  if (tapesFirst) {
    ConstVarSet tapedOrCalled, unused;
    forEachStmt(s->body, [&](const StmtRef &n) {
      if ((n->kind == StmtKind::Assign || n->kind == StmtKind::Decl) &&
          (tbr.pushes.count(n.get()) || tbr.inverts.count(n.get())))
        tapedOrCalled.insert(n->kind == StmtKind::Assign ? n->lhs->var : n->var);
      collectWrites(n, sums_, unused, tapedOrCalled);
    });
    // The caller's rows left in place need nothing kept: the reverse of
    // an iteration puts back only the row it wrote, which no other reads.
    auto rows = rowsInPlace_.find(s.get());
    auto inPlace = [&](const Var *v) {
      return rows != rowsInPlace_.end() &&
             std::find(rows->second.begin(), rows->second.end(), v) != rows->second.end();
    };
    // Nor the elements of a buffer that the snapshots hold a span of.
    auto spanned = [&](const Var *v) {
      return std::any_of(state.begin(), state.end(), [&](const Var *x) { return x->spanOf == v; });
    };
    for (const Var *v : tapedOrCalled)
      if (v != i && std::find(state.begin(), state.end(), v) == state.end() && !inPlace(v) &&
          !spanned(v))
        kept.push_back(const_cast<Var *>(v));
    std::sort(kept.begin(), kept.end(), VarLess());
  }
  Sweeps out;
  std::string plainly = "at run time, ";
  if (device && replayShare > 0)
    plainly = "in each thread, tape every iteration if that holds at most " +
              std::to_string(kDeviceLocalTapeBytes) + " bytes, else tape the last iterations "
              "and run the first " + shareText(replayShare) + " again from snapshots of its "
              "state (" + stateNames + ") if that holds less (the plan's replay allowance)";
  else if (device)
    plainly = "in each thread, tape every iteration if that fits the memory budget of a "
              "thread, else keep snapshots of its state (" + stateNames + ") on a binomial "
              "schedule and replay iterations in the reverse sweep";
  else if (replayShare > 0)
    plainly += "with no budget in force, tape the last iterations and run the first " +
               shareText(replayShare) + " again (the plan's replay allowance) if that holds "
               "less; under CGP_MEMORY_BUDGET, ";
  if (!device)
    plainly += "tape every iteration if that fits the memory budget, else keep snapshots of its "
               "state (" + stateNames + ") on a binomial schedule and replay iterations in the "
               "reverse sweep";
  appendAll(out.fwd, spanCode(s, state));
  out.fwd.push_back(comment(
      "loop over " + i->name + ": " + plainly + describeBound(bound) +
      (tapesFirst ? "; the first iterations may be taped while they fit, and the rest planned "
                    "in the room they leave"
                  : "")));
  out.fwd.push_back(decl(steps, stepsValue));
  // With a budget in force, measure the tape of one iteration: keep the
  // state, run iteration 0 taped, drop what it pushed, put the state back.
  // Not when loops inside plan their own reversal: an iteration's tape then
  // depends on what they meet, and the runtime plans without it. Not when
  // TapeBound knows what an iteration tapes: exactly, or at the most when
  // branches tape different amounts; the plan takes that.
  Var *measured = makeTemp(m, i->name + "_iteration_bytes", ScalarType::doubleType());
  Var *mark = makeTemp(m, i->name + "_mark", ScalarType{ScalarType::Integer, "std::size_t"}, true);
  if (bound.known)
    iterationBytes = bound.most;
  warnBelowMinimum(s, 1, stateBytes, bound.known && !plansInside ? iterationBytes : 0);
  out.fwd.push_back(decl(measured, floatLit(iterationBytes, ScalarType::doubleType())));
  if (!plansInside && !bound.known) {
    std::vector<StmtRef> probe =
        probeIteration(checkpoints, state, measured, mark,
                       indexUsed ? std::vector<StmtRef>{decl(first, start)} : std::vector<StmtRef>{},
                       withIndex(i, first, by, intLit(0, i64), inner.fwd));
    out.fwd.push_back(ifStmt(binary(BinaryOp::LAnd,
                                    roomLeftBy(outerSite, budgetInForce(options_.memoryBudget)),
                                    binary(BinaryOp::Gt, varRef(steps), intLit(1, i64))),
                             scope(probe)));
  }
  PlanCallOptions call;
  call.nestedPlans = plansInside;
  call.laterLoopsBytes = laterLoopsBytes;
  call.keptBytes = snapshotBytes(kept);
  call.replayShare = replayShare;
  if (replayShare > 0 && loopDepth() > 0)
    call.runsPerCall = std::round(plan.loopDecision(s.get())->runs);
  call.iterationTapes = !tapesFirst       ? PlanCallOptions::Tapes::Alike
                        : kept.empty()      ? PlanCallOptions::Tapes::Unevenly
                                            : PlanCallOptions::Tapes::UnevenlyKeepingLocals;
  ExprRef planCall =
      device ? opaque("cgp::dev::planLoopReversal", ScalarType::intType(),
                      {runtimeConstant("cgp_tape", ScalarType{ScalarType::Integer, "cgp::dev::Tape"}),
                       varRef(site), varRef(steps), varRef(measured), snapshotBytesValue(state),
                       floatLit(afterBytes, ScalarType::doubleType()),
                       intLit(options_.memoryBudget, i64),
                       floatLit(laterLoopsBytes, ScalarType::doubleType()),
                       floatLit(replayShare, ScalarType::doubleType())})
             : planReversal(false,
                            {varRef(site), varRef(steps), varRef(measured),
                             snapshotBytesValue(state),
                             floatLit(afterBytes, ScalarType::doubleType()),
                             intLit(options_.memoryBudget, i64)},
                            call, outerSite);
  out.fwd.push_back(decl(snapshots, planCall));

  // Forward phase: run to the last segment, taped; keep it for the reverse.
  // With no snapshots (every iteration taped), the schedule is one Tape
  // action of every iteration, then their Reverse action: the loop's
  // bodies are written once each, whichever the plan.
  std::vector<StmtRef> forward;
  if (indexUsed)
    forward.push_back(decl(first, start));
  forward.push_back(eval(method(checkpoints, "start", ScalarType::voidType(),
                                {varRef(steps), varRef(snapshots), snapshotBytesValue(state),
                                 varRef(site)})));
  forward.push_back(scheduleLoop(checkpoints, action, k, state, replay, tape, nullptr, kept));
  forward.push_back(eval(method(checkpoints, "hold", ScalarType::voidType())));
  if (loopDepth() > 0) // runs again before this run is reversed
    forward.push_back(eval(method(checkpoints, "suspend", ScalarType::voidType())));
  appendAll(forward, keepSpans(state));
  if (pushFirst)
    forward.push_back(push(varRef(first)));
  out.fwd.push_back(scope(forward));

  // Reverse phase: the schedule, from the Reverse action the forward phase
  // stopped at (the last segment), each segment run taped and reversed.
  std::vector<StmtRef> reverse;
  if (loopDepth() > 0)
    reverse.push_back(eval(method(checkpoints, "resume", ScalarType::voidType())));
  if (indexUsed)
    reverse.push_back(decl(first, pushFirst ? tapePop(it) : start));
  appendAll(reverse, takeSpans(state));
  reverse.push_back(scheduleLoop(checkpoints, action, k, state, replay, tape, reverseOne, kept));
  reverse.push_back(eval(method(checkpoints, "finish", ScalarType::voidType())));
  out.rev.push_back(comment("reverse of the loop over " + i->name +
                            ": from the tape of every iteration, or from the snapshots"));
  out.rev.push_back(scope(reverse));
  return out;
}

void SweepBuilder::warnUnheld(const StmtRef &s, const std::string &why,
                              const std::vector<StmtRef> &iteration) {
  // A loop inside another is held by the loop around it when that one
  // plans, and warned about with it when it cannot: only outermost loops.
  if (options_.memoryBudget < 0 || !warn_ || options_.device || !f_.isKernel || loopDepth() > 0)
    return;
  TapeBound bound = boundTape(iteration);
  std::optional<int64_t> known = s->kind == StmtKind::For ? knownTripCount(s) : std::nullopt;
  const int64_t trips = known.value_or(-1);
  if (bound.known && trips >= 0 &&
      bound.most * static_cast<double>(trips) <= static_cast<double>(options_.memoryBudget))
    return;
  auto bytes = [](double b) { return std::to_string(static_cast<long long>(b)) + " bytes"; };
  std::string what = s->kind == StmtKind::For && s->counted.index
                         ? "the loop over '" + sourceName(*s->counted.index) + "'"
                         : "this loop";
  std::string tapes = !bound.known ? "an amount known only at run time"
                      : bound.varies() ? "up to " + bytes(bound.most)
                                       : bytes(bound.most);
  warn_(s->pos, what + " cannot be held in --memory-budget=" +
                    std::to_string(options_.memoryBudget) + ": " + why + "; each iteration " +
                    "tapes " + tapes + ", all kept until the reverse sweep" +
                    (bound.known && trips >= 0
                         ? " (" + bytes(bound.most * static_cast<double>(trips)) + " for its " +
                               std::to_string(trips) + " iterations)"
                         : ""));
}

void SweepBuilder::warnBelowMinimum(const StmtRef &s, int snapshots, double stateBytes,
                                    double iterationBytes) {
  if (options_.memoryBudget < 0 || !warn_)
    return;
  const double least = snapshots * stateBytes + 16 + iterationBytes;
  if (least <= static_cast<double>(options_.memoryBudget))
    return;
  auto bytes = [](double b) { return std::to_string(static_cast<long long>(b)) + " bytes"; };
  std::string parts = (snapshots == 1 ? "one snapshot of its state (" : "two snapshots of its state (") +
                      bytes(stateBytes) + (snapshots == 1 ? ")" : " each)");
  if (iterationBytes > 0)
    parts += ", one iteration's tape (" + bytes(iterationBytes) + ")";
  warn_(s->pos, "--memory-budget=" + std::to_string(options_.memoryBudget) +
                    " is below what this loop needs at the least: " + parts +
                    " and 16 bytes of records, " + bytes(least) +
                    "; its runs will use that minimum (CGP_DEBUG=1 says so)");
}

} // namespace cgp
