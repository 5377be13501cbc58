//===- LowerEigenOperations.cpp - what Eigen's operations compute --------===//
//
// The operations of Eigen's fixed-size matrices, coefficient by coefficient
// (LowerEigen.cpp holds the matrices themselves: their views, values and
// assignments). Each one computes what Eigen's own templates compute, in
// their order, so that values are Eigen's to the last bit where Eigen does
// not vectorise:
//
//   a + b, 2.0 * a, a / s       one operation per coefficient
//   M * v                       (M * v)(i) = M(i,0) * v(0) + (M(i,1) * v(1) + M(i,2) * v(2))
//   v.squaredNorm(), v.dot(w)   the terms summed in halves, as Eigen's
//                               unvectorised reductions split them
//   m.determinant(), inverse()  Eigen's cofactor formulas (up to 4x4 and 3x3)
//   v.array().exp(), cwise*     one math call or operation per coefficient
//
// An operand read more than once (by a product, cross, normalized, inverse)
// is held in a temporary first, as Eigen's nested_eval holds it.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

#include <map>
#include <set>

namespace cgp {
namespace {

std::string calleeWord(const clang::FunctionDecl *fd) {
  if (const auto *op = llvm::dyn_cast<clang::CXXMethodDecl>(fd); op && op->isOverloadedOperator())
    return "'" + fd->getNameAsString() + "'";
  if (llvm::isa<clang::CXXConversionDecl>(fd))
    return "the conversion of a 1x1 product to a number";
  return "'" + fd->getNameAsString() + "'";
}

} // namespace

ExprRef Lowering::eigenSum(const std::vector<ExprRef> &terms, size_t first, size_t count,
                           BinaryOp op) {
  return eigenTree(terms, first, count, [op](ExprRef a, ExprRef b) { return binary(op, a, b); });
}

ExprRef Lowering::eigenTree(const std::vector<ExprRef> &terms, size_t first, size_t count,
                            const std::function<ExprRef(ExprRef, ExprRef)> &combine) {
  if (count == 1)
    return terms[first];
  size_t half = count / 2; // as Eigen's unvectorised reductions split
  return combine(eigenTree(terms, first, half, combine),
                 eigenTree(terms, first + half, count - half, combine));
}

Lowering::EigenValue Lowering::eigenCall(const clang::CallExpr *call,
                                         const clang::FunctionDecl *fd) {
  std::string name = fd->getDeclName().isIdentifier() ? fd->getName().str() : "";
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
  const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call);
  std::optional<EigenShape> resultShape = eigenShapeOf(call->getType(), ctx_);
  auto elementwise = [&](const EigenValue &a, auto f) {
    EigenValue out = a;
    for (ExprRef &x : out.at)
      x = f(x);
    return out;
  };
  auto zipped = [&](const EigenValue &a, const EigenValue &b, auto f) {
    if (a.rows != b.rows || a.cols != b.cols)
      unsupported(call, "the Eigen operands have different sizes");
    EigenValue out = a;
    for (size_t k = 0; k < out.at.size(); ++k)
      out.at[k] = f(a.at[k], b.at[k]);
    return out;
  };
  auto scalarArg = [&](const clang::Expr *x, const ScalarType &t) {
    return convert(lowerExpr(x), t);
  };
  if (op) {
    clang::OverloadedOperatorKind kind = op->getOperator();
    unsigned n = op->getNumArgs();
    if (n == 1 && kind == clang::OO_Minus)
      return elementwise(eigenValue(op->getArg(0)),
                         [](ExprRef x) { return unary(UnaryOp::Neg, x); });
    if (n == 2 && (kind == clang::OO_Plus || kind == clang::OO_Minus || kind == clang::OO_Star ||
                   kind == clang::OO_Slash)) {
      const clang::Expr *l = op->getArg(0), *r = op->getArg(1);
      BinaryOp bop = kind == clang::OO_Plus    ? BinaryOp::Add
                     : kind == clang::OO_Minus ? BinaryOp::Sub
                     : kind == clang::OO_Star  ? BinaryOp::Mul
                                               : BinaryOp::Div;
      bool le = isEigen(l), re = isEigen(r);
      if (le && !re) {
        EigenValue a = eigenValue(l);
        ExprRef s = scalarArg(r, a.elem);
        return elementwise(a, [&](ExprRef x) { return binary(bop, x, s); });
      }
      if (!le && re) {
        EigenValue b = eigenValue(r);
        ExprRef s = scalarArg(l, b.elem);
        return elementwise(b, [&](ExprRef x) { return binary(bop, s, x); });
      }
      EigenValue a = eigenValue(l), b = eigenValue(r);
      if (bop != BinaryOp::Mul || (a.isArray && b.isArray))
        return zipped(a, b, [&](ExprRef x, ExprRef y) { return binary(bop, x, y); });
      // Each coefficient of `a` is read b.cols times, each of `b` a.rows times.
      if (b.cols > 1)
        a = eigenShared(a, "factor", call);
      if (a.rows > 1)
        b = eigenShared(b, "factor", call);
      return eigenProduct(a, b, call);
    }
    unsupported(call, "the Eigen operator " + calleeWord(fd) + " is not supported");
  }
  if (!member) {
    // Static members: Matrix3d::Zero(), Vector3d::UnitX(), Constant(x).
    if (!resultShape) {
      // The result is an expression of the class the static member belongs to.
      if (const auto *md = llvm::dyn_cast<clang::CXXMethodDecl>(fd)) {
        const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(md->getParent());
        if (spec && spec->getTemplateArgs().size() >= 1 &&
            spec->getTemplateArgs()[0].getKind() == clang::TemplateArgument::Type)
          resultShape = eigenShapeOf(spec->getTemplateArgs()[0].getAsType(), ctx_);
        else
          resultShape = eigenShapeOf(ctx_.getRecordType(md->getParent()), ctx_);
      }
    }
    if (!resultShape)
      unsupported(call, "this Eigen function is not supported");
    EigenValue v{resultShape->rows, resultShape->cols, resultShape->isArray, resultShape->elem, {}};
    unsigned n = call->getNumArgs();
    auto fill = [&](const std::function<ExprRef(int, int)> &coeff) {
      for (int c = 0; c < v.cols; ++c)
        for (int r = 0; r < v.rows; ++r)
          v.at.push_back(coeff(r, c));
      return v;
    };
    ExprRef zero = floatLit(0.0, v.elem), one = floatLit(1.0, v.elem);
    if ((name == "Zero" || name == "Ones" || name == "Identity") && n == 0)
      return fill([&](int r, int c) {
        return name == "Zero" ? zero : name == "Ones" ? one : (r == c ? one : zero);
      });
    if (name == "Constant" && n == 1) {
      ExprRef x = scalarArg(call->getArg(0), v.elem);
      return fill([&](int, int) { return x; });
    }
    static const std::map<std::string, int> units = {
        {"UnitX", 0}, {"UnitY", 1}, {"UnitZ", 2}, {"UnitW", 3}};
    if (auto u = units.find(name); u != units.end() && n == 0)
      return fill([&](int r, int c) { return r + c == u->second ? one : zero; });
    unsupported(call, "the Eigen function '" + name + "' is not supported");
  }
  const clang::Expr *object = member->getImplicitObjectArgument();
  EigenValue self = eigenValue(object);
  unsigned n = call->getNumArgs();
  auto other = [&](unsigned i) { return eigenValue(call->getArg(i)); };
  using F = MathFn;
  static const std::map<std::string, MathFn> arrayMath = {
      {"exp", F::Exp},   {"log", F::Log},   {"sqrt", F::Sqrt}, {"sin", F::Sin},
      {"cos", F::Cos},   {"tan", F::Tan},   {"tanh", F::Tanh}, {"abs", F::Fabs},
      {"atan", F::Atan}, {"log1p", F::Log1p}, {"expm1", F::Expm1}, {"cwiseAbs", F::Fabs},
      {"cwiseSqrt", F::Sqrt}};
  if (auto m = arrayMath.find(name); m != arrayMath.end() && n == 0)
    return elementwise(self, [&](ExprRef x) { return math(m->second, self.elem, {x}); });
  if ((name == "square" || name == "cwiseAbs2" || name == "abs2") && n == 0)
    return elementwise(self, [&](ExprRef x) { return binary(BinaryOp::Mul, x, x); });
  if (name == "cube" && n == 0)
    return elementwise(self, [&](ExprRef x) {
      return binary(BinaryOp::Mul, binary(BinaryOp::Mul, x, x), x);
    });
  if ((name == "inverse" && self.isArray) || name == "cwiseInverse")
    return elementwise(self, [&](ExprRef x) {
      return binary(BinaryOp::Div, floatLit(1.0, self.elem), x);
    });
  if (name == "pow" && n == 1 && !isEigen(call->getArg(0))) {
    ExprRef p = scalarArg(call->getArg(0), self.elem);
    return elementwise(self, [&](ExprRef x) { return math(F::Pow, self.elem, {x, p}); });
  }
  if ((name == "cwiseProduct" || name == "cwiseQuotient") && n == 1)
    return zipped(self, other(0), [&](ExprRef x, ExprRef y) {
      return binary(name == "cwiseProduct" ? BinaryOp::Mul : BinaryOp::Div, x, y);
    });
  if ((name == "cwiseMax" || name == "cwiseMin" || name == "max" || name == "min") && n == 1) {
    bool largest = name == "cwiseMax" || name == "max";
    auto pick = [&](ExprRef x, ExprRef y) { // std::max(x, y), std::min(x, y)
      return largest ? select(binary(BinaryOp::Lt, x, y), y, x)
                     : select(binary(BinaryOp::Lt, y, x), y, x);
    };
    if (isEigen(call->getArg(0)))
      return zipped(self, other(0), pick);
    ExprRef s = scalarArg(call->getArg(0), self.elem);
    return elementwise(self, [&](ExprRef x) { return pick(x, s); });
  }
  if ((name == "eval" || name == "array" || name == "matrix" || name == "adjoint" ||
       name == "conjugate" || name == "transpose") && n == 0) {
    EigenValue out = self;
    out.isArray = name == "array" || (self.isArray && name != "matrix");
    if (name == "adjoint" || name == "transpose") {
      out.rows = self.cols;
      out.cols = self.rows;
      for (int c = 0; c < out.cols; ++c)
        for (int r = 0; r < out.rows; ++r)
          out.at[r + c * out.rows] = self.coeff(c, r);
    }
    return out;
  }
  if (name == "diagonal" && n == 0) {
    EigenValue out{std::min(self.rows, self.cols), 1, self.isArray, self.elem, {}};
    for (int k = 0; k < out.rows; ++k)
      out.at.push_back(self.coeff(k, k));
    return out;
  }
  if (name == "cross" && n == 1) {
    self = eigenShared(self, "crossed", call);
    EigenValue b = eigenShared(other(0), "crossed", call);
    if (self.at.size() != 3 || b.at.size() != 3)
      unsupported(call, "'cross' is supported for 3-vectors");
    auto cr = [&](int i, int j) {
      return binary(BinaryOp::Sub, binary(BinaryOp::Mul, self.at[i], b.at[j]),
                    binary(BinaryOp::Mul, self.at[j], b.at[i]));
    };
    EigenValue out = self;
    out.at = {cr(1, 2), cr(2, 0), cr(0, 1)};
    return out;
  }
  if (name == "normalized" && n == 0) {
    // Eigen: z = squaredNorm(); z > 0 ? *this / sqrt(z) : *this.
    self = eigenShared(self, "unnormalized", call);
    ExprRef z = eigenTemporary(eigenReduce(self, BinaryOp::Add, true), "squared_norm", call);
    ExprRef positive = binary(BinaryOp::Gt, z, floatLit(0.0, self.elem));
    return elementwise(self, [&](ExprRef x) {
      return select(positive, binary(BinaryOp::Div, x, math(F::Sqrt, self.elem, {z})), x);
    });
  }
  if (name == "inverse" && n == 0)
    return eigenInverse(eigenShared(self, "inverted", call), call);
  if (std::optional<EigenView> view = eigenView(call))
    return view->value(); // a block of a value in memory
  if (isBlockOperation(fd)) // a block of a value Eigen computes, held in a temporary
    return blockOf(eigenMaterialised(self, "block_of", call), member).value();
  unsupported(call, "the Eigen function " + calleeWord(fd) + " is not supported");
}

Lowering::EigenValue Lowering::eigenProduct(const EigenValue &a, const EigenValue &b,
                                            const clang::Expr *at) {
  if (a.cols != b.rows)
    unsupported(at, "the Eigen matrix product has operands of sizes that do not match");
  EigenValue out{a.rows, b.cols, false, a.elem, {}};
  for (int c = 0; c < b.cols; ++c)
    for (int r = 0; r < a.rows; ++r) {
      std::vector<ExprRef> terms;
      for (int k = 0; k < a.cols; ++k)
        terms.push_back(binary(BinaryOp::Mul, a.coeff(r, k), b.coeff(k, c)));
      out.at.push_back(eigenSum(terms, 0, terms.size(), BinaryOp::Add));
    }
  return out;
}

ExprRef Lowering::eigenReduce(const EigenValue &v, BinaryOp op, bool squares) {
  std::vector<ExprRef> terms;
  for (const ExprRef &x : v.at)
    terms.push_back(squares ? binary(BinaryOp::Mul, x, x) : x);
  return eigenSum(terms, 0, terms.size(), op);
}

ExprRef Lowering::eigenDeterminant(const EigenValue &m, const clang::Expr *at) {
  if (m.rows != m.cols)
    unsupported(at, "'determinant' of a matrix that is not square");
  auto x = [&](int r, int c) { return m.coeff(r, c); };
  auto mul = [](ExprRef a, ExprRef b) { return binary(BinaryOp::Mul, a, b); };
  auto sub = [](ExprRef a, ExprRef b) { return binary(BinaryOp::Sub, a, b); };
  auto add = [](ExprRef a, ExprRef b) { return binary(BinaryOp::Add, a, b); };
  switch (m.rows) {
  case 1:
    return x(0, 0);
  case 2:
    return sub(mul(x(0, 0), x(1, 1)), mul(x(1, 0), x(0, 1)));
  case 3: {
    auto helper = [&](int a, int b, int c) {
      return mul(x(0, a), sub(mul(x(1, b), x(2, c)), mul(x(1, c), x(2, b))));
    };
    return add(sub(helper(0, 1, 2), helper(1, 0, 2)), helper(2, 0, 1));
  }
  case 4: {
    auto det2 = [&](int i0, int i1) {
      return eigenTemporary(sub(mul(x(i0, 0), x(i1, 1)), mul(x(i1, 0), x(i0, 1))), "det2", at);
    };
    ExprRef d01 = det2(0, 1), d02 = det2(0, 2), d03 = det2(0, 3), d12 = det2(1, 2),
            d13 = det2(1, 3), d23 = det2(2, 3);
    auto neg = [](ExprRef a) { return unary(UnaryOp::Neg, a); };
    auto det3 = [&](int i0, ExprRef e0, int i1, ExprRef e1, int i2, ExprRef e2) {
      return add(mul(x(i0, 2), e0), add(mul(neg(x(i1, 2)), e1), mul(x(i2, 2), e2)));
    };
    ExprRef d3_0 = det3(1, d23, 2, d13, 3, d12), d3_1 = det3(0, d23, 2, d03, 3, d02);
    ExprRef d3_2 = det3(0, d13, 1, d03, 3, d01), d3_3 = det3(0, d12, 1, d02, 2, d01);
    return add(add(mul(neg(x(0, 3)), d3_0), mul(x(1, 3), d3_1)),
               add(mul(neg(x(2, 3)), d3_2), mul(x(3, 3), d3_3)));
  }
  default:
    unsupported(at, "'determinant' is supported for matrices up to 4x4");
  }
}

Lowering::EigenValue Lowering::eigenInverse(const EigenValue &m, const clang::Expr *at) {
  if (m.rows != m.cols || m.rows > 3)
    unsupported(at, "'inverse' is supported for 1x1, 2x2 and 3x3 matrices (Eigen inverts 4x4 "
                    "ones with code of its own for each instruction set)");
  auto mul = [](ExprRef a, ExprRef b) { return binary(BinaryOp::Mul, a, b); };
  auto sub = [](ExprRef a, ExprRef b) { return binary(BinaryOp::Sub, a, b); };
  ExprRef one = floatLit(1.0, m.elem);
  EigenValue out = m;
  if (m.rows == 1) {
    out.at = {binary(BinaryOp::Div, one, m.at[0])};
    return out;
  }
  if (m.rows == 2) {
    ExprRef invdet =
        eigenTemporary(binary(BinaryOp::Div, one, eigenDeterminant(m, at)), "invdet", at);
    out.at = {mul(m.coeff(1, 1), invdet), mul(unary(UnaryOp::Neg, m.coeff(1, 0)), invdet),
              mul(unary(UnaryOp::Neg, m.coeff(0, 1)), invdet), mul(m.coeff(0, 0), invdet)};
    return out;
  }
  auto cofactor = [&](int i, int j) {
    int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    return sub(mul(m.coeff(i1, j1), m.coeff(i2, j2)), mul(m.coeff(i1, j2), m.coeff(i2, j1)));
  };
  std::vector<ExprRef> col0;
  for (int k = 0; k < 3; ++k)
    col0.push_back(eigenTemporary(cofactor(k, 0), "cofactor", at));
  std::vector<ExprRef> terms;
  for (int k = 0; k < 3; ++k)
    terms.push_back(mul(col0[k], m.coeff(k, 0)));
  ExprRef det = eigenSum(terms, 0, 3, BinaryOp::Add);
  ExprRef invdet = eigenTemporary(binary(BinaryOp::Div, one, det), "invdet", at);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r)
      out.at[r + c * 3] = mul(r == 0 ? col0[c] : cofactor(c, r), invdet);
  return out;
}

ExprRef Lowering::lowerEigenScalar(const clang::Expr *e) {
  const auto *call = llvm::dyn_cast<clang::CallExpr>(withoutValueCarriers(e));
  const clang::FunctionDecl *fd = call ? eigenCallee(call) : nullptr;
  if (!fd || isEigen(call))
    return nullptr;
  if (ExprRef element = lowerEigenCoefficient(call))
    return element;
  const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call);
  if (!member)
    unsupported(call, "the Eigen function " + calleeWord(fd) + " is not supported");
  const clang::Expr *object = member->getImplicitObjectArgument();
  std::string name = fd->getDeclName().isIdentifier() ? fd->getName().str() : "";
  if (name == "rows" || name == "cols" || name == "size") {
    EigenValue v = eigenValue(object);
    int64_t k = name == "rows" ? v.rows : name == "cols" ? v.cols : v.rows * v.cols;
    return intLit(k, scalarType(call->getType(), call->getBeginLoc()));
  }
  EigenValue self = eigenValue(object);
  unsigned n = call->getNumArgs();
  if (name == "dot" && n == 1) {
    EigenValue b = eigenValue(call->getArg(0));
    if (b.at.size() != self.at.size())
      unsupported(call, "'dot' of vectors of different sizes");
    std::vector<ExprRef> terms;
    for (size_t k = 0; k < self.at.size(); ++k)
      terms.push_back(binary(BinaryOp::Mul, self.at[k], b.at[k]));
    return eigenSum(terms, 0, terms.size(), BinaryOp::Add);
  }
  if (name == "squaredNorm" && n == 0)
    return eigenReduce(self, BinaryOp::Add, true);
  if (name == "norm" && n == 0)
    return math(MathFn::Sqrt, self.elem, {eigenReduce(self, BinaryOp::Add, true)});
  if (name == "sum" && n == 0)
    return eigenReduce(self, BinaryOp::Add, false);
  if (name == "prod" && n == 0)
    return eigenReduce(self, BinaryOp::Mul, false);
  if (name == "mean" && n == 0)
    return binary(BinaryOp::Div, eigenReduce(self, BinaryOp::Add, false),
                  floatLit(static_cast<double>(self.at.size()), self.elem));
  if (name == "trace" && n == 0) {
    std::vector<ExprRef> diagonal;
    for (int k = 0; k < std::min(self.rows, self.cols); ++k)
      diagonal.push_back(self.coeff(k, k));
    return eigenSum(diagonal, 0, diagonal.size(), BinaryOp::Add);
  }
  if (name == "determinant" && n == 0)
    return eigenDeterminant(eigenShared(self, "square", call), call);
  if ((name == "maxCoeff" || name == "minCoeff") && n == 0) {
    // std::max (std::min) of the halves, as Eigen's reduction by maxi/mini.
    bool largest = name == "maxCoeff";
    return eigenTree(self.at, 0, self.at.size(), [largest](ExprRef x, ExprRef y) {
      return largest ? select(binary(BinaryOp::Lt, x, y), y, x)
                     : select(binary(BinaryOp::Lt, y, x), y, x);
    });
  }
  if ((name == "value" && n == 0) || llvm::isa<clang::CXXConversionDecl>(fd)) {
    if (self.at.size() != 1)
      unsupported(call, "'value' of an Eigen expression that is not 1x1");
    return self.at[0];
  }
  unsupported(call, "the Eigen function " + calleeWord(fd) + " is not supported");
}

} // namespace cgp
