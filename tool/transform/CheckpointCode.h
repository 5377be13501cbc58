//===- CheckpointCode.h - code shared by loops reversed from snapshots -*- C++ -*-===//
//
// Two kinds of loops keep snapshots of their state instead of taping every
// iteration: counted loops, whose trip count is known at their entry
// (CheckpointedLoops.cpp, a BinomialSchedule), and loops whose trip count is
// known only when they end (OnlineCheckpoints.cpp, snapshots taken while
// the loop runs, then a StretchSchedule). Both then follow the runtime's
// schedule with the same code: this file builds it.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_CHECKPOINTCODE_H
#define CGP_TRANSFORM_CHECKPOINTCODE_H

#include "ir/IR.h"

#include <functional>
#include <string>
#include <vector>

namespace cgp {

/// A runtime object of generated code (its type is spelled as given).
Var *newRuntimeObject(Module &m, const std::string &name, const std::string &type);

/// The prefix of the names of a checkpointed loop's runtime objects: its
/// index's name, or its label.
std::string loopObjectPrefix(const StmtRef &loop);

/// The declaration of `site`, the LoopSite of `loop`: on the host it knows
/// the loop's line, which CGP_DEBUG's lines name.
StmtRef siteDecl(Var *site, const StmtRef &loop, bool device);

/// The names of a loop's state variables, for comments (as the generated code
/// names them: "st_x, h") or, `asWritten`, for the plan (as the source does:
/// "st.x, h").
std::string stateNames(const std::vector<Var *> &state, bool asWritten = false);

/// A share as comments and the plan spell it: 0.2 -> "20.0%".
std::string shareText(double share);

/// True if `e` calls anything or pops the tape (a replay would repeat it).
bool hasEffectfulCall(const ExprRef &e);

/// The first element of the span of a caller's buffer that `span` stands
/// for (Var::spanOf), and how many there are.
ExprRef spanStart(Var *span);
ExprRef spanSize(Var *span);

/// `checkpoints.put(v)` / `v = checkpoints.getValue<T>()` or
/// `checkpoints.get(v)`: a variable of the state into or out of a snapshot
/// (scalars by value, arrays whole, the elements of a vector or of a span).
/// At the end of a loop's forward phase, the spans of the caller's buffers
/// in its state go on the tape; at the start of its reverse phase they come
/// back, and the redo tape keeps what the loop left in them before any
/// snapshot is restored there (CheckpointedLoops.cpp).
std::vector<StmtRef> keepSpans(const std::vector<Var *> &state);
std::vector<StmtRef> takeSpans(const std::vector<Var *> &state);

StmtRef putState(Var *checkpoints, Var *v);
StmtRef getState(Var *checkpoints, Var *v);

/// How many elements a std::vector local of the state is assumed to hold
/// where its size is needed when compiling (the estimates of --explain and
/// the planner; the run-time plan reads the size itself).
constexpr double kAssumedElements = 100;

/// Bytes of one snapshot of `state`, as estimated when compiling.
double snapshotBytes(const std::vector<Var *> &state);

/// The bytes of one snapshot of `state` as generated code computes them:
/// a constant, plus each std::vector local's size times its element's.
ExprRef snapshotBytesValue(const std::vector<Var *> &state);

/// `cgp::rt::memoryBudget(compiled) >= 0`: a budget is in force.
ExprRef budgetInForce(int64_t compiledBudget);

/// For a loop nested in a loop that may plan (whose site is `outerSite`):
/// `outer_site.leavesRoom && inForce`, else `inForce`. A nested loop
/// measures and plans its reversal only when the plan of the loop around
/// it left it room (else every iteration of that loop fits whole).
ExprRef roomLeftBy(Var *outerSite, ExprRef inForce);

/// The optional last arguments of the runtime's plan calls.
struct PlanCallOptions {
  bool nestedPlans = false;   // loops inside plan too
  bool mostBytes = false;     // the bytes passed are the most an iteration can tape (online only)
  double laterLoopsBytes = 0; // what loops after it that plan their own reversal would tape whole
  // Counted loops only: what iterations tape (cgp::rt::IterationTapes).
  enum class Tapes { Alike, Unevenly, UnevenlyKeepingLocals } iterationTapes = Tapes::Alike;
  double keptBytes = 0; // with UnevenlyKeepingLocals: the bytes a Keep action pushes
  double replayShare = 0; // counted loops only: the plan's replay allowance (no budget)
  double runsPerCall = 1; // with a replay share: the loop's estimated runs per call
};

/// The call of the runtime's plan function with `args` and, as far as they
/// differ from the defaults, the options: planOnlineReversal when `online`,
/// else planLoopReversal. For a loop nested in one that may plan
/// (`outerSite`), `outer_site.leavesRoom ? call : 0` (0: tape every
/// iteration).
ExprRef planReversal(bool online, std::vector<ExprRef> args, const PlanCallOptions &options,
                     Var *outerSite);

/// A probe of one iteration's tape: keep the state in a slot of its own,
/// run `before` and `iteration` (taped), store the bytes it pushed in
/// `measured` (`mark` holds the tape's size before), drop them and put the
/// state back.
std::vector<StmtRef> probeIteration(Var *checkpoints, const std::vector<Var *> &state,
                                    Var *measured, Var *mark, std::vector<StmtRef> before,
                                    const std::vector<StmtRef> &iteration);

/// True if a statement of `code` (or one nested in it) reads or writes `v`.
bool codeMentions(const std::vector<StmtRef> &code, const Var *v);

/// Whether the iterations of `loop` read its `index`: taped (`forward`),
/// reversed (`reverse`) or replayed untaped (its body). If not, they need
/// no index rebuilt, and the loop's start no place on the tape.
bool iterationsReadIndex(const StmtRef &loop, const std::vector<StmtRef> &forward,
                         const std::vector<StmtRef> &reverse, const Var *index);

/// `stmts` preceded by `T i = first + number * by;` (`i` of type T) when
/// they use the index `i`: an iteration of a counted loop, given its
/// number, with its index rebuilt.
std::vector<StmtRef> withIndex(Var *i, Var *first, int64_t by, const ExprRef &number,
                               std::vector<StmtRef> stmts);

/// The code of one iteration, given the expression of its number.
using IterationCode = std::function<std::vector<StmtRef>(const ExprRef &)>;

/// `for (;;) { action = checkpoints.next(); ... }`: Store and Restore save
/// and load `state`; Advance runs `replay` and Tape runs `tape` for the
/// iterations [step, to) (counted by `counter`); Reverse runs `reverse` for
/// them, last first, or, when it is null (the forward phase), ends the loop
/// like Done (and the reverse phase's first next() gives it again). With
/// `kept` (variables declared in the body whose old values are taped, for
/// a loop that may tape its first iterations), Keep pushes them (forward
/// phase) or pops them back (reverse phase).
StmtRef scheduleLoop(Var *checkpoints, Var *action, Var *counter,
                     const std::vector<Var *> &state, const IterationCode &replay,
                     const IterationCode &tape, const IterationCode &reverse,
                     const std::vector<Var *> &kept = {});

} // namespace cgp

#endif
