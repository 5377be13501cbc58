//===- MathTable.cpp - every math function cgp-ad knows, one row each -----===//
//
// See MathTable.h. Rows may come in any order (each is stored at its
// MathFn); each derivative rule is written with the folding builders of
// ir/Fold.h and the context's value(), call(), temporary() and shared(), so
// that one rule serves reverse and forward mode on the host and on the
// device.
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
constexpr MathArg I = MathArg::Integer;

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

constexpr double kPi = 3.141592653589793;
constexpr double kLn2 = 0.6931471805599453;
constexpr double kLn10 = 2.302585092994046;
constexpr double kTwoOverSqrtPi = 1.1283791670955126;

/// fma(a, b, c) = a b + c.
std::vector<PartialRule> fmaPartials() {
  return {[](C &c) { return factor(c.arg(1)); }, [](C &c) { return factor(c.arg(0)); },
          [](C &c) { return factor(c.constant(1)); }};
}

/// a / b: 1 / b, and -(a / b) / b, from the quotient itself.
std::vector<PartialRule> quotientPartials() {
  return {[](C &c) { return quotient(c.constant(1), c.arg(1)); },
          [](C &c) { return negated(quotient(c.value(), c.arg(1))); }};
}

const Singularity infinite = Singularity::WhereValueInfinite;
const Singularity finite = Singularity::WhereValueFinite;
const PartialRule one = [](C &c) { return factor(c.constant(1)); };

MathFunction cFamily(MathFunction f) {
  f.naming = MathNaming::CFamily;
  return f;
}

MathFunction exact(MathFunction f) {
  f.naming = MathNaming::Exact;
  return f;
}

/// <cmath>'s roots, powers, exponentials, logarithms, trigonometry and
/// piecewise linear functions.
void addBasicRows(std::vector<MathFunction> &t) {
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
}

/// The rest of <cmath>: inverse and hyperbolic functions, the error and gamma
/// functions, arithmetic, rounding.
void addMoreRows(std::vector<MathFunction> &t) {
  // Inverse trigonometric and hyperbolic functions.
  auto oneOverSqrt = [](C &c, ExprRef radicand) {
    return quotient(c.constant(1), c.call(MathFn::Sqrt, {std::move(radicand)}));
  };
  t.push_back(row(MathFn::Asin, "asin", {F}, 25,
                  {[=](C &c) { // 1 / sqrt(1 - a^2)
                    return oneOverSqrt(c, sub(c.constant(1), mul(c.arg(0), c.arg(0))));
                  }},
                  finite));
  t.push_back(row(MathFn::Acos, "acos", {F}, 25,
                  {[=](C &c) { // -1 / sqrt(1 - a^2)
                    return negated(oneOverSqrt(c, sub(c.constant(1), mul(c.arg(0), c.arg(0)))));
                  }},
                  finite));
  t.push_back(row(MathFn::Sinh, "sinh", {F}, 25,
                  {[](C &c) { return factor(c.call(MathFn::Cosh, {c.arg(0)})); }}));
  t.push_back(row(MathFn::Cosh, "cosh", {F}, 25,
                  {[](C &c) { return factor(c.call(MathFn::Sinh, {c.arg(0)})); }}));
  t.push_back(row(MathFn::Asinh, "asinh", {F}, 25, {[=](C &c) { // 1 / sqrt(a^2 + 1)
                    return oneOverSqrt(c, add(mul(c.arg(0), c.arg(0)), c.constant(1)));
                  }}));
  t.push_back(row(MathFn::Acosh, "acosh", {F}, 25,
                  {[=](C &c) { // 1 / sqrt((a - 1)(a + 1))
                    const ExprRef &a = c.arg(0);
                    return oneOverSqrt(c, mul(sub(a, c.constant(1)), add(a, c.constant(1))));
                  }},
                  finite));
  t.push_back(row(MathFn::Atanh, "atanh", {F}, 25,
                  {[](C &c) { // 1 / (1 - a^2)
                    return quotient(c.constant(1), sub(c.constant(1), mul(c.arg(0), c.arg(0))));
                  }},
                  infinite));
  // Exponentials and logarithms in base 2 and 10.
  t.push_back(row(MathFn::Exp2, "exp2", {F}, 20,
                  {[](C &c) { return factor(mul(c.value(), c.constant(kLn2))); }}));
  t.push_back(row(MathFn::Log2, "log2", {F}, 20,
                  {[](C &c) { return quotient(c.constant(1), mul(c.arg(0), c.constant(kLn2))); }},
                  infinite));
  t.push_back(row(MathFn::Log10, "log10", {F}, 20,
                  {[](C &c) { return quotient(c.constant(1), mul(c.arg(0), c.constant(kLn10))); }},
                  infinite));
  // The error and gamma functions.
  auto gaussian = [](C &c) { // 2 / sqrt(pi) exp(-a^2)
    return mul(c.constant(kTwoOverSqrtPi), c.call(MathFn::Exp, {neg(mul(c.arg(0), c.arg(0)))}));
  };
  t.push_back(row(MathFn::Erf, "erf", {F}, 25, {[=](C &c) { return factor(gaussian(c)); }}));
  t.push_back(row(MathFn::Erfc, "erfc", {F}, 25,
                  {[=](C &c) { return negated(factor(gaussian(c))); }}));
  t.push_back(row(MathFn::Tgamma, "tgamma", {F}, 40,
                  {[](C &c) { // tgamma(a) digamma(a)
                    return factor(mul(c.value(), c.call(MathFn::Digamma, {c.arg(0)})));
                  }},
                  infinite));
  t.push_back(row(MathFn::Lgamma, "lgamma", {F}, 40,
                  {[](C &c) { return factor(c.call(MathFn::Digamma, {c.arg(0)})); }}, infinite));
  // Arithmetic.
  t.push_back(row(MathFn::Fma, "fma", {F, F, F}, 2, fmaPartials()));
  t.push_back(row(MathFn::Fmod, "fmod", {F, F}, 20,
                  {one, [](C &c) { // fmod(a, b) = a - trunc(a / b) b
                     return negated(
                         factor(c.call(MathFn::Trunc, {div(c.arg(0), c.arg(1))})));
                   }}));
  t.push_back(row(MathFn::Remainder, "remainder", {F, F}, 20,
                  {one, [](C &c) { // remainder(a, b) = a - rint(a / b) b
                     return negated(factor(c.call(MathFn::Rint, {div(c.arg(0), c.arg(1))})));
                   }}));
  t.push_back(row(MathFn::Copysign, "copysign", {F, F}, 1,
                  {[](C &c) { // |a| with the sign of b: the product of the signs
                     return factor(mul(c.call(MathFn::Copysign, {c.constant(1), c.arg(0)}),
                                       c.call(MathFn::Copysign, {c.constant(1), c.arg(1)})));
                   },
                   nullptr}));
  t.push_back(piecewise(row(MathFn::Fdim, "fdim", {F, F}, 1,
                            {one, [](C &c) { return factor(c.constant(-1)); }}),
                        [](C &c) { return binary(BinaryOp::Lt, c.arg(1), c.arg(0)); },
                        {nullptr, nullptr})); // a - b when b < a, else 0
  t.push_back(row(MathFn::Ldexp, "ldexp", {F, I}, 4,
                  {[](C &c) { return factor(c.call(MathFn::Ldexp, {c.constant(1), c.arg(1)})); },
                   nullptr}));
  t.push_back(row(MathFn::Scalbn, "scalbn", {F, I}, 4,
                  {[](C &c) { return factor(c.call(MathFn::Scalbn, {c.constant(1), c.arg(1)})); },
                   nullptr}));
  t.push_back(row(MathFn::Hypot3, "hypot", {F, F, F}, 20,
                  {[](C &c) { return quotient(c.arg(0), c.shared(c.value(), "hypot_value")); },
                   [](C &c) { return quotient(c.arg(1), c.shared(c.value(), "hypot_value")); },
                   [](C &c) { return quotient(c.arg(2), c.shared(c.value(), "hypot_value")); }},
                  finite));
  // Rounding to integers: a derivative of zero, where there is one.
  for (auto [fn, name] : {std::pair{MathFn::Floor, "floor"}, {MathFn::Ceil, "ceil"},
                          {MathFn::Round, "round"}, {MathFn::Trunc, "trunc"},
                          {MathFn::Nearbyint, "nearbyint"}, {MathFn::Rint, "rint"}})
    t.push_back(row(fn, name, {F}, 1, {nullptr}));
}

/// CUDA's functions outside std and its fast intrinsics.
void addCudaRows(std::vector<MathFunction> &t) {
  // CUDA's functions outside std (exp10 is GNU's too): `name` and `namef`.
  t.push_back(cFamily(row(MathFn::Rsqrt, "rsqrt", {F}, 6,
                          {[](C &c) { // -1/2 a^(-3/2) = -rsqrt(a) / (2a)
                            return negated(quotient(c.value(), mul(c.constant(2), c.arg(0))));
                          }},
                          infinite)));
  t.push_back(cFamily(row(MathFn::Rcbrt, "rcbrt", {F}, 20,
                          {[](C &c) { // -1/3 a^(-4/3) = -rcbrt(a) / (3a)
                            return negated(quotient(c.value(), mul(c.constant(3), c.arg(0))));
                          }},
                          infinite)));
  t.push_back(cFamily(row(MathFn::Exp10, "exp10", {F}, 20,
                          {[](C &c) { return factor(mul(c.value(), c.constant(kLn10))); }})));
  t.push_back(cFamily(row(MathFn::Sinpi, "sinpi", {F}, 25, {[](C &c) {
                            return factor(mul(c.constant(kPi), c.call(MathFn::Cospi, {c.arg(0)})));
                          }})));
  t.push_back(cFamily(row(MathFn::Cospi, "cospi", {F}, 25, {[](C &c) {
                            return factor(
                                mul(c.constant(-kPi), c.call(MathFn::Sinpi, {c.arg(0)})));
                          }})));

  // CUDA's fast single-precision intrinsics: their derivatives use the
  // fast forms too.
  t.push_back(exact(row(MathFn::FastExp, "__expf", {F}, 4,
                        {[](C &c) { return factor(c.value()); }})));
  t.push_back(exact(row(MathFn::FastExp10, "__exp10f", {F}, 4,
                        {[](C &c) { return factor(mul(c.value(), c.constant(kLn10))); }})));
  t.push_back(exact(row(MathFn::FastLog, "__logf", {F}, 4,
                        {[](C &c) { return quotient(c.constant(1), c.arg(0)); }}, infinite)));
  t.push_back(exact(row(
      MathFn::FastLog2, "__log2f", {F}, 4,
      {[](C &c) { return quotient(c.constant(1), mul(c.arg(0), c.constant(kLn2))); }},
      infinite)));
  t.push_back(exact(row(
      MathFn::FastLog10, "__log10f", {F}, 4,
      {[](C &c) { return quotient(c.constant(1), mul(c.arg(0), c.constant(kLn10))); }},
      infinite)));
  t.push_back(exact(row(MathFn::FastSin, "__sinf", {F}, 4,
                        {[](C &c) { return factor(c.call(MathFn::FastCos, {c.arg(0)})); }})));
  t.push_back(exact(row(MathFn::FastCos, "__cosf", {F}, 4,
                        {[](C &c) { return factor(neg(c.call(MathFn::FastSin, {c.arg(0)}))); }})));
  t.push_back(exact(row(MathFn::FastTan, "__tanf", {F}, 8,
                        {[](C &c) {
                          ExprRef v = c.temporary(c.value(), "tanf_value");
                          return factor(add(c.constant(1), mul(v, v)));
                        }},
                        infinite)));
  t.push_back(exact(row(MathFn::FastTanh, "__tanhf", {F}, 4, {[](C &c) {
                          ExprRef v = c.temporary(c.value(), "tanhf_value");
                          return factor(sub(c.constant(1), mul(v, v)));
                        }})));
  t.push_back(exact(row(MathFn::FastPow, "__powf", {F, F}, 8,
                        {[](C &c) { // b a^(b-1)
                           const ExprRef &a = c.arg(0), &b = c.arg(1);
                           ExprRef bm1 = b->kind == ExprKind::FloatLit
                                             ? floatLit(b->floatValue - 1, c.type())
                                             : sub(b, c.constant(1));
                           return factor(mul(b, c.call(MathFn::FastPow, {a, bm1})));
                         },
                         [](C &c) { // a^b log(a)
                           return factor(mul(c.value(), c.call(MathFn::FastLog, {c.arg(0)})));
                         }},
                        finite)));
  t.push_back(withAliases(exact(row(MathFn::FastDivide, "__fdividef", {F, F}, 2,
                                    quotientPartials(), infinite)),
                          {"fdividef"}));
  t.push_back(exact(piecewise(row(MathFn::Saturate, "__saturatef", {F}, 1, {one}),
                              [](C &c) { // inside (0, 1)
                                return binary(BinaryOp::LAnd,
                                              binary(BinaryOp::Lt, c.constant(0), c.arg(0)),
                                              binary(BinaryOp::Lt, c.arg(0), c.constant(1)));
                              },
                              {nullptr})));
}

/// CUDA's arithmetic in a rounding mode.
void addRoundedRows(std::vector<MathFunction> &t) {
  // Its derivatives are those of the exact operations. Each operation's four
  // enumerators are consecutive, in this order.
  static const char *const modes[] = {"rn", "rz", "ru", "rd"};
  auto rounded = [&](MathFn first, const std::string &prefix, std::vector<MathArg> args,
                     double cost, std::vector<PartialRule> partials,
                     Singularity singular = Singularity::None) {
    for (int m = 0; m < 4; ++m)
      t.push_back(exact(row(static_cast<MathFn>(static_cast<int>(first) + m), prefix + modes[m],
                            args, cost, partials, singular)));
  };
  auto minusOne = [](C &c) { return factor(c.constant(-1)); };
  auto second = [](C &c) { return factor(c.arg(1)); };
  auto first = [](C &c) { return factor(c.arg(0)); };
  auto reciprocal = [](C &c) { // -1/a^2 = -rcp(a)^2
    ExprRef v = c.temporary(c.value(), "rcp_value");
    return negated(factor(mul(v, v)));
  };
  auto root = [](C &c) { return quotient(c.constant(1), mul(c.constant(2), c.value())); };
  for (bool single : {true, false}) {
    std::string p = single ? "__f" : "__d";
    rounded(single ? MathFn::FaddRn : MathFn::DaddRn, p + "add_", {F, F}, 1, {one, one});
    rounded(single ? MathFn::FsubRn : MathFn::DsubRn, p + "sub_", {F, F}, 1, {one, minusOne});
    rounded(single ? MathFn::FmulRn : MathFn::DmulRn, p + "mul_", {F, F}, 1, {second, first});
    rounded(single ? MathFn::FdivRn : MathFn::DdivRn, p + "div_", {F, F}, 4, quotientPartials(),
            infinite);
    rounded(single ? MathFn::FrcpRn : MathFn::DrcpRn, p + "rcp_", {F}, 4, {reciprocal}, infinite);
    rounded(single ? MathFn::FsqrtRn : MathFn::DsqrtRn, p + "sqrt_", {F}, 6, {root}, finite);
  }
  rounded(MathFn::FmafRn, "__fmaf_", {F, F, F}, 2, fmaPartials());
  rounded(MathFn::FmafIeeeRn, "__fmaf_ieee_", {F, F, F}, 2, fmaPartials());
  rounded(MathFn::FmaRn, "__fma_", {F, F, F}, 2, fmaPartials());
  t.push_back(exact(row(MathFn::FrsqrtRn, "__frsqrt_rn", {F}, 6,
                        {[](C &c) {
                          return negated(quotient(c.value(), mul(c.constant(2), c.arg(0))));
                        }},
                        infinite)));
}

/// A complex number as two IR expressions, and the arithmetic the
/// derivatives of the complex rows need.
struct Pair {
  ExprRef re, im;
};
Pair operator*(const Pair &a, const Pair &b) {
  return {sub(mul(a.re, b.re), mul(a.im, b.im)), add(mul(a.re, b.im), mul(a.im, b.re))};
}
Pair scaled(const ExprRef &k, const Pair &a) { return {mul(k, a.re), mul(k, a.im)}; }
/// a / b = a conj(b) / |b|^2.
Pair quotientOf(C &c, const Pair &a, const Pair &b, const std::string &name) {
  ExprRef n = c.shared(add(mul(b.re, b.re), mul(b.im, b.im)), name);
  return {div(add(mul(a.re, b.re), mul(a.im, b.im)), n),
          div(sub(mul(a.im, b.re), mul(a.re, b.im)), n)};
}
/// 1 / b = conj(b) / |b|^2.
Pair reciprocalOf(C &c, const Pair &b, const std::string &name) {
  ExprRef n = c.shared(add(mul(b.re, b.re), mul(b.im, b.im)), name);
  return {div(b.re, n), neg(div(b.im, n))};
}
/// The principal logarithm of x + iy: log|z| + i arg z.
Pair logOf(C &c, const ExprRef &x, const ExprRef &y) {
  return {c.call(MathFn::Log, {c.call(MathFn::Hypot, {x, y})}), c.call(MathFn::Atan2, {y, x})};
}

/// What one argument of a complex function is: both parts of a complex
/// number (two floating arguments), a real number, or an integer.
enum class Slot { Complex, Real, Integer };

/// The derivatives of a complex function with respect to each of its
/// complex or real arguments (nothing for an integer one), complex numbers
/// themselves since the functions are analytic: the context gives the
/// arguments and `w`, the function's value.
using ComplexRule = std::function<std::vector<Pair>(C &, const Pair &w)>;

/// The two rows of a complex function, its real part (`re`) and its
/// imaginary part (`im`, the next enumerator), spelled
/// `cgp::complex_<stem>_re`/`_im`. With g = p + iq the derivative with
/// respect to a complex argument x + iy, the Cauchy-Riemann equations give
/// d re/dx = p, d re/dy = -q, d im/dx = q, d im/dy = p; with respect to a
/// real argument a, d re/da = p and d im/da = q.
void addComplexRows(std::vector<MathFunction> &t, MathFn re, const std::string &stem,
                    std::vector<Slot> slots, double cost, ComplexRule rule,
                    Singularity singular = Singularity::None) {
  MathFn im = static_cast<MathFn>(static_cast<int>(re) + 1);
  for (int part = 0; part < 2; ++part) {
    MathFn self = part == 0 ? re : im, other = part == 0 ? im : re;
    std::vector<MathArg> args;
    std::vector<PartialRule> partials;
    int derivative = 0; // which of the rule's derivatives
    for (Slot slot : slots) {
      if (slot == Slot::Integer) {
        args.push_back(I);
        partials.push_back(nullptr);
        continue;
      }
      int parts = slot == Slot::Complex ? 2 : 1;
      for (int k = 0; k < parts; ++k) {
        args.push_back(F);
        // d(part)/d(x) is p (re) or q (im); d(part)/d(y) is -q (re) or p (im).
        bool imaginaryOfG = (part == 1) != (k == 1);
        bool minus = part == 0 && k == 1;
        partials.push_back([=](C &c) {
          ExprRef own = c.value();
          ExprRef rest = c.shared(c.call(other, c.mathCall()->operands),
                                  stem + (part == 0 ? "_im" : "_re") + "_value");
          Pair w = part == 0 ? Pair{own, rest} : Pair{rest, own};
          Pair g = rule(c, w)[derivative];
          Partial p = factor(imaginaryOfG ? g.im : g.re);
          return minus ? negated(p) : p;
        });
      }
      ++derivative;
    }
    MathFunction f = exact(row(self, "cgp::complex_" + stem + (part == 0 ? "_re" : "_im"), args,
                               cost, partials, singular));
    f.header = "cgp/complex.h";
    t.push_back(f);
  }
}

/// std::complex's functions whose values generated code takes from the
/// standard library itself, so that they are the primal's to the last bit.
void addComplexFunctions(std::vector<MathFunction> &t) {
  using S = Slot;
  auto arg = [](C &c, size_t i) { return c.arg(i); };
  addComplexRows(t, MathFn::ComplexDivRe, "div", {S::Complex, S::Complex}, 8,
                 [=](C &c, const Pair &w) { // z / v: 1 / v and -w / v
                   Pair v{arg(c, 2), arg(c, 3)};
                   Pair byZ = reciprocalOf(c, v, "divisor_norm");
                   Pair byV = quotientOf(c, w, v, "divisor_norm");
                   return std::vector<Pair>{byZ, {neg(byV.re), neg(byV.im)}};
                 },
                 Singularity::WhereValueInfinite);
  addComplexRows(t, MathFn::ComplexExpRe, "exp", {S::Complex}, 45,
                 [](C &, const Pair &w) { return std::vector<Pair>{w}; });
  addComplexRows(t, MathFn::ComplexLogRe, "log", {S::Complex}, 45,
                 [=](C &c, const Pair &) { // 1 / z
                   Pair z{arg(c, 0), arg(c, 1)};
                   return std::vector<Pair>{reciprocalOf(c, z, "argument_norm")};
                 },
                 Singularity::WhereValueInfinite);
  addComplexRows(t, MathFn::ComplexSqrtRe, "sqrt", {S::Complex}, 30,
                 [](C &c, const Pair &w) { // 1 / (2w)
                   Pair r = reciprocalOf(c, w, "root_norm");
                   return std::vector<Pair>{{mul(c.constant(0.5), r.re), mul(c.constant(0.5), r.im)}};
                 },
                 Singularity::WhereValueFinite);
  addComplexRows(t, MathFn::ComplexLog10Re, "log10", {S::Complex}, 45,
                 [=](C &c, const Pair &) { // 1 / (z ln 10)
                   Pair z{arg(c, 0), arg(c, 1)};
                   return std::vector<Pair>{
                       reciprocalOf(c, scaled(c.constant(kLn10), z), "argument_norm")};
                 },
                 Singularity::WhereValueInfinite);
  // The trigonometric and hyperbolic functions: each derivative is another
  // of them (or 1 +- w^2), at the same argument.
  auto other = [=](MathFn re, double sign) {
    return [=](C &c, const Pair &) {
      MathFn im = static_cast<MathFn>(static_cast<int>(re) + 1);
      std::vector<ExprRef> z = {arg(c, 0), arg(c, 1)};
      Pair g{c.call(re, z), c.call(im, z)};
      return std::vector<Pair>{sign < 0 ? Pair{neg(g.re), neg(g.im)} : g};
    };
  };
  auto squared = [](double sign) { // 1 + sign w^2
    return [=](C &c, const Pair &w) {
      Pair w2 = w * w;
      return std::vector<Pair>{{add(c.constant(1), mul(c.constant(sign), w2.re)),
                                mul(c.constant(sign), w2.im)}};
    };
  };
  addComplexRows(t, MathFn::ComplexSinRe, "sin", {S::Complex}, 60, other(MathFn::ComplexCosRe, 1));
  addComplexRows(t, MathFn::ComplexCosRe, "cos", {S::Complex}, 60,
                 other(MathFn::ComplexSinRe, -1));
  addComplexRows(t, MathFn::ComplexTanRe, "tan", {S::Complex}, 60, squared(1),
                 Singularity::WhereValueInfinite);
  addComplexRows(t, MathFn::ComplexSinhRe, "sinh", {S::Complex}, 60,
                 other(MathFn::ComplexCoshRe, 1));
  addComplexRows(t, MathFn::ComplexCoshRe, "cosh", {S::Complex}, 60,
                 other(MathFn::ComplexSinhRe, 1));
  addComplexRows(t, MathFn::ComplexTanhRe, "tanh", {S::Complex}, 60, squared(-1),
                 Singularity::WhereValueInfinite);
  // pow, in each of the forms <complex> declares; d/dz of z^s is s z^(s-1),
  // from the same function, so that it is exact where z is 0.
  addComplexRows(t, MathFn::ComplexPowRe, "pow", {S::Complex, S::Complex}, 90,
                 [=](C &c, const Pair &w) { // z^s: s z^(s-1), and w log z
                   Pair s{arg(c, 2), arg(c, 3)};
                   std::vector<ExprRef> lower = {arg(c, 0), arg(c, 1),
                                                 sub(s.re, c.constant(1)), s.im};
                   Pair power{c.call(MathFn::ComplexPowRe, lower),
                              c.call(MathFn::ComplexPowIm, lower)};
                   return std::vector<Pair>{s * power, w * logOf(c, arg(c, 0), arg(c, 1))};
                 },
                 Singularity::WhereValueFinite);
  addComplexRows(t, MathFn::ComplexPowRealRe, "pow_real", {S::Complex, S::Real}, 90,
                 [=](C &c, const Pair &w) { // z^p: p z^(p-1), and w log z
                   std::vector<ExprRef> lower = {arg(c, 0), arg(c, 1),
                                                 sub(arg(c, 2), c.constant(1))};
                   Pair power{c.call(MathFn::ComplexPowRealRe, lower),
                              c.call(MathFn::ComplexPowRealIm, lower)};
                   return std::vector<Pair>{scaled(arg(c, 2), power),
                                            w * logOf(c, arg(c, 0), arg(c, 1))};
                 },
                 Singularity::WhereValueFinite);
  addComplexRows(t, MathFn::RealPowComplexRe, "real_pow", {S::Real, S::Complex}, 90,
                 [=](C &c, const Pair &w) { // a^s: s a^(s-1), and w log a
                   Pair s{arg(c, 1), arg(c, 2)};
                   std::vector<ExprRef> lower = {arg(c, 0), sub(s.re, c.constant(1)), s.im};
                   Pair power{c.call(MathFn::RealPowComplexRe, lower),
                              c.call(MathFn::RealPowComplexIm, lower)};
                   return std::vector<Pair>{s * power, w * logOf(c, arg(c, 0), c.constant(0))};
                 },
                 Singularity::WhereValueFinite);
  addComplexRows(t, MathFn::ComplexPowIntRe, "pow_int", {S::Complex, S::Integer}, 40,
                 [=](C &c, const Pair &) { // z^n: n z^(n-1)
                   std::vector<ExprRef> lower = {arg(c, 0), arg(c, 1),
                                                 binary(BinaryOp::Sub, arg(c, 2), intLit(1))};
                   Pair power{c.call(MathFn::ComplexPowIntRe, lower),
                              c.call(MathFn::ComplexPowIntIm, lower)};
                   return std::vector<Pair>{
                       scaled(cast(c.type(), arg(c, 2), false), power)};
                 });
}

std::vector<MathFunction> buildRows() {
  std::vector<MathFunction> t;
  addBasicRows(t);
  addMoreRows(t);
  addCudaRows(t);
  addRoundedRows(t);
  // Generated code only: the digamma function, for the derivatives of
  // lgamma and tgamma. It is never differentiated itself.
  MathFunction digamma = exact(row(MathFn::Digamma, "cgp::digamma", {F}, 40, {nullptr}));
  digamma.header = "cgp/digamma.h";
  t.push_back(digamma);
  addComplexFunctions(t);
  return t;
}

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
    InPlaceContext probe(math(f.fn, ScalarType::doubleType(), args));
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

const MathPair *mathPairNamed(const std::string &name) {
  static const MathPair pairs[] = {
      {"sincos", MathFn::Sin, MathFn::Cos},         {"sincosf", MathFn::Sin, MathFn::Cos},
      {"__sincosf", MathFn::FastSin, MathFn::FastCos}, {"sincospi", MathFn::Sinpi, MathFn::Cospi},
      {"sincospif", MathFn::Sinpi, MathFn::Cospi},
  };
  for (const MathPair &p : pairs)
    if (name == p.name)
      return &p;
  return nullptr;
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
  std::string name = mathFunction(fn).name;
  name = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
  return name.substr(name.find_first_not_of('_')) + "_value"; // no reserved names
}

} // namespace cgp
