//===- CostModel.h - how long values take and how often they run -*- C++ -*-===//
//
// The planner weighs the time to recompute a value against the memory to
// store it. Time is counted in "operation units": one for an addition,
// multiplication, comparison or load, more for a division and for each
// math function (see docs/cgp-model.md for the table). How often a
// statement runs is the product of the trip counts of the loops around it:
// the count itself when the bounds are constants, else the mean measured by
// a profile (--profile) when it has the loop, else a default of 100
// iterations per loop. A profile also splits the runs of an `if` between
// its arms as measured (without one, both arms count as always run).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_PLANNER_COSTMODEL_H
#define CGP_PLANNER_COSTMODEL_H

#include "ir/IR.h"
#include "planner/Profile.h"

#include <map>
#include <optional>

namespace cgp {

/// Iterations assumed for a loop whose trip count is not known.
constexpr int64_t kDefaultTripCount = 100;

/// Bytes a value of type `t` takes (on the tape, in a snapshot).
double scalarBytes(const ScalarType &t);

/// Operation units to evaluate `e` once (a helper call counts its body).
double exprCost(const ExprRef &e);

/// How many times each statement of `f` runs per call (estimated), and the
/// cost of one call of the primal.
struct Frequencies {
  std::map<const StmtNode *, double> runs;
  double primalCost = 0;
  /// Loops: iterations per start, and where that figure comes from
  /// ("constant", "profile" or "default").
  struct TripEstimate {
    double trips = 0;
    const char *source = "default";
  };
  std::map<const StmtNode *, TripEstimate> trips;

  double of(const StmtNode *s) const {
    auto it = runs.find(s);
    return it == runs.end() ? 1.0 : it->second;
  }
};
Frequencies estimateFrequencies(const Function &f, const KernelStats *profile = nullptr);

} // namespace cgp

#endif // CGP_PLANNER_COSTMODEL_H
