// Unit tests of the math table (ir/MathTable.h): every row's derivative rule,
// evaluated by a small interpreter of IR expressions, against central finite
// differences of the function at a few points of its domain (away from the
// kinks of the piecewise ones); the names that find rows and the spellings
// of generated calls; and cgp::digamma against high-precision values.
// std::complex's rows are the parts of include/cgp/complex.h's functions.
#include "ir/MathTable.h"
#include "ir/Printer.h"

#include <cgp/complex.h>
#include <cgp/digamma.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

using namespace cgp;

namespace {

using Args = std::vector<double>;

/// A numeric implementation of each function, on doubles (CUDA's fast and
/// rounded forms by their exact counterparts), and points to test it at.
struct Reference {
  std::function<double(const Args &)> f;
  std::vector<Args> points;
};

const std::map<MathFn, Reference> &references() {
  using A = const Args &;
  static const std::vector<Args> anywhere = {{-1.3}, {0.4}, {2.1}};
  static const std::vector<Args> positive = {{0.3}, {1.7}, {4.2}};
  static const std::vector<Args> unit = {{-0.7}, {0.2}, {0.9}};
  static const std::vector<Args> pairs = {{0.7, 1.9}, {-1.2, 0.5}, {2.5, -0.8}};
  static const std::vector<Args> positivePairs = {{0.7, 1.9}, {1.6, 0.5}, {2.5, 2.8}};
  static const std::vector<Args> triples = {{0.7, 1.9, -0.4}, {-1.2, 0.5, 2.2}};
  static const std::vector<Args> withInteger = {{0.7, 3}, {-1.9, -2}};
  auto unary = [](double (*f)(double), std::vector<Args> points) {
    return Reference{[f](A a) { return f(a[0]); }, std::move(points)};
  };
  auto binaryFn = [](double (*f)(double, double), std::vector<Args> points) {
    return Reference{[f](A a) { return f(a[0], a[1]); }, std::move(points)};
  };
  static const std::map<MathFn, Reference> table = [&] {
    std::map<MathFn, Reference> t;
    t[MathFn::Sqrt] = unary(std::sqrt, positive);
    t[MathFn::Exp] = unary(std::exp, anywhere);
    t[MathFn::Log] = unary(std::log, positive);
    t[MathFn::Log1p] = unary(std::log1p, positive);
    t[MathFn::Expm1] = unary(std::expm1, anywhere);
    t[MathFn::Sin] = unary(std::sin, anywhere);
    t[MathFn::Cos] = unary(std::cos, anywhere);
    t[MathFn::Tan] = unary(std::tan, anywhere);
    t[MathFn::Tanh] = unary(std::tanh, anywhere);
    t[MathFn::Atan] = unary(std::atan, anywhere);
    t[MathFn::Atan2] = binaryFn(std::atan2, pairs);
    t[MathFn::Pow] = binaryFn(std::pow, positivePairs);
    t[MathFn::Hypot] = binaryFn(std::hypot, pairs);
    t[MathFn::Cbrt] = unary(std::cbrt, {{-2.3}, {0.4}, {5.0}});
    t[MathFn::Fabs] = unary(std::fabs, anywhere);
    t[MathFn::Fmin] = binaryFn(std::fmin, pairs);
    t[MathFn::Fmax] = binaryFn(std::fmax, pairs);
    t[MathFn::Asin] = unary(std::asin, unit);
    t[MathFn::Acos] = unary(std::acos, unit);
    t[MathFn::Sinh] = unary(std::sinh, anywhere);
    t[MathFn::Cosh] = unary(std::cosh, anywhere);
    t[MathFn::Asinh] = unary(std::asinh, anywhere);
    t[MathFn::Acosh] = unary(std::acosh, {{1.2}, {2.5}, {9.0}});
    t[MathFn::Atanh] = unary(std::atanh, unit);
    t[MathFn::Exp2] = unary(std::exp2, anywhere);
    t[MathFn::Log2] = unary(std::log2, positive);
    t[MathFn::Log10] = unary(std::log10, positive);
    t[MathFn::Erf] = unary(std::erf, anywhere);
    t[MathFn::Erfc] = unary(std::erfc, anywhere);
    t[MathFn::Tgamma] = unary(std::tgamma, {{0.3}, {2.6}, {-1.4}, {-2.7}});
    t[MathFn::Lgamma] = unary(std::lgamma, {{0.3}, {2.6}, {-1.4}, {-2.7}, {40.5}});
    t[MathFn::Fma] = Reference{[](A a) { return std::fma(a[0], a[1], a[2]); }, triples};
    t[MathFn::Fmod] = binaryFn(std::fmod, {{5.3, 1.7}, {-5.3, 1.7}, {2.2, -0.9}});
    t[MathFn::Remainder] = binaryFn(std::remainder, {{5.3, 1.7}, {-5.3, 1.7}, {2.2, -0.9}});
    t[MathFn::Copysign] = binaryFn(std::copysign, pairs);
    t[MathFn::Fdim] = binaryFn(std::fdim, pairs);
    t[MathFn::Ldexp] = Reference{[](A a) { return std::ldexp(a[0], static_cast<int>(a[1])); },
                                 withInteger};
    t[MathFn::Scalbn] = Reference{[](A a) { return std::scalbn(a[0], static_cast<int>(a[1])); },
                                  withInteger};
    t[MathFn::Hypot3] = Reference{[](A a) { return std::hypot(a[0], a[1], a[2]); }, triples};
    t[MathFn::Floor] = unary(std::floor, {{-1.3}, {0.4}, {2.6}});
    t[MathFn::Ceil] = unary(std::ceil, {{-1.3}, {0.4}, {2.6}});
    t[MathFn::Round] = unary(std::round, {{-1.3}, {0.4}, {2.6}});
    t[MathFn::Trunc] = unary(std::trunc, {{-1.3}, {0.4}, {2.6}});
    t[MathFn::Nearbyint] = unary(std::nearbyint, {{-1.3}, {0.4}, {2.6}});
    t[MathFn::Rint] = unary(std::rint, {{-1.3}, {0.4}, {2.6}});
    t[MathFn::Rsqrt] = Reference{[](A a) { return 1 / std::sqrt(a[0]); }, positive};
    t[MathFn::Rcbrt] = Reference{[](A a) { return 1 / std::cbrt(a[0]); }, {{-2.3}, {0.4}, {5.0}}};
    t[MathFn::Exp10] = Reference{[](A a) { return std::pow(10.0, a[0]); }, anywhere};
    t[MathFn::Sinpi] = Reference{[](A a) { return std::sin(M_PI * a[0]); }, anywhere};
    t[MathFn::Cospi] = Reference{[](A a) { return std::cos(M_PI * a[0]); }, anywhere};
    t[MathFn::FastExp] = t[MathFn::Exp];
    t[MathFn::FastExp10] = t[MathFn::Exp10];
    t[MathFn::FastLog] = t[MathFn::Log];
    t[MathFn::FastLog2] = t[MathFn::Log2];
    t[MathFn::FastLog10] = t[MathFn::Log10];
    t[MathFn::FastSin] = t[MathFn::Sin];
    t[MathFn::FastCos] = t[MathFn::Cos];
    t[MathFn::FastTan] = t[MathFn::Tan];
    t[MathFn::FastTanh] = t[MathFn::Tanh];
    t[MathFn::FastPow] = t[MathFn::Pow];
    t[MathFn::FastDivide] = Reference{[](A a) { return a[0] / a[1]; }, pairs};
    t[MathFn::Saturate] =
        Reference{[](A a) { return std::fmin(std::fmax(a[0], 0.0), 1.0); }, {{-0.4}, {0.3}, {1.6}}};
    Reference add{[](A a) { return a[0] + a[1]; }, pairs};
    Reference subtract{[](A a) { return a[0] - a[1]; }, pairs};
    Reference multiply{[](A a) { return a[0] * a[1]; }, pairs};
    Reference divide{[](A a) { return a[0] / a[1]; }, pairs};
    Reference fused{[](A a) { return a[0] * a[1] + a[2]; }, triples};
    Reference reciprocal{[](A a) { return 1 / a[0]; }, anywhere};
    Reference root{[](A a) { return std::sqrt(a[0]); }, positive};
    auto modes = [&](MathFn first, const Reference &r) {
      for (int m = 0; m < 4; ++m)
        t[static_cast<MathFn>(static_cast<int>(first) + m)] = r;
    };
    modes(MathFn::FaddRn, add);
    modes(MathFn::DaddRn, add);
    modes(MathFn::FsubRn, subtract);
    modes(MathFn::DsubRn, subtract);
    modes(MathFn::FmulRn, multiply);
    modes(MathFn::DmulRn, multiply);
    modes(MathFn::FdivRn, divide);
    modes(MathFn::DdivRn, divide);
    modes(MathFn::FmafRn, fused);
    modes(MathFn::FmafIeeeRn, fused);
    modes(MathFn::FmaRn, fused);
    modes(MathFn::FrcpRn, reciprocal);
    modes(MathFn::DrcpRn, reciprocal);
    modes(MathFn::FsqrtRn, root);
    modes(MathFn::DsqrtRn, root);
    t[MathFn::FrsqrtRn] = t[MathFn::Rsqrt];
    t[MathFn::Digamma] = Reference{[](A a) { return cgp::digamma(a[0]); }, {}};
    // std::complex's functions, part by part, off their branch cuts.
    static const std::vector<Args> complexes = {{0.7, 0.4}, {-0.5, 1.2}, {1.3, -0.6}};
    static const std::vector<Args> complexPairs = {{0.7, 0.4, 1.1, -0.3}, {-0.5, 1.2, 0.4, 0.8}};
    auto parts = [&](MathFn re, double (*fRe)(double, double), double (*fIm)(double, double)) {
      t[re] = Reference{[=](A a) { return fRe(a[0], a[1]); }, complexes};
      t[static_cast<MathFn>(static_cast<int>(re) + 1)] =
          Reference{[=](A a) { return fIm(a[0], a[1]); }, complexes};
    };
    parts(MathFn::ComplexExpRe, cgp::complex_exp_re, cgp::complex_exp_im);
    parts(MathFn::ComplexLogRe, cgp::complex_log_re, cgp::complex_log_im);
    parts(MathFn::ComplexLog10Re, cgp::complex_log10_re, cgp::complex_log10_im);
    parts(MathFn::ComplexSqrtRe, cgp::complex_sqrt_re, cgp::complex_sqrt_im);
    parts(MathFn::ComplexSinRe, cgp::complex_sin_re, cgp::complex_sin_im);
    parts(MathFn::ComplexCosRe, cgp::complex_cos_re, cgp::complex_cos_im);
    parts(MathFn::ComplexTanRe, cgp::complex_tan_re, cgp::complex_tan_im);
    parts(MathFn::ComplexSinhRe, cgp::complex_sinh_re, cgp::complex_sinh_im);
    parts(MathFn::ComplexCoshRe, cgp::complex_cosh_re, cgp::complex_cosh_im);
    parts(MathFn::ComplexTanhRe, cgp::complex_tanh_re, cgp::complex_tanh_im);
    t[MathFn::ComplexDivRe] = {[](A a) { return cgp::complex_div_re(a[0], a[1], a[2], a[3]); },
                               complexPairs};
    t[MathFn::ComplexDivIm] = {[](A a) { return cgp::complex_div_im(a[0], a[1], a[2], a[3]); },
                               complexPairs};
    t[MathFn::ComplexPowRe] = {[](A a) { return cgp::complex_pow_re(a[0], a[1], a[2], a[3]); },
                               complexPairs};
    t[MathFn::ComplexPowIm] = {[](A a) { return cgp::complex_pow_im(a[0], a[1], a[2], a[3]); },
                               complexPairs};
    static const std::vector<Args> complexReal = {{0.7, 0.4, 0.75}, {-0.5, 1.2, 2.3}};
    t[MathFn::ComplexPowRealRe] = {
        [](A a) { return cgp::complex_pow_real_re(a[0], a[1], a[2]); }, complexReal};
    t[MathFn::ComplexPowRealIm] = {
        [](A a) { return cgp::complex_pow_real_im(a[0], a[1], a[2]); }, complexReal};
    static const std::vector<Args> realComplex = {{1.5, 0.8, -0.35}, {0.6, -0.4, 1.1}};
    t[MathFn::RealPowComplexRe] = {
        [](A a) { return cgp::complex_real_pow_re(a[0], a[1], a[2]); }, realComplex};
    t[MathFn::RealPowComplexIm] = {
        [](A a) { return cgp::complex_real_pow_im(a[0], a[1], a[2]); }, realComplex};
    static const std::vector<Args> complexInteger = {{0.7, 0.4, 3}, {-0.5, 1.2, -2}};
    t[MathFn::ComplexPowIntRe] = {
        [](A a) { return cgp::complex_pow_int_re(a[0], a[1], static_cast<int>(a[2])); },
        complexInteger};
    t[MathFn::ComplexPowIntIm] = {
        [](A a) { return cgp::complex_pow_int_im(a[0], a[1], static_cast<int>(a[2])); },
        complexInteger};
    return t;
  }();
  return table;
}

/// Evaluates an expression of a derivative rule: its arguments are the
/// placeholders `a0`, `a1`, ... bound to `args`.
double evaluate(const ExprRef &e, const Args &args) {
  auto at = [&](size_t i) { return evaluate(e->operands[i], args); };
  switch (e->kind) {
  case ExprKind::FloatLit:
    return e->floatValue;
  case ExprKind::IntLit:
    return static_cast<double>(e->intValue);
  case ExprKind::Opaque:
    return args.at(std::stoul(e->calleeName.substr(1)));
  case ExprKind::Unary:
    switch (e->unaryOp) {
    case UnaryOp::Neg: return -at(0);
    case UnaryOp::Plus: return at(0);
    case UnaryOp::Not: return !at(0);
    default: break;
    }
    break;
  case ExprKind::Binary:
    switch (e->binaryOp) {
    case BinaryOp::Add: return at(0) + at(1);
    case BinaryOp::Sub: return at(0) - at(1);
    case BinaryOp::Mul: return at(0) * at(1);
    case BinaryOp::Div: return at(0) / at(1);
    case BinaryOp::Lt: return at(0) < at(1);
    case BinaryOp::Le: return at(0) <= at(1);
    case BinaryOp::Gt: return at(0) > at(1);
    case BinaryOp::Ge: return at(0) >= at(1);
    case BinaryOp::LAnd: return at(0) && at(1);
    case BinaryOp::LOr: return at(0) || at(1);
    default: break;
    }
    break;
  case ExprKind::Select:
    return at(0) ? at(1) : at(2);
  case ExprKind::Cast:
    return at(0);
  case ExprKind::Math: {
    Args values;
    for (size_t i = 0; i < e->operands.size(); ++i)
      values.push_back(at(i));
    return references().at(e->mathFn).f(values);
  }
  default:
    break;
  }
  throw std::logic_error("the test evaluator cannot evaluate " + printExpr(e));
}

ExprRef callOf(const MathFunction &f) {
  std::vector<ExprRef> args;
  for (size_t i = 0; i < f.args.size(); ++i)
    args.push_back(opaque("a" + std::to_string(i),
                          f.args[i] == MathArg::Floating ? ScalarType::doubleType()
                                                         : ScalarType::intType(),
                          {}));
  return math(f.fn, ScalarType::doubleType(), args);
}

/// Richardson-extrapolated central difference of `f` in argument `i`.
double centralDifference(const Reference &r, Args x, size_t i) {
  auto d = [&](double h) {
    Args up = x, down = x;
    up[i] += h;
    down[i] -= h;
    return (r.f(up) - r.f(down)) / (2 * h);
  };
  double h = 1e-3 * std::max(1.0, std::fabs(x[i]));
  return (4 * d(h / 2) - d(h)) / 3;
}

} // namespace

TEST_CASE("every row's derivative agrees with finite differences", "[math]") {
  for (const MathFunction &f : mathFunctions()) {
    if (f.fn == MathFn::Digamma)
      continue; // generated code only; checked against reference values below
    INFO("function " << f.name << " with " << f.arity() << " arguments");
    auto it = references().find(f.fn);
    REQUIRE(it != references().end()); // a new row needs a reference here
    const Reference &r = it->second;
    REQUIRE(!r.points.empty());
    ExprRef call = callOf(f);
    for (const Args &x : r.points) {
      REQUIRE(x.size() == f.arity());
      InPlaceContext context(call);
      const std::vector<PartialRule> *rules = &f.partials;
      if (f.condition && !evaluate(f.condition(context), x))
        rules = &f.otherwise;
      for (size_t i = 0; i < f.arity(); ++i) {
        if (f.args[i] == MathArg::Integer) {
          CHECK(!f.differentiable(i));
          continue;
        }
        double expected = centralDifference(r, x, i);
        double got = 0, seeded = 0;
        if (i < rules->size() && (*rules)[i]) {
          Partial p = (*rules)[i](context);
          if (!p.isZero()) {
            got = evaluate(p.factor(), x);
            seeded = evaluate(p.times(floatLit(0.75, ScalarType::doubleType())), x);
          }
        }
        INFO("argument " << i << " at (" << x[0] << (x.size() > 1 ? ", ..." : "") << ")");
        CHECK(got == Approx(expected).epsilon(1e-6).margin(1e-9));
        CHECK(seeded == Approx(0.75 * expected).epsilon(1e-6).margin(1e-9));
      }
    }
  }
}

TEST_CASE("the table knows which derivatives read the call's value", "[math]") {
  CHECK(mathFunction(MathFn::Exp).derivativeReadsValue);
  CHECK(mathFunction(MathFn::Tanh).derivativeReadsValue);
  CHECK(mathFunction(MathFn::FastExp).derivativeReadsValue);
  CHECK_FALSE(mathFunction(MathFn::Sin).derivativeReadsValue);
  CHECK_FALSE(mathFunction(MathFn::Expm1).derivativeReadsValue);
  CHECK_FALSE(mathFunction(MathFn::Floor).differentiable(0));
  CHECK(mathFunction(MathFn::Fmin).differentiable(0));
  CHECK(mathFunction(MathFn::Fmin).differentiable(1));
  CHECK_FALSE(mathFunction(MathFn::Ldexp).differentiable(1));
  CHECK_FALSE(mathFunction(MathFn::Fabs).isCostly());
  CHECK(mathFunction(MathFn::Erf).isCostly());
}

TEST_CASE("calls find their rows by name and arity", "[math]") {
  auto only = [](const std::string &name) {
    std::vector<const MathFunction *> rows = mathFunctionsNamed(name);
    REQUIRE(rows.size() == 1);
    return rows[0]->fn;
  };
  CHECK(only("exp") == MathFn::Exp);
  CHECK(only("expf") == MathFn::Exp);
  CHECK(only("abs") == MathFn::Fabs);
  CHECK(only("__expf") == MathFn::FastExp);
  CHECK(only("rsqrtf") == MathFn::Rsqrt);
  CHECK(only("fdividef") == MathFn::FastDivide);
  CHECK(only("__dadd_rz") == MathFn::DaddRz);
  CHECK(mathFunctionsNamed("hypot").size() == 2); // two and three arguments
  CHECK(mathFunctionsNamed("__expff").empty());
  CHECK(mathFunctionsNamed("digamma").empty()); // not the user's to call
  REQUIRE(mathPairNamed("sincosf"));
  CHECK(mathPairNamed("__sincosf")->first == MathFn::FastSin);
  CHECK_FALSE(mathPairNamed("sin"));
}

TEST_CASE("generated code spells each call for its type", "[math]") {
  ScalarType d = ScalarType::doubleType(), f = ScalarType::floatType();
  CHECK(mathCallName(MathFn::Exp, d) == "std::exp");
  CHECK(mathCallName(MathFn::Exp, f) == "std::exp");
  CHECK(mathCallName(MathFn::Rsqrt, d) == "rsqrt");
  CHECK(mathCallName(MathFn::Rsqrt, f) == "rsqrtf");
  CHECK(mathCallName(MathFn::FastSin, f) == "__sinf");
  CHECK(mathCallName(MathFn::Digamma, d) == "cgp::digamma");
  CHECK(mathValueName(MathFn::Tanh) == "tanh_value");
  CHECK(mathValueName(MathFn::FaddRn) == "fadd_rn_value");
  CHECK(mathValueName(MathFn::Digamma) == "digamma_value");
  Module m;
  Var v;
  v.name = "x";
  v.elem = f;
  Var *x = m.newVar(v);
  CHECK(printExpr(math(MathFn::Sinpi, f, {varRef(x)})) == "sinpif(x)");
}

TEST_CASE("digamma is accurate for positive and negative arguments", "[math]") {
  // psi(x) to 20 digits (mpmath).
  const std::pair<double, double> values[] = {
      {0.001, -1000.5755719318102797}, {0.25, -4.2274535333762654081},
      {0.5, -1.9635100260214234794},   {1.0, -0.57721566490153286061},
      {1.5, 0.036489973978576520559},  {2.0, 0.42278433509846713939},
      {3.7, 1.1671535393615114409},    {9.99, 2.250700372831201122},
      {10.0, 2.2517525890667211076},   {12.5, 2.4851956512749120482},
      {100.0, 4.6001618527380874002},  {100000.0, 11.512920464961895087},
      {-0.5, 0.036489973978576520559}, {-1.25, 3.7141391202135278304},
      {-2.7, -1.1153471291406896119},  {-10.3, 4.6624034935820870175},
      {-123.456, 5.2569791725822653171}, {-0.001, 999.42113819789133376},
  };
  for (auto [x, psi] : values) {
    INFO("digamma(" << x << ")");
    CHECK(cgp::digamma(x) == Approx(psi).epsilon(1e-14));
    float single = static_cast<float>(x);
    CHECK(cgp::digamma(single) == Approx(cgp::digamma(static_cast<double>(single))).epsilon(1e-6));
  }
  // Near its positive zero, the error is absolute.
  CHECK(std::fabs(cgp::digamma(1.4616321449683622) - -9.2412655217294274792e-17) < 1e-15);
  CHECK(std::isinf(cgp::digamma(0.0)));
  CHECK(std::isnan(cgp::digamma(-3.0)));
}
