//===- Planner.h - store or recompute, value by value ------------*- C++ -*-===//
//
// The CGP planner decides, for each value the reverse sweep needs from the
// forward sweep, whether the forward sweep stores it on the tape or the
// reverse sweep recomputes it from values at hand. A value can be
// recomputed when it is a local assigned once by an expression without
// calls, and nothing that expression reads (nor the value itself) changes
// between the assignment and the last statement whose reverse code reads it:
// then evaluating the expression again, in the reverse sweep, gives the
// same bits. A scalar assigned several times in one block is taken one
// value at a time, each read between its assignment and the next. The
// elements of a local array filled by a loop that does only
// that (`for (i...) a[i] = e;`), and written nowhere else, are recomputed
// alike: the loop runs again. Scalars of one block may be recomputed from
// one another (a chain), operands first. Every such candidate gets the score
//
//     score = alpha * G + beta * T - gamma * M
//
// G: its share of the gradient's reads (gradient relevance), T: the time to
// recompute it as a share of the primal's, M: the tape bytes it takes as a
// share of store-all's. Low scores are recomputed first, as long as the
// added time stays within the recompute allowance. See docs/cgp-model.md.
//
// Integer updates that to-be-recorded analysis inverts (counters, `++li`;
// InverseUpdates.h) are listed too, as values restored by the inverse
// update: store-all tapes them, this plan does not, at no cost.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_PLANNER_PLANNER_H
#define CGP_PLANNER_PLANNER_H

#include "analysis/Activity.h"
#include "analysis/Summaries.h"
#include "analysis/ToBeRecorded.h"
#include "analysis/ThreadIndices.h"
#include "ir/IR.h"
#include "planner/CostModel.h"
#include "planner/Profile.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cgp {

struct PlanOptions {
  bool storeAll = false; // --strategy=store-all: tape every value
  double alpha = 0.6, beta = 0.3, gamma = 0.1;
  /// The most recompute time the default plan adds, as a share of the
  /// primal's time.
  double recomputeAllowance = 0.25;
  /// Without a memory budget, the most time the default plan spends running
  /// loop iterations again (its replay allowance), as a share of the
  /// primal's time. The default plan aims at 1.1x store-all's time; a
  /// gradient takes at least twice the primal's (a forward and a reverse
  /// sweep), so a fifth of the primal is at most a tenth of the gradient.
  /// Recomputed values need no share of it: they take the place of a push
  /// and a pop.
  double replayAllowance = 0.2;
  /// --memory-budget in bytes, or -1 for none (CGP_MEMORY_BUDGET may still
  /// set one at run time).
  int64_t memoryBudget = -1;
  /// --profile: measured trip counts and branch frequencies, or null.
  std::shared_ptr<const ProfileData> profile;
  /// --instrument: generated code records a profile (ProfileHooks.h).
  bool instrument = false;
  /// Set per kernel: the sweeps are CUDA device code, where each thread tapes
  /// on its own device tape and loops are reversed from it (the run-time
  /// planning of loop reversal lives in the host runtime).
  bool device = false;
};

/// The options of a CUDA kernel's plan (its helpers' too): `options` with
/// `device` set and the allowances a GPU calls for. A thread's tape lives in
/// local memory and the device heap, where each push and pop is a memory
/// access that many threads make at once, while arithmetic runs at many
/// times memory's pace: the plan may spend up to the primal's time again
/// on recomputed values (4x the host's allowance) and as much on replayed
/// loop iterations (5x).
PlanOptions deviceOptions(PlanOptions options);

/// The bytes of a thread's tape in its local memory when the tool cannot
/// bound what the kernel tapes (cgp::dev::kLocalTapeBytes, include/cgp/device.h,
/// which generated code names): with no budget, a device loop whose tape
/// would be larger keeps snapshots instead.
constexpr int kDeviceLocalTapeBytes = 512;

/// One value the reverse sweep needs, and what the plan does with it.
struct ValueDecision {
  Var *var = nullptr;
  const StmtNode *definition = nullptr; // the assignment that pushes it
  // The assignment that computes it: `definition` itself, or for a scalar
  // assigned more than once, the one before it in its block (the value
  // pushed is the one it overwrites).
  const StmtNode *computedAt = nullptr;
  SourcePos definitionPos;
  ExprRef value;                        // what it is assigned (recompute candidates)
  bool candidate = false;               // could be recomputed
  bool recompute = false;               // the plan recomputes it
  /// An integer update (`li += 1`) that the reverse sweep undoes (`li -= 1`):
  /// nothing stored (`bytes` 0), nothing to recompute.
  bool inverted = false;
  /// An array element a loop loads each iteration, which the reverse sweep
  /// loads again (analysis/Reloads.h): like an inverted update, nothing
  /// stored and nothing recomputed in the plan's sense (`inverted` is set).
  bool reloaded = false;
  std::string reason;                   // why, in words
  double runs = 0;                      // times the assignment runs per call (estimated)
  double bytes = 0;                     // tape bytes per call if stored
  double cost = 0;                      // operation units per call to recompute
  double G = 0, T = 0, M = 0, score = 0;
  // Where the reverse sweep recomputes it: before the reverse of this
  // statement (the last one whose reverse reads it, or reads a recomputed
  // value computed from it), in this block.
  const StmtNode *recomputeBefore = nullptr;
  // An array's elements: the loop that fills them (`a[i] = e;`), run again
  // there instead of the assignment.
  StmtRef refill;
  // The statements whose reverse reads this value (of a scalar assigned
  // more than once: this one of its values).
  std::vector<const StmtNode *> readers;
  // When recomputed: what it is computed from that must be at hand where it
  // is computed (its operands, less those recomputed before it).
  std::vector<Var *> operandsAtHand;
};

/// A loop of the function, and how its iterations are reversed.
struct LoopDecision {
  const StmtNode *loop = nullptr;
  SourcePos pos;
  std::string label;
  int64_t trips = -1; // known trip count, or -1
  double estimatedTrips = 0;   // iterations per start the cost model uses
  std::string tripSource;      // "constant", "profile" or "default"
  double runs = 0;    // times the loop starts per call (estimated)
  std::string strategy;
  std::string reason;
  /// Without a memory budget: the share of its iterations the default plan
  /// may run again in the reverse sweep (its part of the replay allowance,
  /// over the loop's time), so that it tapes only the last ones, at each of
  /// its runs. 0 for loops inside or around one that has a share, helpers'
  /// loops, loops that cannot keep snapshots (on the device, loops inside
  /// loops) and store-all.
  double replayShare = 0;
  /// Of a loop that tapes and can keep snapshots, its shares of
  /// store-all's tape and of the primal's time (with its schedule's cost at
  /// each run, inside other loops), the share of store-all's tape that
  /// running its iterations again would free (its snapshots held instead),
  /// and whether by those a replay share would pay (shareReplays).
  double tapeShare = 0, timeShare = 0, freedShare = 0;
  /// Operation units per call its schedule would cost, run at each of its
  /// runs (a loop inside others; 0 for an outermost one).
  double scheduleCost = 0;
  bool replayPays = false;
  /// Its reversal is planned at run time, at each of its runs: snapshots
  /// or its tape (CheckpointedLoops.cpp, OnlineCheckpoints.cpp).
  bool runTimePlan = false;
  double tapeBytes = 0; // tape bytes per call of the values stored in it (estimated)
  double storeAllBytes = 0; // the same, storing every value
  double cost = 0;      // operation units per call of the loop (estimated)
  /// Bytes of one snapshot of its state, for a loop that can keep
  /// snapshots; else -1.
  double snapshotBytes = -1;
  unsigned endLine = 0; // the last line of its body
  /// Tape bytes one iteration stores with this plan (estimated).
  double bytesPerIteration() const {
    return tapeBytes / std::max(runs, 1.0) / std::max(estimatedTrips, 1.0);
  }
};

/// CUDA: how the reverse sweep adds into one adjoint that threads share (the
/// adjoint of a buffer in global memory), and why.
struct SharedAdjoint {
  std::string target; // "d_w[j * 4 + k]"
  SourcePos pos;
  std::string how;    // "plain +=", "warp sum, then one atomicAdd", "atomicAdd"
  std::string reason;
};

struct FunctionPlan {
  std::string function;
  bool isKernel = false;
  bool profiled = false; // the profile had this kernel
  SourcePos pos;
  unsigned endLine = 0; // the last line of its body
  std::vector<LoopDecision> loops;
  bool storeAll = false;
  std::vector<ValueDecision> values;
  /// The recomputed values (indices into `values`) in the order the reverse
  /// sweep recomputes those it recomputes at one place: what one reads first.
  std::vector<size_t> recomputeOrder;
  double primalCost = 0;      // operation units per call
  double storeAllBytes = 0;   // tape bytes per call, storing every value
  double plannedBytes = 0;    // tape bytes per call with this plan
  double recomputeCost = 0;   // operation units the plan adds per call
  /// CUDA device code: its tape is per thread; its shared adjoints.
  bool device = false;
  std::vector<SharedAdjoint> sharedAdjoints;
  /// A __global__ kernel whose plain additions rely on each thread owning
  /// its elements: the parts of a thread's identity (ThreadPart bits) its
  /// launch may vary in; all of them otherwise.
  unsigned launchParts = kAllParts;
  /// And what they assume of the block's shape.
  LaunchLimits launchLimits;

  /// The decision on `loop`, or null when it is not one of the function's.
  const LoopDecision *loopDecision(const StmtNode *loop) const {
    for (const LoopDecision &l : loops)
      if (l.loop == loop)
        return &l;
    return nullptr;
  }
};

/// What recomputing a value reads: the variables of its expression and,
/// for an array's fill loop (`refill`), those of the loop's condition, but
/// not the loop's own index.
std::vector<Var *> recomputeOperands(const ExprRef &value, const StmtRef &refill);

/// Plans the values of `f`. `reads` gives, per statement, the variables
/// its reverse code reads; `storeAll` is the to-be-recorded result when
/// every value is stored (but for the integer updates it inverts).
/// `snapshotBytes`: the loops that can keep snapshots of their state
/// instead of their tape, with the bytes of one snapshot; only those get a
/// share of the replay allowance.
FunctionPlan planValues(const Function &f, const std::map<const StmtNode *, VarSet> &reads,
                        const TbrResult &storeAll, const PlanOptions &options,
                        Summaries &summaries,
                        const std::map<const StmtNode *, double> &snapshotBytes = {});

} // namespace cgp

#endif // CGP_PLANNER_PLANNER_H
