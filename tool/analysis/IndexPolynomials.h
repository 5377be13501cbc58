//===- IndexPolynomials.h - array indices as polynomials ------*- C++ -*-===//
//
// Analyses of where a loop writes a caller's buffer (RowWrites.h: a row per
// iteration; WrittenSpans.h: the span of elements it overwrites in place)
// read index expressions as polynomials with integer coefficients over
// integer variables: `t * n + i`, `2 * n * t + n + i`, `(t - 1) * row`.
// An integer assigned once from such a polynomial stands for it where the
// assignment is known to have run (Defs).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_INDEXPOLYNOMIALS_H
#define CGP_ANALYSIS_INDEXPOLYNOMIALS_H

#include "ir/IR.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

namespace cgp {

/// A product of integer variables (sorted, repeats allowed); empty: 1.
using Monomial = std::vector<const Var *>;
/// A sum of monomials with integer coefficients (none zero).
using Polynomial = std::map<Monomial, int64_t>;

/// Adds `coefficient * m` to `sum`, dropping a term that cancels.
void addTo(Polynomial &sum, const Monomial &m, int64_t coefficient);

/// The product of `a` and `b`.
Polynomial product(const Polynomial &a, const Polynomial &b);

/// Integer variables whose value at the places asked about is known as a
/// polynomial (assigned once, from a polynomial, before those places).
using Defs = std::map<const Var *, Polynomial, VarLess>;

/// `e` as a polynomial (sums, differences, products and negations of
/// integer constants and variables, integer casts), with the variables of
/// `defs` replaced by their polynomials; none when `e` is anything else or
/// a product has more than a few factors.
std::optional<Polynomial> polynomialOf(const ExprRef &e, const Defs &defs);

/// The integers known as polynomials where `loop` starts: assigned once in
/// `f`, in a statement of the body's own block before the loop, from a
/// polynomial of values nothing in `f` assigns (`const int row = 2 * n;`).
Defs definedBefore(const Function &f, const StmtRef &loop);

/// What a loop's body does to integers, as the analyses of its indices
/// need it: the variables it changes (its own index not among them: the
/// loop's step changes that), and the integers it assigns once, in a
/// statement of its body's own block, from a polynomial (`int base = t *
/// n;`, a local pointer's offset), which the statements after stand for.
class LoopIntegers {
public:
  explicit LoopIntegers(const StmtRef &loop);
  bool changes(const Var *v) const { return changed_.count(v) > 0; }
  /// If `c`, a statement of the body's block, assigns an integer once from
  /// a polynomial of values the loop does not change (`except` aside, the
  /// loop's index where rows move with it), adds that polynomial to `defs`.
  void define(const StmtRef &c, Defs &defs, const Var *except = nullptr) const;

private:
  std::set<const Var *> changed_;
  std::map<const Var *, int> assignments_;
};

/// `p` as an expression of type std::int64_t (what code generated before
/// a loop computes from values the loop does not change).
ExprRef polynomialExpr(const Polynomial &p);

} // namespace cgp

#endif // CGP_ANALYSIS_INDEXPOLYNOMIALS_H
