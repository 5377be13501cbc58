//===- MathTable.cpp - every math function cgp-ad knows, one row each -----===//
//
// See MathTable.h. The rows are in the order of MathFn; each derivative rule
// is written with the folding builders of ir/Fold.h and the context's
// value(), call(), temporary() and shared(), so that one rule serves
// reverse and forward mode on the host and on the device.
//
//===----------------------------------------------------------------------===//
#include "ir/MathTable.h"

#include "ir/Fold.h"

#include <cassert>
#include <map>

namespace cgp {

ExprRef Partial::times(const ExprRef &seed) const {
  ExprRef product = mul(seed, num);
  ExprRef e = den ? div(product, den) : product;
  return negate ? neg(e) : e;
}

ExprRef Partial::factor() const {
  ExprRef e = den ? div(num, den) : num;
  return negate ? neg(e) : e;
}

bool MathFunction::differentiable(size_t arg) const {
  return (arg < partials.size() && partials[arg]) || (arg < otherwise.size() && otherwise[arg]);
}

namespace {

using C = DerivativeContext;
constexpr MathArg F = MathArg::Floating;

Partial factor(ExprRef e) { return {std::move(e), nullptr, false}; }
Partial quotient(ExprRef num, ExprRef den) { return {std::move(num), std::move(den), false}; }
Partial negated(Partial p) {
  p.negate = !p.negate;
  return p;
}

MathFunction row(MathFn fn, std::string name, std::vector<MathArg> args, double cost,
                 std::vector<PartialRule> partials, Singularity singular = Singularity::None) {
  MathFunction f;
  f.fn = fn;
  f.name = std::move(name);
  f.args = std::move(args);
  f.cost = cost;
  f.partials = std::move(partials);
  f.singular = singular;
  return f;
}

/// A row whose derivative is `partials` where `condition` holds and
/// `otherwise` elsewhere.
MathFunction piecewise(MathFunction f, std::function<ExprRef(C &)> condition,
                       std::vector<PartialRule> otherwise) {
  f.condition = std::move(condition);
  f.otherwise = std::move(otherwise);
  return f;
}

MathFunction withAliases(MathFunction f, std::vector<std::string> aliases) {
  f.aliases = std::move(aliases);
  return f;
}

std::vector<MathFunction> buildRows() {
  std::vector<MathFunction> t;
  const Singularity infinite = Singularity::WhereValueInfinite;
  const Singularity finite = Singularity::WhereValueFinite;

  // Powers and roots.
  t.push_back(row(MathFn::Sqrt, "sqrt", {F}, 6,
                  {[](C &c) { return quotient(c.constant(1), mul(c.constant(2), c.value())); }},
                  finite));
  // Exponentials and logarithms.
  t.push_back(row(MathFn::Exp, "exp", {F}, 20, {[](C &c) { return factor(c.value()); }}));
  t.push_back(row(MathFn::Log, "log", {F}, 20,
                  {[](C &c) { return quotient(c.constant(1), c.arg(0)); }}, infinite));
  t.push_back(row(MathFn::Log1p, "log1p", {F}, 20,
                  {[](C &c) { return quotient(c.constant(1), add(c.constant(1), c.arg(0))); }},
                  infinite));
  t.push_back(row(MathFn::Expm1, "expm1", {F}, 20,
                  {[](C &c) { return factor(c.call(MathFn::Exp, {c.arg(0)})); }}));
  // Trigonometric and hyperbolic functions.
  t.push_back(row(MathFn::Sin, "sin", {F}, 25,
                  {[](C &c) { return factor(c.call(MathFn::Cos, {c.arg(0)})); }}));
  t.push_back(row(MathFn::Cos, "cos", {F}, 25,
                  {[](C &c) { return factor(neg(c.call(MathFn::Sin, {c.arg(0)}))); }}));
  t.push_back(row(MathFn::Tan, "tan", {F}, 25,
                  {[](C &c) {
                    ExprRef v = c.temporary(c.value(), "tan_value");
                    return factor(add(c.constant(1), mul(v, v)));
                  }},
                  infinite));
  t.push_back(row(MathFn::Tanh, "tanh", {F}, 25, {[](C &c) {
                    ExprRef v = c.temporary(c.value(), "tanh_value");
                    return factor(sub(c.constant(1), mul(v, v)));
                  }}));
  t.push_back(row(MathFn::Atan, "atan", {F}, 25, {[](C &c) {
                    const ExprRef &a = c.arg(0);
                    return quotient(c.constant(1), add(c.constant(1), mul(a, a)));
                  }}));
  t.push_back(row(MathFn::Atan2, "atan2", {F, F}, 40,
                  {[](C &c) { // atan2(a, b): b / (a^2 + b^2)
                     const ExprRef &a = c.arg(0), &b = c.arg(1);
                     return quotient(b, c.shared(add(mul(a, a), mul(b, b)), "radius2"));
                   },
                   [](C &c) { // -a / (a^2 + b^2)
                     const ExprRef &a = c.arg(0), &b = c.arg(1);
                     return negated(quotient(a, c.shared(add(mul(a, a), mul(b, b)), "radius2")));
                   }},
                  finite));
  t.push_back(row(MathFn::Pow, "pow", {F, F}, 40,
                  {[](C &c) { // a^b: b a^(b-1)
                     const ExprRef &a = c.arg(0), &b = c.arg(1);
                     ExprRef bm1 = b->kind == ExprKind::FloatLit
                                       ? floatLit(b->floatValue - 1, c.type())
                                       : sub(b, c.constant(1));
                     return factor(mul(b, c.call(MathFn::Pow, {a, bm1})));
                   },
                   [](C &c) { // a^b log(a)
                     return factor(mul(c.value(), c.call(MathFn::Log, {c.arg(0)})));
                   }},
                  finite));
  t.push_back(row(MathFn::Hypot, "hypot", {F, F}, 20,
                  {[](C &c) { return quotient(c.arg(0), c.shared(c.value(), "hypot_value")); },
                   [](C &c) { return quotient(c.arg(1), c.shared(c.value(), "hypot_value")); }},
                  finite));
  t.push_back(row(MathFn::Cbrt, "cbrt", {F}, 20,
                  {[](C &c) {
                    ExprRef v = c.temporary(c.value(), "cbrt_value");
                    return quotient(c.constant(1), mul(c.constant(3), mul(v, v)));
                  }},
                  finite));
  // Piecewise linear functions: the derivative of the piece the value is on.
  auto one = [](C &c) { return factor(c.constant(1)); };
  t.push_back(withAliases(
      piecewise(row(MathFn::Fabs, "fabs", {F}, 1, {[](C &c) { return factor(c.constant(-1)); }}),
                [](C &c) { return binary(BinaryOp::Lt, c.arg(0), c.constant(0)); }, {one}),
      {"abs"})); // std::abs of a floating value
  // fmin(a, b) is b when b < a, else a; fmax(a, b) is b when a < b, else a.
  t.push_back(piecewise(row(MathFn::Fmin, "fmin", {F, F}, 1, {nullptr, one}),
                        [](C &c) { return binary(BinaryOp::Lt, c.arg(1), c.arg(0)); },
                        {one, nullptr}));
  t.push_back(piecewise(row(MathFn::Fmax, "fmax", {F, F}, 1, {nullptr, one}),
                        [](C &c) { return binary(BinaryOp::Lt, c.arg(0), c.arg(1)); },
                        {one, nullptr}));
  return t;
}

/// A context that only notes whether a rule reads the call's value.
class ProbeContext final : public DerivativeContext {
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

std::vector<MathFunction> buildTable() {
  std::vector<MathFunction> table(static_cast<size_t>(MathFn::NumFunctions));
  for (MathFunction &f : buildRows()) {
    size_t at = static_cast<size_t>(f.fn);
    assert(table[at].name.empty() && "two rows for one MathFn");
    // Placeholders of the right types stand for the arguments.
    std::vector<ExprRef> args;
    for (MathArg kind : f.args)
      args.push_back(kind == MathArg::Floating ? opaque("x", ScalarType::doubleType(), {})
                                               : opaque("n", ScalarType::intType(), {}));
    ProbeContext probe(math(f.fn, ScalarType::doubleType(), args));
    for (const std::vector<PartialRule> *rules : {&f.partials, &f.otherwise})
      for (const PartialRule &rule : *rules)
        if (rule)
          rule(probe);
    f.derivativeReadsValue = probe.readValue;
    table[at] = std::move(f);
  }
  for ([[maybe_unused]] const MathFunction &f : table)
    assert(!f.name.empty() && "a MathFn without a row");
  return table;
}

} // namespace

const std::vector<MathFunction> &mathFunctions() {
  static const std::vector<MathFunction> table = buildTable();
  return table;
}

const MathFunction &mathFunction(MathFn fn) {
  return mathFunctions()[static_cast<size_t>(fn)];
}

std::vector<const MathFunction *> mathFunctionsNamed(const std::string &name) {
  static const std::multimap<std::string, const MathFunction *> byName = [] {
    std::multimap<std::string, const MathFunction *> m;
    for (const MathFunction &f : mathFunctions()) {
      m.emplace(f.name, &f);
      if (f.naming != MathNaming::Exact)
        m.emplace(f.name + "f", &f);
      for (const std::string &alias : f.aliases)
        m.emplace(alias, &f);
    }
    return m;
  }();
  std::vector<const MathFunction *> out;
  auto [from, to] = byName.equal_range(name);
  for (auto it = from; it != to; ++it)
    out.push_back(it->second);
  return out;
}

std::string mathCallName(MathFn fn, const ScalarType &t) {
  const MathFunction &f = mathFunction(fn);
  switch (f.naming) {
  case MathNaming::Std:
    return "std::" + f.name;
  case MathNaming::CFamily:
    return t.kind == ScalarType::Float ? f.name + "f" : f.name;
  case MathNaming::Exact:
    break;
  }
  return f.name;
}

std::string mathValueName(MathFn fn) {
  const std::string &name = mathFunction(fn).name;
  return name.substr(name.find_first_not_of('_')) + "_value";
}

} // namespace cgp
