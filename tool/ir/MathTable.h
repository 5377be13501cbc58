//===- MathTable.h - every math function cgp-ad knows, one row each -*- C++ -*-===//
//
// A call of a math function in the user's code (`std::exp(x)`, `expf(x)`,
// `__expf(x)`, `rsqrtf(x)`) is an IR Math node, and everything cgp-ad knows
// of that function is one row of this table: the names that call it, how
// generated code spells it, its arguments, its cost in the planner's units,
// where its derivative can be infinite, and its derivative with respect to
// each argument, written as a builder of IR expressions from the arguments
// and the call's own value.
//
// Every stage reads the table and none keeps a list of its own: the lowering
// finds rows by name (frontend/LowerExpr.cpp), the printer spells calls, the
// cost model prices them (planner/CostModel.cpp), NameMathFactors and
// ReuseMath ask whether a call is costly and whether its derivative reads its
// value, the activity analysis which arguments have a derivative, and reverse
// mode (transform/Derivatives.cpp) and forward mode (transform/Forward.cpp)
// apply the derivative rules, each through its own DerivativeContext. Adding
// a function is its enumerator in ir/IR.h and its row in MathTable.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_IR_MATHTABLE_H
#define CGP_IR_MATHTABLE_H

#include "ir/IR.h"

#include <functional>
#include <string>
#include <vector>

namespace cgp {

/// How generated code spells a call, for the call's type.
enum class MathNaming : uint8_t {
  Std,     // `std::name` in float and double: the <cmath> overloads
  CFamily, // `name` in double, `namef` in float: CUDA's and GNU's functions outside std
  Exact,   // `name`, for the one type the function has (`__expf`, `__dadd_rn`)
};

/// What an argument is: a value of the call's floating type, or an integer.
enum class MathArg : uint8_t { Floating, Integer };

/// Where a function's derivative can be infinite.
enum class Singularity : uint8_t {
  None,
  /// Only where the value is infinite too (log at 0, atanh at 1): a zero
  /// adjoint times the derivative would give NaN, so reverse mode adds
  /// nothing for a zero adjoint.
  WhereValueInfinite,
  /// Also where the value is finite (sqrt at 0, acos at 1): forward mode
  /// too keeps a zero tangent zero.
  WhereValueFinite,
};

/// What a derivative rule may ask of the mode that applies it. Each mode
/// decides where the values live: forward mode computes the derivative
/// before the call and keeps the call's value in a temporary that the
/// primal assignment then reuses; reverse mode reads values that a variable
/// already holds (transform/Sweeps.cpp's held math values) and otherwise
/// evaluates again.
class DerivativeContext {
public:
  explicit DerivativeContext(ExprRef call) : call_(std::move(call)) {}
  virtual ~DerivativeContext() = default;

  /// The call being differentiated, its arguments and its type.
  const ExprRef &mathCall() const { return call_; }
  const ExprRef &arg(size_t i) const { return call_->operands[i]; }
  const ScalarType &type() const { return call_->type; }
  /// A literal of the call's type.
  ExprRef constant(double v) const { return floatLit(v, call_->type); }

  /// The call's own value (the derivative of exp is exp).
  virtual ExprRef value() = 0;
  /// Another math function of the call's type (cos, for the derivative of sin).
  virtual ExprRef call(MathFn fn, std::vector<ExprRef> args) = 0;
  /// `e`, which a derivative reads twice, in a `const` temporary named
  /// `name`, unless it is cheap to repeat.
  virtual ExprRef temporary(const ExprRef &e, const std::string &name) = 0;
  /// `e`, which the derivatives of several arguments read (hypot's value
  /// for both), evaluated once for all of them: the same `name` gives the
  /// same expression.
  virtual ExprRef shared(const ExprRef &e, const std::string &name) = 0;

protected:
  ExprRef call_;
};

/// A context that writes every value in place (no temporaries) and notes
/// whether a rule read the call's own value: what the table needs to learn
/// about its rules, and what a test evaluates them with.
class InPlaceContext final : public DerivativeContext {
public:
  using DerivativeContext::DerivativeContext;
  bool readValue = false;
  ExprRef value() override {
    readValue = true;
    return call_;
  }
  ExprRef call(MathFn fn, std::vector<ExprRef> args) override {
    return math(fn, type(), std::move(args));
  }
  ExprRef temporary(const ExprRef &e, const std::string &) override { return e; }
  ExprRef shared(const ExprRef &e, const std::string &) override { return e; }
};

/// One partial derivative: num / den (num alone when den is null), negated
/// when `negate`; zero when num is null. Reverse mode adds
/// `seed * num / den` with one division.
struct Partial {
  ExprRef num;
  ExprRef den;
  bool negate = false;

  bool isZero() const { return !num; }
  /// seed * num / den.
  ExprRef times(const ExprRef &seed) const;
  /// num / den on its own.
  ExprRef factor() const;
};

/// The partial derivative with respect to one argument; null where it is
/// zero everywhere (an integer argument, floor's).
using PartialRule = std::function<Partial(DerivativeContext &)>;

/// One math function.
struct MathFunction {
  MathFn fn;
  /// The name generated code spells (see MathNaming): "sqrt", "rsqrt", "__expf".
  std::string name;
  MathNaming naming = MathNaming::Std;
  /// Further names that call it (`abs` for fabs), besides those `naming`
  /// gives: `name` and `std::name`, and `namef` for Std and CFamily.
  std::vector<std::string> aliases;
  std::vector<MathArg> args;
  /// In the cost model's units (an addition is 1, a division 4).
  double cost = 20;
  Singularity singular = Singularity::None;
  /// One rule per argument.
  std::vector<PartialRule> partials;
  /// A piecewise derivative (fabs, fmin): where `condition` holds,
  /// `partials` apply, elsewhere `otherwise` (one rule per argument too).
  std::function<ExprRef(DerivativeContext &)> condition;
  std::vector<PartialRule> otherwise;
  /// The header generated code includes to call it ("cgp/digamma.h"); empty
  /// for the standard and CUDA functions.
  std::string header;
  /// Set from the rules when the table is built: whether some rule reads
  /// the call's own value.
  bool derivativeReadsValue = false;

  unsigned arity() const { return static_cast<unsigned>(args.size()); }
  /// True where the argument has a derivative in some piece.
  bool differentiable(size_t arg) const;
  /// A library call, or work of that order: worth a temporary rather than
  /// a second evaluation (fabs, fmin and the rounded additions are not).
  bool isCostly() const { return cost > 1; }
};

/// The row of `fn`.
const MathFunction &mathFunction(MathFn fn);
/// Every row, in the order of MathFn.
const std::vector<MathFunction> &mathFunctions();
/// The rows that a call by `name` (unqualified: "exp", "expf", "__expf")
/// may mean, whatever their arity.
std::vector<const MathFunction *> mathFunctionsNamed(const std::string &name);
/// A function that returns two math functions of one argument through
/// pointers, `sincos(x, &s, &c)`: the lowering writes it as the two calls,
/// `s = sin(x); c = cos(x);`, which compute the same values.
struct MathPair {
  const char *name;
  MathFn first, second;
};
/// The pair a call by `name` ("sincosf") means, or null.
const MathPair *mathPairNamed(const std::string &name);

/// The C++ that calls `fn` in type `t`: "std::exp", "rsqrtf", "__expf".
std::string mathCallName(MathFn fn, const ScalarType &t);
/// The name of a variable that holds a call's value: "exp_value".
std::string mathValueName(MathFn fn);

} // namespace cgp

#endif // CGP_IR_MATHTABLE_H
