//===- Sweeps.h - forward and reverse sweeps of a function body -*- C++ -*-===//
//
// Given a prepared function (normalized control flow, calls as statements,
// hoisted locals), its activity and where its adjoints live, builds the two
// statement lists a gradient runs: the forward sweep (the original
// statements with tape pushes and control records) and the reverse sweep
// (pops and adjoint code, in reverse order). Three steps: the adjoint code
// of each statement, the to-be-recorded analysis over what that code reads,
// and the assembly of both sweeps statement by statement.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_SWEEPS_H
#define CGP_TRANSFORM_SWEEPS_H

#include "analysis/Activity.h"
#include "analysis/RowWrites.h"
#include "analysis/WrittenSpans.h"
#include "analysis/ToBeRecorded.h"
#include "planner/Planner.h"
#include "transform/Derivatives.h"
#include "transform/ReservedTape.h"

#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace cgp {

/// How a helper is called: which parameters carry adjoints, whether its
/// result does, and which pointer parameters must keep (push) what it
/// overwrites because the caller's reverse sweep reads it.
struct CallVariantKey {
  const Function *callee = nullptr;
  std::vector<bool> active;
  bool resultActive = false;
  std::vector<bool> keeps;
  /// Pointer parameters into the kernel's caller's buffers: restoring an
  /// earlier value there must be logged on the redo tape.
  std::vector<bool> logs;
  /// Called from CUDA device code: the sweeps are `__device__` functions
  /// that take the thread's tape.
  bool device = false;
  /// Per argument: a pointer into memory that threads share.
  std::vector<bool> shared;

  bool operator<(const CallVariantKey &o) const {
    return std::tie(callee, active, resultActive, keeps, logs, device, shared) <
           std::tie(o.callee, o.active, o.resultActive, o.keeps, o.logs, o.device, o.shared);
  }
};

/// The generated pair for one variant: fwd(args...) and
/// rev(args..., [d_ret], d_<active params>...).
struct CallVariant {
  Function *fwd = nullptr;
  Function *rev = nullptr;
};

class SweepBuilder {
public:
  using VariantFn = std::function<const CallVariant *(const CallVariantKey &)>;
  using FailFn = std::function<void(const SourcePos &, const std::string &)>;

  /// `warn` reports what compiles but will not do what was asked (a
  /// --memory-budget below what a loop needs at the least).
  SweepBuilder(const Function &f, const ActivityResult &activity, AdjointMap &adjoints,
               Summaries &summaries, const PlanOptions &options, VariantFn variants, FailFn fail,
               FailFn warn = nullptr)
      : f_(f), act_(activity), adj_(adjoints), sums_(summaries), options_(options),
        variants_(std::move(variants)), fail_(std::move(fail)), warn_(std::move(warn)) {}

  /// Builds both sweeps. `neededAtEntry`: pointer parameters whose old
  /// values the caller needs; `logged`: pointer parameters into the
  /// caller's buffers, whose final values the reverse sweep keeps on the
  /// redo tape before restoring earlier ones. Returns false if an error
  /// was reported.
  bool build(const VarSet &neededAtEntry, const VarSet &logged);

  /// CUDA: the pointer parameters into memory that the threads share (a
  /// `__global__` kernel's buffers); helpers called with them learn it
  /// through CallVariantKey::shared.
  VarSet sharedMemory;

  std::vector<StmtRef> forward, reverse;
  TbrResult tbr;
  FunctionPlan plan;
  /// Declarations the function needs at its top (loop checkpoint objects).
  std::vector<StmtRef> topDecls;

private:
  struct Sweeps {
    std::vector<StmtRef> fwd, rev; // rev in the order it runs
  };

  void adjointCode(const StmtRef &s);
  Sweeps sweep(const StmtRef &s);
  Sweeps sweepAssign(const StmtRef &s);
  Sweeps sweepCall(const StmtRef &s);
  Sweeps sweepCustomCall(const StmtRef &s, const CallActivity &ca, const std::vector<bool> &keeps,
                         bool pushed, Sweeps out);
  Sweeps sweepIf(const StmtRef &s);
  Sweeps sweepLoop(const StmtRef &s);
  Sweeps sweepCountedLoop(const StmtRef &s, Sweeps inner);
  // CheckpointedLoops.cpp: counted loops of a kernel can, at run time, keep
  // snapshots instead of taping every iteration (a nested one at each run
  // of the loops around it).
  bool canCheckpoint(const StmtRef &s, std::vector<Var *> &state, std::string &why) const;
  /// The reverse of a loop that may run its iterations again from
  /// snapshots (under a budget, or with a replay share) reads what they
  /// read and do not write: code after the loop that overwrites such a
  /// variable (the next iteration of a loop around it, say) tapes its old
  /// value, and the reverse sweep puts it back before it replays them.
  /// Adds those reads to reads_ at the loop; true if any was new.
  bool addReplayInputs();
  /// The counted loops that can keep snapshots of their state, with the
  /// bytes of one (the planner's replay allowance goes to those).
  std::map<const StmtNode *, double> loopSnapshotBytes() const;
  /// Its result for this function, computed before planning.
  std::map<const StmtNode *, double> snapshotBytes_;
  /// The state of loop `s` (what its body and step write that a later
  /// iteration or the code after it may read), without `index`; false if
  /// it writes memory outside the kernel, a variable `fixed` reads, or
  /// calls a function without body for its effects. The elements of a
  /// caller's buffer that it overwrites in place may be state (spanVar).
  bool loopState(const StmtRef &s, const Var *index, const std::vector<ExprRef> &fixed,
                 std::vector<Var *> &state, std::string &why) const;
  /// The variable that stands in loop `s`'s state for the elements of the
  /// caller's buffer `buffer` it overwrites in place (Var::spanOf), made on
  /// first use; null, with `why`, when they are not known at its entry.
  Var *spanVar(const StmtRef &s, const Var *buffer, std::string &why) const;
  /// The variable that stands in loop `s`'s state for the elements a
  /// std::vector local has at its entry (a loop that resizes it, never
  /// beyond: Appends.h), made on first use.
  Var *vectorSpanVar(const StmtRef &s, const Var *vector) const;
  /// Code that works out, at the entry of loop `s`, the span of each
  /// caller's buffer in `state` (its cgp::rt::ElementSpan, declared here).
  std::vector<StmtRef> spanCode(const StmtRef &s, const std::vector<Var *> &state) const;
  /// `plansInside`: loops in its body plan their own reversal too.
  /// `outerSite`: the site of the loop around it that may plan, or null;
  /// then it plans only when that loop's plan leaves it room.
  /// `replayShare`: without a memory budget, the plan's replay allowance
  /// for this loop (LoopDecision::replayShare).
  Sweeps sweepCheckpointedLoop(const StmtRef &s, const Sweeps &inner,
                               const std::vector<Var *> &state, bool plansInside,
                               Var *outerSite, double replayShare = 0);
  /// Bytes of `state`, and estimates of one taped iteration of `s`, of what
  /// the kernel pushes after it outside loops that plan their own reversal
  /// (`afterBytes`), and of what those loops would tape whole
  /// (`laterLoopsBytes`).
  void loopBytes(const StmtRef &s, const std::vector<Var *> &state, double &stateBytes,
                 std::string &stateNames, double &iterationBytes, double &afterBytes,
                 double &laterLoopsBytes) const;
  // OnlineCheckpoints.cpp: loops whose trip count is known only when they
  // end can, under a memory budget, keep snapshots while they run.
  bool canCheckpointOnline(const StmtRef &s, std::vector<Var *> &state, std::string &why) const;
  Sweeps sweepOnlineLoop(const StmtRef &s, const Sweeps &inner, const Sweeps &step,
                         const std::vector<Var *> &state, Sweeps taped, bool plansInside,
                         Var *outerSite);
  /// Under --memory-budget, an outermost loop of a kernel that tapes
  /// `iteration` at each iteration and cannot hold it to the budget (`why`):
  /// a warning at build time naming why and what it tapes (interface.md
  /// section 5), unless its tape is known to fit. (A loop inside it is held
  /// by it, or warned about with it.)
  void warnUnheld(const StmtRef &s, const std::string &why, const std::vector<StmtRef> &iteration);
  /// Under --memory-budget, warns at `s` when the budget is below what the
  /// loop needs at the least, as far as that is known when compiling:
  /// `snapshots` of `stateBytes`, its 16 bytes of records and one
  /// iteration's tape (`iterationBytes`, 0 if unknown). The run then uses
  /// that minimum (cgp/checkpoint.h), and says so under CGP_DEBUG=1.
  void warnBelowMinimum(const StmtRef &s, int snapshots, double stateBytes,
                        double iterationBytes);
  /// The thread_local LoopSite of a loop that may plan its reversal, made
  /// on first use (its declaration goes with the loop's code).
  Var *loopSite(const StmtRef &s);

  const Function &f_;
  const ActivityResult &act_;
  AdjointMap &adj_;
  Summaries &sums_;
  const PlanOptions &options_;
  VariantFn variants_;
  FailFn fail_;
  FailFn warn_;
  bool failed_ = false;

  /// The pop that restores `lhs` in the reverse sweep (with its redo log).
  void restore(const ExprRef &lhs, std::vector<StmtRef> &rev);

  std::vector<StmtRef> enclosingLoops_; // the loops around the statement being swept
  /// How many loops are around the statement being swept.
  int loopDepth() const { return static_cast<int>(enclosingLoops_.size()); }
  bool innerPlans_ = false; // a loop swept so far (in the current loop) plans its reversal
  std::vector<Var *> plannedSites_; // sites of the loops around that may plan theirs
  /// Under a budget, whether the loop `s`, inside a loop that plans
  /// (`planningAround`) and directly inside the loop `around`, leaves its
  /// reversal to the loops around it: its trip count is a constant, or the
  /// same at every iteration of `around` (its start and bound read nothing
  /// `around` writes). Then the iterations of the loops around it tape
  /// alike as far as `s` goes, a probe of one measures them, and planning
  /// `s` at each run would cost time and code for nothing: a loop with a
  /// loop inside that plans replays each of its iterations (the nested
  /// rule).
  bool leftToLoopsAround(const StmtRef &s, const StmtRef &around, bool planningAround) const;
  // Under a budget, at most this many loops of a nest plan their reversal:
  // each copies the code of the loops inside it three or four times
  // (store-all's, the forward and the reverse phase's, and a probe's).
  static constexpr std::size_t kPlannedLevels = 3;
  std::map<const StmtNode *, Var *> sites_;
  TapeReservations reservations_;
  mutable std::map<const StmtNode *, VarSet> liveAtLoops_; // loop -> live at body entry
  /// The caller's buffers the loops not inside others write, each analysed
  /// once (analysis/RowWrites.h); for kernels, not on the device nor under
  /// store-all.
  RowFills rowFills_;
  /// loop -> the caller's buffers it fills a row per iteration, which stay
  /// in place instead of being part of its state (analysis/RowWrites.h).
  mutable std::map<const StmtNode *, std::vector<const Var *>> rowsInPlace_;
  /// (loop, caller's buffer) -> the span of it that the loop overwrites in
  /// place (analysis/WrittenSpans.h) and the variable that stands for it
  /// in the loop's state; a null variable where the span is not known.
  mutable std::map<std::pair<const StmtNode *, const Var *>, std::pair<WrittenSpan, Var *>>
      spans_;
  /// A loop's state for comments (as the code names it) or, `asWritten`,
  /// for the plan (as the source does), with the buffers left in place:
  /// "x, v", "nothing; the rows it writes of traj stay in place".
  std::string stateText(const StmtRef &s, const std::vector<Var *> &state, bool asWritten) const;
  /// loop -> what it writes (leftToLoopsAround asks once per loop inside).
  mutable std::map<const StmtNode *, ConstVarSet> writtenByLoop_;
  /// How each loop is reversed, and why (for the plan).
  std::map<const StmtNode *, std::pair<std::string, std::string>> loopChoices_;
  /// Loops that spend the plan's replay allowance (the others' is dropped).
  std::set<const StmtNode *> replaying_;
  /// Loops whose reversal is planned at run time (checkpointed or online).
  std::set<const StmtNode *> runTimePlans_;
  /// Counted loops whose first index and trip count the reverse sweep
  /// computes again instead of popping them.
  std::set<const StmtNode *> boundsAgain_;
  VarSet logged_;
  Var *nullPointer_ = nullptr; // `nullptr`, for pullback arguments without adjoint
  /// Values the plan recomputes, by the statement whose reverse they precede.
  std::map<const StmtNode *, std::vector<StmtRef>> recomputeBefore_;
  std::map<const StmtNode *, std::vector<StmtRef>> code_;
  std::map<const StmtNode *, VarSet> reads_;
  /// The loads the reverse sweep may repeat instead of taping (none under
  /// store-all).
  Reloads reloads_;
  /// The ifs whose condition the reverse sweep evaluates again instead of
  /// popping the arm taken (none under store-all).
  std::set<const StmtNode *> replayedConditions_;
  /// Math calls whose values variables hold where each assignment runs
  /// (heldMathValues): its derivative reads them instead of calling again.
  std::map<const StmtNode *, std::vector<std::pair<ExprRef, Var *>>> held_;
};

/// A one-line description of what a forward sweep pushes, for comments.
std::string describeTape(const std::vector<StmtRef> &forward);

} // namespace cgp

#endif // CGP_TRANSFORM_SWEEPS_H
