//===- Derivatives.h - adjoint code of one statement ------------*- C++ -*-===//
//
// The reverse sweep of an assignment `y = e` reads the adjoint of y and
// adds, for every varied operand x of e, the adjoint times de/dx into the
// adjoint of x. This file builds that code for one assignment: the chain
// rule over the expression tree, and the derivative of each math function.
// The derivatives of math functions are the rules of ir/MathTable.h. Selects
// (`c ? a : b`) and piecewise functions (fabs, fmin) become ifs, so the arm
// not taken adds nothing, not even 0 * inf.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_DERIVATIVES_H
#define CGP_TRANSFORM_DERIVATIVES_H

#include "analysis/Activity.h"
#include "ir/Fold.h"
#include "ir/IR.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cgp {

/// Where the adjoint of each variable lives.
class AdjointMap {
public:
  explicit AdjointMap(Module &m) : module_(m) {}

  /// Makes `adjoint` the adjoint of `v`.
  void set(Var *v, Var *adjoint) {
    map_[v] = adjoint;
    generated_.insert(adjoint);
  }
  /// True for adjoint variables and temporaries made here.
  bool isGenerated(const Var *v) const { return generated_.count(v) != 0; }
  Var *of(const Var *v) const;
  bool has(const Var *v) const { return map_.count(v) != 0; }

  /// The adjoint of an lvalue: d_x for x, d_A[i] for A[i].
  ExprRef lvalue(const ExprRef &primal) const;

  /// A fresh temporary of type `t`.
  Var *temp(const std::string &name, const ScalarType &t);

  Module &module() { return module_; }

private:
  Module &module_;
  std::map<const Var *, Var *> map_;
  std::set<const Var *> generated_;
};

/// The variable that holds the value of a math call where a statement runs
/// (null for none): see heldMathValues in Sweeps.
using HeldValues = std::function<ExprRef(const ExprRef &call)>;

/// Appends to `out` the code that adds `seed` times the derivative of `e`
/// into the adjoints of the operands of `e` that are in `varied`.
/// `fail` is called for an operand without a derivative (an opaque call).
class AdjointBuilder {
public:
  AdjointBuilder(AdjointMap &adjoints, const VarSet &varied,
                 std::function<void(const std::string &)> fail)
      : adj_(adjoints), varied_(varied), fail_(std::move(fail)) {}

  void propagate(const ExprRef &e, const ExprRef &seed, std::vector<StmtRef> &out);

  /// A math call a derivative needs (`cos(theta)` for `sin(theta)`) is
  /// read from the variable `held` names for it, if any, instead of being
  /// evaluated again.
  void setHeld(HeldValues held) { held_ = std::move(held); }

private:
  class MathContext; // how a math function's derivative rule reads values here

  /// `e` itself when it is cheap to repeat, else a `const` temporary
  /// named `name` that holds it.
  ExprRef stable(const ExprRef &e, std::vector<StmtRef> &out, const std::string &name);
  void propagateMath(const ExprRef &e, const ExprRef &seed, std::vector<StmtRef> &out);

  AdjointMap &adj_;
  const VarSet &varied_;
  std::function<void(const std::string &)> fail_;
  HeldValues held_;
};

/// The reverse code of an assignment that is not a call: resets the adjoint
/// of what it overwrites and propagates it into the operands.
void adjointOfAssign(const StmtRef &s, const StmtActivity &facts, AdjointMap &adjoints,
                     std::function<void(const std::string &)> fail, std::vector<StmtRef> &out,
                     HeldValues held = nullptr);

/// True for an expression cheap enough to write twice instead of keeping
/// it in a temporary: variables, literals, elements with such indices, and
/// negations and conversions of those.
bool isCheapToRepeat(const ExprRef &e);

} // namespace cgp

#endif // CGP_TRANSFORM_DERIVATIVES_H
