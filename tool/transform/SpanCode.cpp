//===- SpanCode.cpp - the caller's elements a loop's snapshots hold -------===//
//
// A loop that overwrites the same elements of the caller's buffer at every
// iteration (an RNN's state `h[i]`) keeps them in its snapshots: the span
// of them that analysis/WrittenSpans.h finds. Here that span becomes a
// variable of the loop's state (a cgp::rt::ElementSpan, Var::spanOf the
// buffer) and the code that works it out at the loop's entry, one `add`
// per assignment of the buffer, from the lowest to the highest element the
// assignment writes over every value of the indices around it. The same
// ends give the span's length when compiling, where they are constants
// (the plan's estimate of the snapshot's bytes). A std::vector local that
// the loop resizes, never beyond its size at the iteration's entry, is
// held the same way: the span of the elements it has at the loop's entry.
//
//===----------------------------------------------------------------------===//
#include "transform/Sweeps.h"

#include "transform/CheckpointCode.h"

#include <algorithm>
#include <optional>

namespace cgp {

namespace {

/// The constant of `p`, if it is one.
std::optional<int64_t> constantOf(const Polynomial &p) {
  if (p.empty())
    return 0;
  if (p.size() == 1 && p.begin()->first.empty())
    return p.begin()->second;
  return std::nullopt;
}

/// The elements one assignment writes over all the iterations: from
/// `low + sum(lowEnds)` to `high + sum(highEnds)` (the ends compared when
/// the code runs where a coefficient's sign is not known when compiling),
/// when each condition of `runs` holds (the loops around it run).
struct WriteEnds {
  Polynomial low, high;
  std::vector<ExprRef> lowEnds, highEnds, runs;
};

WriteEnds writeEnds(const SpanWrite &w) {
  const ScalarType i64 = ScalarType::int64Type();
  WriteEnds ends{w.base, w.base, {}, {}, {}};
  // It writes only when the loops around it run: a condition for each loop
  // not known to run, unless it is the only one and its index the only one
  // the element depends on (then the span is empty anyway).
  int terms = 0;
  bool simple = true;
  for (const SpanLoop &l : w.loops) {
    Polynomial width = l.highest;
    for (const auto &[m, k] : l.lowest)
      addTo(width, m, -k);
    std::optional<int64_t> knownWidth = constantOf(width);
    std::optional<int64_t> c = constantOf(l.coefficient);
    if (!l.coefficient.empty()) {
      ++terms;
      simple &= c.has_value();
    }
    if (!knownWidth || *knownWidth < 0) {
      // highest - lowest >= 0, said as `n > 0` for `0 <= n - 1`.
      const Monomial one;
      const int64_t k = width.count(one) ? width.at(one) : 0;
      width.erase(one);
      ends.runs.push_back(-k - 1 >= 0
                              ? binary(BinaryOp::Gt, polynomialExpr(width), intLit(-k - 1, i64))
                              : binary(BinaryOp::Ge, polynomialExpr(width), intLit(-k, i64)));
      simple &= !l.coefficient.empty();
    }
    if (l.coefficient.empty())
      continue;
    // Each index from its lowest to its highest value: a constant
    // coefficient says which end gives the least element, else both ends
    // are compared when the code runs.
    if (c) {
      for (const auto &[m, k] : product(l.coefficient, *c > 0 ? l.lowest : l.highest))
        addTo(ends.low, m, k);
      for (const auto &[m, k] : product(l.coefficient, *c > 0 ? l.highest : l.lowest))
        addTo(ends.high, m, k);
      continue;
    }
    ExprRef atLowest = polynomialExpr(product(l.coefficient, l.lowest));
    ExprRef atHighest = polynomialExpr(product(l.coefficient, l.highest));
    ends.lowEnds.push_back(opaque("std::min<std::int64_t>", i64, {atLowest, atHighest}));
    ends.highEnds.push_back(opaque("std::max<std::int64_t>", i64, {atLowest, atHighest}));
  }
  if (simple && terms == 1 && ends.runs.size() == 1)
    ends.runs.clear();
  return ends;
}

/// How many elements `span` holds, when the ends of every assignment are
/// constants and it runs for sure; 0 otherwise.
int64_t knownSpanLength(const WrittenSpan &span) {
  std::optional<int64_t> first, end;
  for (const SpanWrite &w : span.writes) {
    const WriteEnds ends = writeEnds(w);
    std::optional<int64_t> low = constantOf(ends.low), high = constantOf(ends.high);
    if (!low || !high || !ends.lowEnds.empty() || !ends.highEnds.empty() || !ends.runs.empty())
      return 0;
    first = first ? std::min(*first, *low) : *low;
    end = end ? std::max(*end, *high + 1) : *high + 1;
  }
  return first ? *end - *first : 0;
}

} // namespace

Var *SweepBuilder::spanVar(const StmtRef &s, const Var *buffer, std::string &why) const {
  auto [at, fresh] = spans_.try_emplace({s.get(), buffer});
  auto &[span, var] = at->second;
  if (fresh) {
    span = analyzeWrittenSpan(f_, s, buffer);
    if (span.why.empty()) {
      var = newRuntimeObject(adj_.module(), buffer->name + "_span", "cgp::rt::ElementSpan");
      var->spanOf = const_cast<Var *>(buffer);
      var->spelling = "the elements of " + sourceName(*buffer) + " it overwrites";
      var->extent = knownSpanLength(span);
    }
  }
  // An index that moves with the loop's is a row per iteration or nothing
  // understood: RowWrites.h says why better.
  if (!var && !span.movesWithLoop)
    why = "it writes the caller's memory ('" + sourceName(*buffer) + "') " + span.why;
  return var;
}

Var *SweepBuilder::vectorSpanVar(const StmtRef &s, const Var *vector) const {
  auto [at, fresh] = spans_.try_emplace({s.get(), vector});
  auto &[span, var] = at->second;
  if (fresh) { // [0, size): as if an index below its size wrote each element
    Polynomial last, one;
    addTo(last, {vector->sizeVar}, 1);
    addTo(last, {}, -1);
    addTo(one, {}, 1);
    span.writes.push_back({Polynomial{}, {SpanLoop{Polynomial{}, last, one}}});
    var = newRuntimeObject(adj_.module(), vector->name + "_span", "cgp::rt::ElementSpan");
    var->spanOf = const_cast<Var *>(vector);
    var->spelling = "the elements of " + sourceName(*vector);
  }
  return var;
}

std::vector<StmtRef> SweepBuilder::spanCode(const StmtRef &s,
                                            const std::vector<Var *> &state) const {
  std::vector<StmtRef> code;
  for (Var *var : state) {
    if (!var->spanOf)
      continue;
    const WrittenSpan &span = spans_.at({s.get(), var->spanOf}).first;
    code.push_back(comment("the elements of " + var->spanOf->name +
                           " the loop overwrites, which its snapshots hold"));
    code.push_back(decl(var));
    for (const SpanWrite &w : span.writes) {
      WriteEnds ends = writeEnds(w);
      addTo(ends.high, {}, 1);
      ExprRef first = polynomialExpr(ends.low), end = polynomialExpr(ends.high);
      for (const ExprRef &e : ends.lowEnds)
        first = binary(BinaryOp::Add, first, e);
      for (const ExprRef &e : ends.highEnds)
        end = binary(BinaryOp::Add, end, e);
      StmtRef add = eval(method(var, "add", ScalarType::voidType(), {first, end}));
      ExprRef cond;
      for (const ExprRef &r : ends.runs)
        cond = cond ? binary(BinaryOp::LAnd, cond, r) : r;
      code.push_back(cond ? ifStmt(cond, block({add})) : add);
    }
  }
  return code;
}

} // namespace cgp
