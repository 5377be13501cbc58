//===- LowerComplex.cpp - std::complex as two real numbers ---------------===//
//
// A `std::complex<T>` is a struct of two leaves, its real and imaginary
// parts (`z_re`, `z_im`: TypeMapping's flattenRecord), so that locals,
// parameters, arrays and vectors of complex numbers, and structs holding
// them, go where structs go. What the standard library does with them is
// lowered here, to the arithmetic of the parts that <complex> itself does:
//
//   w = z * v;                w_re = z_re * v_re - z_im * v_im;
//                             w_im = z_re * v_im + z_im * v_re;
//   double r = std::abs(z);   r = std::hypot(z_re, z_im);
//   z /= v;                   z_re = cgp::complex_div_re(z_re, z_im, v_re, v_im); ...
//
// Addition, subtraction, multiplication, conj, polar, real, imag, norm, abs
// (hypot, which the C library's cabs is) and arg (atan2) are written out;
// division, exp, log, sqrt and pow call include/cgp/complex.h, which takes
// each part of the library's own result, so that values are the primal's
// to the last bit. Their derivatives are rows of ir/MathTable.cpp.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace cgp {
namespace {

/// The function a std::complex operation calls: a member or friend of
/// std::complex, or a function of <complex> in namespace std.
const clang::FunctionDecl *complexCallee(const clang::Expr *e) {
  const clang::FunctionDecl *fd = calleeOf(e);
  if (!fd)
    return nullptr;
  const clang::DeclContext *ns = fd->getDeclContext()->getEnclosingNamespaceContext();
  return ns->isStdNamespace() ? fd : nullptr;
}

} // namespace

bool Lowering::isComplex(const clang::Expr *e) const {
  return complexElement(e->getType(), ctx_).has_value();
}

bool Lowering::isComplexOperation(const clang::Expr *e) {
  if (!e)
    return false;
  e = withoutValueCarriers(e);
  if (!isComplex(e) || !e->isPRValue())
    return false;
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(e))
    return !(construct->getNumArgs() == 1 &&
             construct->getConstructor()->isCopyOrMoveConstructor() &&
             !construct->getConstructor()->isUserProvided());
  if (llvm::isa<clang::UserDefinedLiteral>(e))
    return true;
  return complexCallee(e) != nullptr;
}

ScalarType Lowering::complexType(const clang::Expr *e) {
  return *complexElement(e->getType(), ctx_);
}

void Lowering::refuseComplexOnDevice(const clang::Expr *e) {
  if (!callStack_.empty() && (callStack_.back()->hasAttr<clang::CUDADeviceAttr>() ||
                              callStack_.back()->hasAttr<clang::CUDAGlobalAttr>()))
    unsupported(e, "std::complex is not supported in device code");
}

Lowering::ComplexValue Lowering::complexValue(const clang::Expr *e, const ScalarType &t) {
  const clang::Expr *value = withoutValueCarriers(e);
  if (!isComplex(value))
    return {convert(lowerExpr(e), t), floatLit(0.0, t)};
  refuseComplexOnDevice(e);
  if (foreignRoot(value)) { // an element of a constant kept whole
    std::vector<ExprRef> operands;
    std::string pattern = foreignPattern(value, operands);
    ScalarType part = complexType(value);
    return {convert(foreign(pattern + ".real()", part, operands), t),
            convert(foreign(pattern + ".imag()", part, operands), t)};
  }
  RecordView view = isComplexOperation(value) ? structValue(value) : valueView(value);
  return {convert(leafRef(view.places[0]), t), convert(leafRef(view.places[1]), t)};
}

Lowering::ComplexValue Lowering::complexResult(const clang::Expr *e) {
  refuseComplexOnDevice(e);
  e = withoutValueCarriers(e);
  ScalarType t = complexType(e);
  auto value = [&](const clang::Expr *x) { return complexValue(x, t); };
  auto real = [&](const clang::Expr *x) { return convert(lowerExpr(x), t); };
  auto mathOf = [&](MathFn re, std::vector<ExprRef> args) -> ComplexValue {
    MathFn im = static_cast<MathFn>(static_cast<int>(re) + 1);
    return {math(re, t, args), math(im, t, args)};
  };
  auto product = [&](const ComplexValue &a, const ComplexValue &b) -> ComplexValue {
    return {binary(BinaryOp::Sub, binary(BinaryOp::Mul, a.re, b.re),
                   binary(BinaryOp::Mul, a.im, b.im)),
            binary(BinaryOp::Add, binary(BinaryOp::Mul, a.re, b.im),
                   binary(BinaryOp::Mul, a.im, b.re))};
  };
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(e)) {
    switch (construct->getNumArgs()) {
    case 0:
      return {floatLit(0.0, t), floatLit(0.0, t)};
    case 1:
      return value(construct->getArg(0)); // from a number, or another precision
    default:
      return {real(construct->getArg(0)), real(construct->getArg(1))};
    }
  }
  if (const auto *literal = llvm::dyn_cast<clang::UserDefinedLiteral>(e)) // 2.0i
    return {floatLit(0.0, t), real(literal->getArg(0))};
  const auto *call = llvm::cast<clang::CallExpr>(e);
  const clang::FunctionDecl *callee = complexCallee(e);
  auto arg = [&](unsigned i) { return call->getArg(i); };
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
    if (op->getNumArgs() == 1) {
      ComplexValue a = value(arg(0));
      if (op->getOperator() == clang::OO_Minus)
        return {unary(UnaryOp::Neg, a.re), unary(UnaryOp::Neg, a.im)};
      if (op->getOperator() == clang::OO_Plus)
        return a;
    } else if (op->getNumArgs() == 2) {
      bool leftReal = !isComplex(withoutValueCarriers(arg(0)));
      bool rightReal = !isComplex(withoutValueCarriers(arg(1)));
      ComplexValue a = value(arg(0)), b = value(arg(1));
      switch (op->getOperator()) {
      case clang::OO_Plus: // <complex> adds a real number to the real part only
        return {binary(BinaryOp::Add, a.re, b.re),
                leftReal ? b.im : rightReal ? a.im : binary(BinaryOp::Add, a.im, b.im)};
      case clang::OO_Minus:
        return {binary(BinaryOp::Sub, a.re, b.re),
                rightReal ? a.im : binary(BinaryOp::Sub, a.im, b.im)};
      case clang::OO_Star:
        if (rightReal)
          return {binary(BinaryOp::Mul, a.re, b.re), binary(BinaryOp::Mul, a.im, b.re)};
        if (leftReal)
          return {binary(BinaryOp::Mul, b.re, a.re), binary(BinaryOp::Mul, b.im, a.re)};
        return product(a, b);
      case clang::OO_Slash:
        if (rightReal)
          return {binary(BinaryOp::Div, a.re, b.re), binary(BinaryOp::Div, a.im, b.re)};
        return mathOf(MathFn::ComplexDivRe, {a.re, a.im, b.re, b.im});
      default:
        break;
      }
    }
    unsupported(e, "the operator '" + callee->getNameAsString() +
                       "' of std::complex is not supported");
  }
  std::string name = callee->getNameAsString();
  unsigned n = call->getNumArgs();
  if (name == "conj" && n == 1) {
    ComplexValue a = value(arg(0));
    return {a.re, unary(UnaryOp::Neg, a.im)};
  }
  if (name == "polar" && (n == 1 || n == 2)) { // rho (cos theta, sin theta)
    ExprRef rho = real(arg(0));
    if (n == 1)
      return {rho, floatLit(0.0, t)};
    ExprRef theta = real(arg(1));
    return {binary(BinaryOp::Mul, rho, math(MathFn::Cos, t, {theta})),
            binary(BinaryOp::Mul, rho, math(MathFn::Sin, t, {theta}))};
  }
  static const std::pair<const char *, MathFn> functions[] = {
      {"exp", MathFn::ComplexExpRe},     {"log", MathFn::ComplexLogRe},
      {"log10", MathFn::ComplexLog10Re}, {"sqrt", MathFn::ComplexSqrtRe},
      {"sin", MathFn::ComplexSinRe},     {"cos", MathFn::ComplexCosRe},
      {"tan", MathFn::ComplexTanRe},     {"sinh", MathFn::ComplexSinhRe},
      {"cosh", MathFn::ComplexCoshRe},   {"tanh", MathFn::ComplexTanhRe}};
  for (const auto &[fnName, fn] : functions)
    if (name == fnName && n == 1) {
      ComplexValue a = value(arg(0));
      return mathOf(fn, {a.re, a.im});
    }
  if (name == "pow" && n == 2) {
    // The overload <complex> picks: pow(z, int), pow(z, x), pow(x, z), pow(z, w).
    clang::QualType exponent = callee->getParamDecl(1)->getType().getNonReferenceType();
    if (exponent->isIntegerType()) {
      ComplexValue a = value(arg(0));
      return mathOf(MathFn::ComplexPowIntRe,
                    {a.re, a.im, convert(lowerExpr(arg(1)), ScalarType::intType())});
    }
    bool baseComplex = isComplex(withoutValueCarriers(arg(0)));
    bool exponentComplex = isComplex(withoutValueCarriers(arg(1)));
    if (baseComplex && exponentComplex) {
      ComplexValue a = value(arg(0)), b = value(arg(1));
      return mathOf(MathFn::ComplexPowRe, {a.re, a.im, b.re, b.im});
    }
    if (baseComplex) {
      ComplexValue a = value(arg(0));
      return mathOf(MathFn::ComplexPowRealRe, {a.re, a.im, real(arg(1))});
    }
    ComplexValue b = value(arg(1));
    return mathOf(MathFn::RealPowComplexRe, {real(arg(0)), b.re, b.im});
  }
  unsupported(e, "'std::" + name + "' of complex numbers is not supported; cgp-ad "
                 "differentiates their arithmetic, conj, polar, exp, log, log10, sqrt, pow, sin, "
                 "cos, tan, sinh, cosh, tanh, abs, arg, norm, real and imag");
}

void Lowering::setComplex(const RecordView &to, const ComplexValue &v, std::vector<StmtRef> &out) {
  ExprRef re = leafRef(to.places[0]), im = leafRef(to.places[1]);
  ExprRef newRe = convert(v.re, re->type), newIm = convert(v.im, im->type);
  if (!mentions(newIm, to.places[0].var)) {
    out.push_back(assign(re, newRe));
    out.push_back(assign(im, newIm));
    return;
  }
  // The imaginary part reads the real part's old value (z *= w).
  Var *staged = newLocal(to.places[0].var->name + "_new", re->type, to.places[0].var->pos);
  out.push_back(decl(staged, newRe));
  out.push_back(assign(im, newIm));
  out.push_back(assign(re, varRef(staged)));
}

void Lowering::fillComplex(const RecordView &to, const clang::Expr *value,
                           std::vector<StmtRef> &out) {
  setComplex(to, complexResult(value), out);
}

ExprRef Lowering::lowerComplexScalar(const clang::Expr *e) {
  const auto *call = llvm::dyn_cast<clang::CallExpr>(e);
  const clang::FunctionDecl *callee = call ? complexCallee(e) : nullptr;
  if (!callee)
    return nullptr;
  const clang::Expr *operand = nullptr; // the complex number asked about
  std::vector<const clang::Expr *> args(call->arg_begin(), call->arg_end());
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) {
    operand = mc->getImplicitObjectArgument();
  } else if (!args.empty()) {
    operand = args[0];
    args.erase(args.begin());
  }
  if (!operand || !isComplex(withoutValueCarriers(operand)))
    return nullptr;
  std::string name = callee->isOverloadedOperator() ? "" : callee->getNameAsString();
  ScalarType t = complexType(withoutValueCarriers(operand));
  if ((name == "real" || name == "imag") && args.empty()) {
    ComplexValue z = complexValue(operand, t);
    return name == "real" ? z.re : z.im;
  }
  if ((name == "abs" || name == "arg" || name == "norm") && args.empty()) {
    ComplexValue z = complexValue(operand, t);
    if (name == "abs") // the C library's cabs is hypot
      return math(MathFn::Hypot, t, {z.re, z.im});
    if (name == "arg")
      return math(MathFn::Atan2, t, {z.im, z.re});
    return binary(BinaryOp::Add, binary(BinaryOp::Mul, z.re, z.re),
                  binary(BinaryOp::Mul, z.im, z.im));
  }
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
      op && args.size() == 1 &&
      (op->getOperator() == clang::OO_EqualEqual || op->getOperator() == clang::OO_ExclaimEqual)) {
    ComplexValue a = complexValue(operand, t), b = complexValue(args[0], t);
    bool equal = op->getOperator() == clang::OO_EqualEqual;
    BinaryOp compare = equal ? BinaryOp::Eq : BinaryOp::Ne;
    return binary(equal ? BinaryOp::LAnd : BinaryOp::LOr, binary(compare, a.re, b.re),
                  binary(compare, a.im, b.im));
  }
  if (e->getType()->isRecordType())
    return nullptr; // a complex value: structValue's
  unsupported(e, "'" + callee->getNameAsString() + "' of a complex number is not supported");
}

StmtRef Lowering::lowerComplexStmt(const clang::Expr *e) {
  const auto *call = llvm::dyn_cast<clang::CallExpr>(withoutValueCarriers(e));
  if (!call || !complexCallee(call))
    return nullptr;
  const auto *md = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(call->getDirectCallee());
  if (!md || !complexElement(ctx_.getRecordType(md->getParent()), ctx_))
    return nullptr;
  refuseComplexOnDevice(e);
  const clang::Expr *object = nullptr, *operand = nullptr;
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) {
    object = mc->getImplicitObjectArgument();
    operand = mc->getNumArgs() == 1 ? mc->getArg(0) : nullptr;
  } else if (call->getNumArgs() == 2) {
    object = call->getArg(0);
    operand = call->getArg(1);
  }
  if (!object || !operand)
    return nullptr;
  std::vector<StmtRef> out;
  StmtRef body = withSideEffects([&] {
    std::vector<StmtRef> stmts;
    RecordView z = recordView(object);
    ScalarType t = z.places[0].var->elem;
    std::string name = md->getNameAsString();
    if (name == "real" || name == "imag") { // z.real(x)
      stmts.push_back(assign(leafRef(z.places[name == "real" ? 0 : 1]),
                             convert(lowerExpr(operand), t)));
      return block(stmts);
    }
    const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
    if (!op)
      unsupported(e, "'" + name + "' of std::complex is not supported");
    ComplexValue a{leafRef(z.places[0]), leafRef(z.places[1])};
    if (op->getOperator() == clang::OO_Equal && isComplexOperation(operand)) {
      setComplex(z, complexResult(operand), stmts); // z = a * b;
      return block(stmts);
    }
    bool real = !isComplex(withoutValueCarriers(operand));
    ComplexValue b = complexValue(operand, t);
    ComplexValue r;
    switch (op->getOperator()) {
    case clang::OO_Equal: // z = x, z = w
      r = b;
      break;
    case clang::OO_PlusEqual:
      r = {binary(BinaryOp::Add, a.re, b.re), real ? a.im : binary(BinaryOp::Add, a.im, b.im)};
      break;
    case clang::OO_MinusEqual:
      r = {binary(BinaryOp::Sub, a.re, b.re), real ? a.im : binary(BinaryOp::Sub, a.im, b.im)};
      break;
    case clang::OO_StarEqual:
      if (real)
        r = {binary(BinaryOp::Mul, a.re, b.re), binary(BinaryOp::Mul, a.im, b.re)};
      else
        r = {binary(BinaryOp::Sub, binary(BinaryOp::Mul, a.re, b.re),
                    binary(BinaryOp::Mul, a.im, b.im)),
             binary(BinaryOp::Add, binary(BinaryOp::Mul, a.re, b.im),
                    binary(BinaryOp::Mul, a.im, b.re))};
      break;
    case clang::OO_SlashEqual:
      if (real)
        r = {binary(BinaryOp::Div, a.re, b.re), binary(BinaryOp::Div, a.im, b.re)};
      else
        r = {math(MathFn::ComplexDivRe, t, {a.re, a.im, b.re, b.im}),
             math(MathFn::ComplexDivIm, t, {a.re, a.im, b.re, b.im})};
      break;
    default:
      unsupported(e, "the operator '" + name + "' of std::complex is not supported");
    }
    setComplex(z, r, stmts);
    return block(stmts);
  });
  appendFlat(out, body);
  StmtRef b = block(out);
  b->pos = position(e->getBeginLoc());
  return b;
}

} // namespace cgp
