//===- Activity.h - which values carry derivatives --------------*- C++ -*-===//
//
// A value is active when it depends on an input we differentiate with
// respect to ("varied") and influences an output we differentiate
// ("useful"). Only active statements get adjoint code, and only variables
// that are active somewhere get an adjoint variable. The analysis is flow
// sensitive: a variable can be active in one statement and not in the next,
// which keeps derivatives of values used only in branch conditions (such as
// sqrt of an exact zero) out of the gradient entirely.
//
// Scalars are tracked one by one; an array or pointer is tracked as a whole
// (writing one element never makes the rest inactive).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_ACTIVITY_H
#define CGP_ANALYSIS_ACTIVITY_H

#include "analysis/Summaries.h"
#include "ir/IR.h"

#include <map>
#include <set>

namespace cgp {

using VarSet = std::set<Var *, VarLess>;

/// What a function's activity starts from.
struct ActivitySeeds {
  VarSet varied; // inputs with derivatives: scalar params, pointer params
  VarSet useful; // outputs with seeds: the result variable, pointer params
};

/// The facts about one statement (Assign, Eval or Decl with a value). The
/// sets hold only variables the statement names (what it assigns, what its
/// expressions read or pass): ask them about those alone.
struct StmtActivity {
  VarSet variedBefore; // of them, those varied just before the statement
  VarSet usefulAfter;  // of them, those useful just after it
  bool active = false; // it needs adjoint code
  bool reset = false;  // it overwrites a variable with an adjoint with a
                       // value that carries none: the adjoint is zeroed
};

struct ActivityResult {
  std::map<const StmtNode *, StmtActivity> stmts;
  VarSet withAdjoint; // variables that need an adjoint variable

  const StmtActivity &at(const StmtRef &s) const;
  bool hasAdjoint(const Var *v) const { return withAdjoint.count(const_cast<Var *>(v)) != 0; }
};

/// True if `e` (a non-call expression) depends differentiably on a variable
/// of `varied`.
bool exprVaried(const ExprRef &e, const VarSet &varied);

/// The variables whose derivative flows into `e`: floating variables in
/// differentiable positions (not in indices, conditions or conversions to
/// integers).
void diffVars(const ExprRef &e, VarSet &out);

/// The value an assignment stores, with compound operators spelled out
/// (`x += e` is `x + e`).
ExprRef storedValue(const StmtRef &assign);

/// For a call statement: is each argument active (carries a derivative in or
/// out), and is the call as a whole active?
struct CallActivity {
  bool active = false;
  bool resultActive = false;
  std::vector<bool> argActive;
};
CallActivity callActivity(const StmtRef &s, const ExprRef &call, const StmtActivity &facts,
                          Summaries &summaries);

ActivityResult analyzeActivity(const Function &f, const ActivitySeeds &seeds,
                               Summaries &summaries);

} // namespace cgp

#endif // CGP_ANALYSIS_ACTIVITY_H
