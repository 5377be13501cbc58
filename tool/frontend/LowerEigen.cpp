//===- LowerEigen.cpp - Eigen's fixed-size matrices as arrays ------------===//
//
// An `Eigen::Matrix<T, R, C>` (or `Eigen::Array`) of fixed size is a struct
// of one array leaf, its R*C coefficients in the order of `data()`
// (column-major: TypeMapping's flattenRecord), so that locals, parameters,
// struct members and helpers taking or returning matrices go where structs
// go. What Eigen's expressions compute is lowered here, coefficient by
// coefficient, to the arithmetic Eigen's own templates do:
//
//   Vector3d d = a - b;          d[0] = a[0] - b[0]; d[1] = ...; d[2] = ...;
//   double e = d.squaredNorm();  e = d[0] * d[0] + (d[1] * d[1] + d[2] * d[2]);
//   Vector3d y = M * x;          y[0] = M[0] * x[0] + (M[3] * x[1] + M[6] * x[2]); ...
//
// Sums (dot, norm, sum, the inner sums of products) are split in halves as
// Eigen's unvectorised reductions are, so the values are Eigen's bit for bit
// when Eigen does not vectorise the reduction (docs/reference.md says when
// they may differ in the last bits). Blocks, columns, rows, segments and
// transposes of a matrix in memory are strided views of its buffer, so they
// can be assigned and indexed at run-time positions. Determinants and
// inverses of 2x2 and 3x3 matrices follow Eigen's cofactor formulas.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"
#include "ir/Fold.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace cgp {

const clang::FunctionDecl *eigenCallee(const clang::Expr *e) {
  const clang::FunctionDecl *fd = calleeOf(e);
  return fd && inEigenNamespace(fd) ? fd : nullptr;
}

namespace {

/// The explicit template arguments of a call (`block<2, 2>(i, j)`), as numbers.
std::vector<int64_t> templateInts(const clang::FunctionDecl *fd) {
  std::vector<int64_t> out;
  if (const clang::TemplateArgumentList *args = fd->getTemplateSpecializationArgs())
    for (const clang::TemplateArgument &a : args->asArray())
      if (a.getKind() == clang::TemplateArgument::Integral)
        out.push_back(a.getAsIntegral().getExtValue());
  return out;
}

/// `offset + k`, one literal where both are constants (ir/Fold's add else).
ExprRef offsetPlus(const ExprRef &offset, const ExprRef &k) {
  if (offset->kind == ExprKind::IntLit && k->kind == ExprKind::IntLit)
    return intLit(offset->intValue + k->intValue, offset->type);
  return add(offset, k);
}

/// `e * k`, one literal where `e` is a constant (ir/Fold's mul else).
ExprRef times(const ExprRef &e, int64_t k) {
  if (e->kind == ExprKind::IntLit)
    return intLit(e->intValue * k, e->type);
  return mul(e, intLit(k, e->type));
}

/// `e` as a base and a constant it adds (`q_at + 2`: q_at and 2; `5`: null
/// and 5).
std::pair<ExprRef, int64_t> baseAndConstant(const ExprRef &e) {
  if (e->kind == ExprKind::IntLit)
    return {nullptr, e->intValue};
  if (e->kind == ExprKind::Binary && e->binaryOp == BinaryOp::Add &&
      e->operands[1]->kind == ExprKind::IntLit)
    return {e->operands[0], e->operands[1]->intValue};
  return {e, 0};
}

/// Whether `e` reads an element of `v` that one of `places[0..k)` may name:
/// the same constant past the same base, or a base that differs.
bool readsWrittenBefore(const ExprRef &e, const Var *v, const std::vector<ExprRef> &places,
                        size_t k) {
  if (e->kind == ExprKind::Index && e->var == v) {
    auto [base, at] = baseAndConstant(e->operands[0]);
    for (size_t j = 0; j < k; ++j) {
      auto [placeBase, placeAt] = baseAndConstant(places[j]->operands[0]);
      bool sameBase = (!base && !placeBase) || (base && placeBase && sameExpr(base, placeBase));
      if (!sameBase || placeAt == at)
        return true;
    }
  } else if (e->var == v) {
    return true;
  }
  for (const ExprRef &o : e->operands)
    if (readsWrittenBefore(o, v, places, k))
      return true;
  return false;
}

} // namespace

bool Lowering::isEigen(const clang::Expr *e) const {
  const clang::CXXRecordDecl *rd = e->getType().getNonReferenceType()->getAsCXXRecordDecl();
  return rd && inEigenNamespace(rd);
}

bool Lowering::isEigenOperation(const clang::Expr *e) {
  e = withoutValueCarriers(e);
  return isEigen(e) && eigenCallee(e) != nullptr;
}

ExprRef Lowering::EigenView::at(const ExprRef &r, const ExprRef &c) const {
  return index(var, {offsetPlus(offsetPlus(offset, times(r, rowStride)), times(c, colStride))});
}

Lowering::EigenView Lowering::EigenView::contiguous(Var *var, ExprRef offset, int rows, int cols,
                                                   bool isArray, const ScalarType &elem) {
  EigenView v;
  v.var = var;
  v.offset = std::move(offset);
  v.rows = rows;
  v.cols = cols;
  v.rowStride = 1;
  v.colStride = rows;
  v.isArray = isArray;
  v.elem = elem;
  return v;
}

Lowering::EigenValue Lowering::EigenView::value() const {
  EigenValue v{rows, cols, isArray, elem, {}};
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      v.at.push_back(at(intLit(r), intLit(c)));
  return v;
}

Lowering::EigenView Lowering::eigenMapView(const clang::Expr *pointer, const EigenShape &shape,
                                           const clang::Expr *at) {
  if (!pointer->getType()->isPointerType())
    unsupported(at, "an Eigen::Map is supported over a pointer to numbers ('x', 'x + k', "
                    "'v.data()')");
  ExprRef where = lowerAddress(pointer);
  if (where->var->elem != shape.elem)
    unsupported(at, "the Eigen::Map views numbers of another type than its matrix's");
  return EigenView::contiguous(where->var, where->operands[0], shape.rows, shape.cols,
                               shape.isArray, shape.elem);
}

StmtRef Lowering::lowerEigenMapDecl(const clang::VarDecl *vd) {
  EigenShape shape = *eigenMapShapeOf(vd->getType(), ctx_);
  const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(
      vd->getInit() ? withoutValueCarriers(vd->getInit()) : nullptr);
  if (!construct || construct->getNumArgs() < 1 || isEigen(construct->getArg(0)))
    unsupported(vd->getLocation(), "the Eigen::Map '" + vd->getNameAsString() +
                                       "' must be made from a pointer where it is declared");
  return withSideEffects([&] {
    EigenView v = eigenMapView(construct->getArg(0), shape, construct);
    std::vector<StmtRef> binds; // the offset as the Map is made, kept (as a reference's)
    v.offset = bindIndices(index(v.var, {v.offset}), vd->getNameAsString(), binds)->operands[0];
    eigenMaps_[vd] = v;
    StmtRef out = block(binds);
    out->pos = position(vd->getLocation());
    return out;
  });
}

std::optional<Lowering::EigenView> Lowering::eigenView(const clang::Expr *e) {
  e = withoutValueCarriers(e);
  if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
    if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
      if (auto map = eigenMaps_.find(vd); map != eigenMaps_.end())
        return map->second;
  if (std::optional<EigenShape> mapped = eigenMapShapeOf(e->getType(), ctx_))
    if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
        construct && construct->getNumArgs() >= 1 && !isEigen(construct->getArg(0)))
      return eigenMapView(construct->getArg(0), *mapped, construct); // Map<const Vector3d>(x)
  if (const auto *self = llvm::dyn_cast<clang::CXXMemberCallExpr>(e);
      self && e->isGLValue() && eigenCallee(self) && self->getMethodDecl()->getIdentifier() &&
      (self->getMethodDecl()->getName() == "eval" || self->getMethodDecl()->getName() == "derived"))
    return eigenView(self->getImplicitObjectArgument()); // m.eval() of a matrix is m itself
  if (std::optional<EigenShape> shape = eigenShapeOf(e->getType(), ctx_)) {
    if (e->isPRValue() && !(structRValue(e) && filledByCall(e)))
      return std::nullopt; // a value Eigen makes
    RecordView view = structRValue(e) ? structValue(e) : recordView(e);
    if (view.places.size() != 1 || view.dims[0].size() != 1)
      unsupported(e, "this Eigen matrix is not supported here");
    const LeafPlace &p = view.places[0];
    return EigenView::contiguous(p.var, p.offset ? p.offset : intLit(0), shape->rows,
                                 shape->cols, shape->isArray, shape->elem);
  }
  const auto *call = llvm::dyn_cast<clang::CallExpr>(e);
  const clang::FunctionDecl *fd = call ? eigenCallee(call) : nullptr;
  if (!fd || !fd->getDeclName().isIdentifier())
    return std::nullopt;
  const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call);
  if (!member || !isBlockOperation(fd))
    return std::nullopt;
  std::optional<EigenView> whole = eigenView(member->getImplicitObjectArgument());
  if (!whole)
    return std::nullopt;
  return blockOf(*whole, member);
}

bool Lowering::isBlockOperation(const clang::FunctionDecl *fd) {
  static const std::set<std::string> views = {"transpose", "col", "row", "block", "head",
                                              "tail", "segment", "array", "matrix",
                                              "topRows", "bottomRows", "leftCols", "rightCols"};
  return fd->getDeclName().isIdentifier() && views.count(fd->getName().str()) &&
         !llvm::isa<clang::CXXConversionDecl>(fd);
}

Lowering::EigenView Lowering::blockOf(const EigenView &whole,
                                      const clang::CXXMemberCallExpr *call) {
  const clang::FunctionDecl *fd = call->getMethodDecl();
  std::string name = fd->getName().str();
  EigenView v = whole;
  std::vector<int64_t> fixed = templateInts(fd);
  auto arg = [&](unsigned i) { return lowerIndex(call->getArg(i)); };
  auto count = [&](unsigned argIndex, size_t templateIndex) -> int {
    if (templateIndex < fixed.size())
      return static_cast<int>(fixed[templateIndex]);
    if (argIndex < call->getNumArgs()) {
      clang::Expr::EvalResult r;
      if (call->getArg(argIndex)->EvaluateAsInt(r, ctx_))
        return static_cast<int>(r.Val.getInt().getExtValue());
    }
    unsupported(call, "the size of '" + name + "' must be known at compile time (write it as "
                      "a template argument, '" + name + "<n>(...)', or a constant)");
  };
  auto move = [&](const ExprRef &r, const ExprRef &c) {
    v.offset = offsetPlus(offsetPlus(v.offset, times(r, whole.rowStride)),
                          times(c, whole.colStride));
  };
  auto linear = [&](const ExprRef &start, int n) {
    if (v.rows != 1 && v.cols != 1)
      unsupported(call, "'" + name + "' applies to vectors only");
    if (v.cols == 1) {
      move(start, intLit(0));
      v.rows = n;
    } else {
      move(intLit(0), start);
      v.cols = n;
    }
  };
  if (name == "transpose") {
    std::swap(v.rows, v.cols);
    std::swap(v.rowStride, v.colStride);
  } else if (name == "array" || name == "matrix") {
    v.isArray = name == "array";
  } else if (name == "col") {
    move(intLit(0), arg(0));
    v.cols = 1;
  } else if (name == "row") {
    move(arg(0), intLit(0));
    v.rows = 1;
  } else if (name == "block") {
    int rows = count(2, 0), cols = count(3, 1);
    move(arg(0), arg(1));
    v.rows = rows;
    v.cols = cols;
  } else if (name == "head") {
    linear(intLit(0), count(0, 0));
  } else if (name == "tail") {
    int n = count(0, 0);
    linear(intLit((v.rows == 1 ? v.cols : v.rows) - n), n);
  } else if (name == "segment") {
    int n = count(1, 0);
    linear(arg(0), n);
  } else if (name == "topRows" || name == "bottomRows") {
    int n = count(0, 0);
    move(intLit(name == "topRows" ? 0 : v.rows - n), intLit(0));
    v.rows = n;
  } else { // leftCols, rightCols
    int n = count(0, 0);
    move(intLit(0), intLit(name == "leftCols" ? 0 : v.cols - n));
    v.cols = n;
  }
  return v;
}

Lowering::EigenValue Lowering::eigenValue(const clang::Expr *e) {
  const clang::Expr *value = withoutValueCarriers(e);
  if (!isEigen(value))
    unsupported(e, "an Eigen matrix or array is expected here");
  if (foreignRoot(value)) { // a matrix read from a constant kept whole
    std::optional<EigenShape> shape = eigenShapeOf(value->getType(), ctx_);
    if (!shape)
      unsupported(e, "this Eigen expression of a constant is not supported; give it to a local "
                     "of a fixed-size matrix type first");
    std::vector<ExprRef> operands;
    std::string pattern = foreignPattern(value, operands);
    EigenValue v{shape->rows, shape->cols, shape->isArray, shape->elem, {}};
    for (int c = 0; c < v.cols; ++c)
      for (int r = 0; r < v.rows; ++r)
        v.at.push_back(foreign("(" + pattern + ").coeff(" + std::to_string(r) + ", " +
                                   std::to_string(c) + ")",
                               v.elem, operands));
    return v;
  }
  if (std::optional<EigenView> view = eigenView(value))
    return view->value();
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(value))
    return eigenConstruct(construct);
  const auto *call = llvm::dyn_cast<clang::CallExpr>(value);
  const clang::FunctionDecl *fd = call ? eigenCallee(call) : nullptr;
  if (!fd)
    unsupported(e, "this Eigen expression is not supported");
  return eigenCall(call, fd);
}

Lowering::EigenValue Lowering::eigenConstruct(const clang::CXXConstructExpr *e) {
  std::optional<EigenShape> shape = eigenShapeOf(e->getType(), ctx_);
  if (!shape)
    unsupported(e, "this Eigen type is not supported");
  EigenValue v{shape->rows, shape->cols, shape->isArray, shape->elem, {}};
  unsigned n = 0; // the arguments written (Eigen's constructors have defaulted ones)
  while (n < e->getNumArgs() && !llvm::isa<clang::CXXDefaultArgExpr>(e->getArg(n)))
    ++n;
  if (n == 1 && isEigen(e->getArg(0))) { // a copy, or a matrix made from an expression
    EigenValue from = eigenValue(e->getArg(0));
    if (from.rows * from.cols != v.rows * v.cols)
      unsupported(e, "the Eigen expression has another size than the matrix it makes");
    v.at = from.at;
    return v;
  }
  if (n >= 2 && n <= 4 && (v.rows == 1 || v.cols == 1) && static_cast<int>(n) == v.rows * v.cols) {
    for (unsigned i = 0; i < n; ++i)
      v.at.push_back(convert(lowerExpr(e->getArg(i)), v.elem));
    return v;
  }
  if (n == 0)
    unsupported(e, "an Eigen matrix made without a value is not supported here; set its "
                   "coefficients first (setZero(), a comma initialiser)");
  unsupported(e, "this constructor of an Eigen matrix is not supported; give the coefficients "
                 "of a vector (Vector3d(x, y, z)) or a matrix expression");
}

ExprRef Lowering::eigenTemporary(const ExprRef &value, const std::string &name,
                                 const clang::Expr *at) {
  requireStatementsBefore(at, "this Eigen expression");
  Var *t = newLocal(name, value->type, position(at->getBeginLoc()));
  sideEffects_->before.push_back(decl(t, value));
  return varRef(t);
}

Lowering::EigenView Lowering::eigenMaterialised(const EigenValue &v, const std::string &name,
                                                const clang::Expr *at) {
  requireStatementsBefore(at, "this Eigen expression");
  Var tv;
  tv.name = name;
  tv.elem = v.elem;
  tv.dims = {static_cast<int64_t>(v.at.size())};
  tv.shape = Var::Array;
  tv.origin = Var::Local;
  tv.pos = position(at->getBeginLoc());
  Var *t = module_.newVar(tv);
  sideEffects_->before.push_back(decl(t));
  for (size_t k = 0; k < v.at.size(); ++k)
    sideEffects_->before.push_back(assign(index(t, {intLit(static_cast<int64_t>(k))}), v.at[k]));
  return EigenView::contiguous(t, intLit(0), v.rows, v.cols, v.isArray, v.elem);
}

Lowering::EigenValue Lowering::eigenShared(const EigenValue &v, const std::string &name,
                                           const clang::Expr *at) {
  // As Eigen's nested_eval: an expression whose coefficients are read more
  // than once is evaluated into a temporary first (where statements can go
  // before the one being lowered).
  bool simple = true;
  for (const ExprRef &x : v.at)
    simple = simple && (x->kind == ExprKind::Index || x->kind == ExprKind::VarRef ||
                        x->kind == ExprKind::FloatLit || x->kind == ExprKind::IntLit ||
                        x->kind == ExprKind::Foreign);
  if (simple || !sideEffects_ || lazy_)
    return v;
  return eigenMaterialised(v, name, at).value();
}

ExprRef Lowering::lowerEigenCoefficient(const clang::CallExpr *call) {
  const clang::FunctionDecl *fd = eigenCallee(call);
  if (!fd)
    return nullptr;
  const clang::Expr *object = nullptr;
  std::vector<const clang::Expr *> indices;
  std::string name = fd->getDeclName().isIdentifier() ? fd->getName().str() : "";
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call)) {
    if (op->getOperator() != clang::OO_Call && op->getOperator() != clang::OO_Subscript)
      return nullptr;
    object = op->getArg(0);
    for (unsigned i = 1; i < op->getNumArgs(); ++i)
      indices.push_back(op->getArg(i));
  } else if (const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call)) {
    static const std::map<std::string, int> named = {{"x", 0}, {"y", 1}, {"z", 2}, {"w", 3}};
    object = member->getImplicitObjectArgument();
    if (named.count(name) && call->getNumArgs() == 0) {
      ;
    } else if (name == "coeff" || name == "coeffRef") {
      for (unsigned i = 0; i < call->getNumArgs(); ++i)
        indices.push_back(call->getArg(i));
    } else {
      return nullptr;
    }
  } else {
    return nullptr;
  }
  if (!isEigen(object))
    return nullptr;
  ExprRef r, c;
  auto vectorIndex = [&](int rows, int cols, ExprRef k) {
    if (rows != 1 && cols != 1)
      unsupported(call, "one index names a coefficient of a vector only; write m(i, j)");
    r = cols == 1 ? k : intLit(0);
    c = cols == 1 ? intLit(0) : k;
  };
  std::optional<EigenView> view = eigenView(object);
  EigenValue value;
  if (!view)
    value = eigenValue(object);
  int rows = view ? view->rows : value.rows, cols = view ? view->cols : value.cols;
  if (indices.empty())
    vectorIndex(rows, cols, intLit(std::map<std::string, int>{{"x", 0}, {"y", 1}, {"z", 2},
                                                              {"w", 3}}.at(name)));
  else if (indices.size() == 1)
    vectorIndex(rows, cols, lowerIndex(indices[0]));
  else {
    r = lowerIndex(indices[0]);
    c = lowerIndex(indices[1]);
  }
  if (view)
    return view->at(r, c);
  if (r->kind == ExprKind::IntLit && c->kind == ExprKind::IntLit)
    return value.coeff(static_cast<int>(r->intValue), static_cast<int>(c->intValue));
  return eigenMaterialised(value, "coefficients", call).at(r, c);
}

void Lowering::setEigen(const EigenView &to, const EigenValue &value, BinaryOp op, bool combine,
                        const clang::Expr *at, std::vector<StmtRef> &out) {
  if (to.rows * to.cols != value.rows * value.cols ||
      (to.rows != value.rows && to.rows != value.cols))
    unsupported(at, "the Eigen expression assigned has another size than its destination");
  if (isReadOnly(to.var))
    unsupported(at, readOnlyWrite(to.var));
  std::vector<ExprRef> places, values;
  for (int c = 0; c < to.cols; ++c)
    for (int r = 0; r < to.rows; ++r) {
      ExprRef place = to.at(intLit(r), intLit(c));
      // A row assigned to a column (Eigen allows vectors of either kind).
      ExprRef v = value.rows == to.rows ? value.coeff(r, c) : value.at[r + c * to.rows];
      places.push_back(place);
      values.push_back(combine ? binary(op, place, v) : v);
    }
  // A value reading a coefficient that an earlier assignment of this
  // statement changed reads it before (Eigen evaluates products into a
  // temporary first): all values are then staged in locals.
  bool staged = false;
  for (size_t k = 1; k < values.size() && !staged; ++k)
    staged = readsWrittenBefore(values[k], to.var, places, k);
  if (staged) {
    SourcePos pos = position(at->getBeginLoc());
    for (ExprRef &v : values) {
      Var *t = newLocal("staged", v->type, pos);
      out.push_back(decl(t, v));
      v = varRef(t);
    }
  }
  for (size_t k = 0; k < places.size(); ++k)
    out.push_back(assign(places[k], convert(values[k], places[k]->type)));
}

void Lowering::fillEigen(const RecordView &to, const clang::Expr *init, std::vector<StmtRef> &out) {
  if (to.places.size() != 1 || to.dims[0].size() != 1)
    unsupported(init, "this Eigen matrix is not supported here");
  std::optional<EigenShape> shape = eigenShapeOf(init->getType(), ctx_);
  const LeafPlace &p = to.places[0];
  EigenView view = EigenView::contiguous(p.var, p.offset ? p.offset : intLit(0),
                                         shape ? shape->rows : static_cast<int>(to.dims[0][0]),
                                         shape ? shape->cols : 1, shape && shape->isArray,
                                         p.var->elem);
  const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(withoutValueCarriers(init));
  if (construct && construct->getNumArgs() == 0)
    return; // left as it is, as Eigen leaves it
  setEigen(view, eigenValue(init), BinaryOp::Add, false, init, out);
}

StmtRef Lowering::lowerEigenStmt(const clang::Expr *e) {
  const auto *call = llvm::dyn_cast<clang::CallExpr>(withoutValueCarriers(e));
  const clang::FunctionDecl *fd = call ? eigenCallee(call) : nullptr;
  if (!fd)
    return nullptr;
  if (StmtRef init = lowerEigenCommaInit(call))
    return init;
  std::vector<StmtRef> out;
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
  const auto *member = llvm::dyn_cast<clang::CXXMemberCallExpr>(call);
  const clang::Expr *target = op ? op->getArg(0) : member ? member->getImplicitObjectArgument()
                                                           : nullptr;
  if (!target || !isEigen(target))
    return nullptr;
  std::string name = fd->getDeclName().isIdentifier() ? fd->getName().str() : "";
  auto body = [&](auto fill) {
    return withSideEffects([&] {
      std::vector<StmtRef> stmts;
      std::optional<EigenView> to = eigenView(target);
      if (!to)
        unsupported(target, "assigns to an Eigen expression that is not a matrix in memory");
      fill(*to, stmts);
      StmtRef b = block(stmts);
      b->pos = position(call->getBeginLoc());
      return b;
    });
  };
  if (op) {
    clang::OverloadedOperatorKind kind = op->getOperator();
    if (op->getNumArgs() != 2)
      return nullptr;
    const clang::Expr *rhs = op->getArg(1);
    if (kind == clang::OO_Equal)
      return body([&](const EigenView &to, std::vector<StmtRef> &stmts) {
        setEigen(to, eigenValue(rhs), BinaryOp::Add, false, call, stmts);
      });
    if (kind == clang::OO_PlusEqual || kind == clang::OO_MinusEqual)
      return body([&](const EigenView &to, std::vector<StmtRef> &stmts) {
        setEigen(to, eigenValue(rhs), kind == clang::OO_PlusEqual ? BinaryOp::Add : BinaryOp::Sub,
                 true, call, stmts);
      });
    if (kind == clang::OO_StarEqual || kind == clang::OO_SlashEqual)
      return body([&](const EigenView &to, std::vector<StmtRef> &stmts) {
        BinaryOp bop = kind == clang::OO_StarEqual ? BinaryOp::Mul : BinaryOp::Div;
        if (!isEigen(rhs)) {
          ExprRef s = convert(lowerExpr(rhs), to.elem);
          EigenValue k = to.value();
          for (ExprRef &x : k.at)
            x = s;
          setEigen(to, k, bop, true, call, stmts);
        } else if (to.isArray || bop == BinaryOp::Div) {
          setEigen(to, eigenValue(rhs), bop, true, call, stmts);
        } else {
          setEigen(to, eigenProduct(to.value(), eigenValue(rhs), call), BinaryOp::Add, false,
                   call, stmts);
        }
      });
    return nullptr;
  }
  unsigned n = call->getNumArgs();
  auto constant = [&](const EigenView &to, const std::function<ExprRef(int, int)> &coeff,
                      std::vector<StmtRef> &stmts) {
    EigenValue v = to.value();
    for (int c = 0; c < to.cols; ++c)
      for (int r = 0; r < to.rows; ++r)
        v.at[r + c * to.rows] = coeff(r, c);
    setEigen(to, v, BinaryOp::Add, false, call, stmts);
  };
  if ((name == "setZero" || name == "setOnes" || name == "setIdentity") && n == 0)
    return body([&](const EigenView &to, std::vector<StmtRef> &stmts) {
      ExprRef zero = floatLit(0.0, to.elem), one = floatLit(1.0, to.elem);
      constant(to, [&](int r, int c) {
        return name == "setZero" ? zero : name == "setOnes" ? one : (r == c ? one : zero);
      }, stmts);
    });
  if ((name == "setConstant" || name == "fill") && n == 1)
    return body([&](const EigenView &to, std::vector<StmtRef> &stmts) {
      ExprRef x = convert(lowerExpr(call->getArg(0)), to.elem);
      constant(to, [&](int, int) { return x; }, stmts);
    });
  if (name == "normalize" && n == 0)
    return body([&](const EigenView &to, std::vector<StmtRef> &stmts) {
      EigenValue self = to.value();
      Var *z = newLocal("squared_norm", to.elem, position(call->getBeginLoc()));
      stmts.push_back(decl(z, eigenReduce(self, BinaryOp::Add, true)));
      std::vector<StmtRef> divide;
      for (ExprRef &x : self.at)
        divide.push_back(assign(x, binary(BinaryOp::Div, x, math(MathFn::Sqrt, to.elem,
                                                                 {varRef(z)}))));
      stmts.push_back(ifStmt(binary(BinaryOp::Gt, varRef(z), floatLit(0.0, to.elem)),
                             block(divide)));
    });
  return nullptr;
}

StmtRef Lowering::lowerEigenCommaInit(const clang::CallExpr *call) {
  // m << a, b, c;  is  operator,(operator,(operator<<(m, a), b), c)
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
  if (!op || (op->getOperator() != clang::OO_Comma && op->getOperator() != clang::OO_LessLess))
    return nullptr;
  std::vector<const clang::Expr *> items;
  const clang::Expr *at = op;
  while (true) {
    const auto *link = llvm::dyn_cast<clang::CXXOperatorCallExpr>(withoutValueCarriers(at));
    if (!link || link->getNumArgs() != 2)
      return nullptr;
    items.insert(items.begin(), link->getArg(1));
    if (link->getOperator() == clang::OO_LessLess) {
      at = link->getArg(0);
      break;
    }
    if (link->getOperator() != clang::OO_Comma)
      return nullptr;
    at = link->getArg(0);
  }
  if (!isEigen(at))
    return nullptr;
  return withSideEffects([&] {
    std::optional<EigenView> to = eigenView(at);
    if (!to)
      unsupported(at, "a comma initialiser of an Eigen expression that is not a matrix in "
                      "memory is not supported");
    if (static_cast<int>(items.size()) != to->rows * to->cols)
      unsupported(call, "the comma initialiser gives " + std::to_string(items.size()) +
                            " coefficients to a matrix of " +
                            std::to_string(to->rows * to->cols));
    EigenValue v = to->value();
    for (size_t k = 0; k < items.size(); ++k) {
      if (isEigen(items[k]))
        unsupported(items[k], "a comma initialiser of blocks is not supported; give each "
                              "coefficient");
      int r = static_cast<int>(k) / to->cols, c = static_cast<int>(k) % to->cols; // by rows
      v.at[r + c * to->rows] = convert(lowerExpr(items[k]), to->elem);
    }
    std::vector<StmtRef> stmts;
    setEigen(*to, v, BinaryOp::Add, false, call, stmts);
    StmtRef b = block(stmts);
    b->pos = position(call->getBeginLoc());
    return b;
  });
}

} // namespace cgp
