//===- LowerContainers.cpp - std::array and std::vector as buffers --------===//
//
// The standard containers a kernel may use are lowered to what the IR
// already has, so the analyses see every element access as before:
//
// - `std::array<T, N>` is a `T[N]` (a nested one a `T[N][M]`): a local or a
//   struct member is an IR array (TypeMapping.cpp), a parameter a pointer to
//   its elements. `a.size()` is the constant N.
// - `std::vector<T>` is a buffer and its size: a parameter becomes a pointer
//   to its elements and an integer `v_size` after it; a local becomes a
//   cgp::rt::Buffer the generated function owns (Var::ownsStorage), sized
//   where it is declared by `cgp::rt::allocate(v, v_size)` and filled by
//   the IR's own statements, so the analyses see every element it gets.
//   `v.size()` is that integer. A local is declared at the top level of its
//   function, so its storage never moves while the function runs; its
//   adjoint and tangent are Shadows sized with it (include/cgp/buffer.h).
//   A local sized by a compile-time constant and never resized is an
//   array instead, as a std::array is: compilers optimise a local array
//   better than a heap buffer behind a pointer.
//
// Elements are reached as C++ reaches them: `v[i]`, `v.at(i)`, `v.front()`,
// `v.back()`, `*v.data()`, `v.data()[i]`, `&v[k]` and `v.data() + k` passed
// on, range-based `for`. A kernel's container parameter keeps its type in the entry points,
// through the wrapper of transform/EntryWrappers.h (`x.data()`, `x.size()`,
// `d_x->data()`), and a helper's runs undifferentiated through its copy
// with the split parameters (transform/PrimalCopies.h).
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <functional>
#include <set>

namespace cgp {
namespace {

/// The variable a container expression names (through parentheses and
/// no-op conversions), or null.
const clang::VarDecl *containerDecl(const clang::Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
    return llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
  return nullptr;
}

/// Whether `e` calls a method that changes the size of a std::vector.
bool resizes(const clang::CXXMemberCallExpr *e, const clang::ASTContext &ctx) {
  const clang::CXXMethodDecl *m = e->getMethodDecl();
  const clang::Expr *object = e->getImplicitObjectArgument();
  if (!m || !object)
    return false;
  std::optional<ContainerType> c = containerTypeOf(object->getType(), ctx);
  std::string name = m->getNameAsString();
  return c && c->isVector &&
         (name == "push_back" || name == "emplace_back" || name == "resize" ||
          name == "clear" || name == "pop_back");
}

/// The std::vector variables of a function body (lambdas in it included)
/// whose size a statement changes, and whether one changes the size of a
/// vector reached otherwise (through a reference or a pointer).
class ResizedVectors : public clang::RecursiveASTVisitor<ResizedVectors> {
public:
  explicit ResizedVectors(const clang::ASTContext &ctx) : ctx_(ctx) {}
  bool VisitCXXMemberCallExpr(clang::CXXMemberCallExpr *e) {
    if (!resizes(e, ctx_))
      return true;
    const clang::Expr *object = e->getImplicitObjectArgument()->IgnoreParenImpCasts();
    const clang::VarDecl *vd = containerDecl(object);
    if (vd && !vd->getType()->isReferenceType() && !vd->getType()->isPointerType())
      named.insert(vd);
    else if (!llvm::isa<clang::MemberExpr>(object)) // (a member vector is never an array)
      unknown = true;
    return true;
  }
  bool VisitCXXOperatorCallExpr(clang::CXXOperatorCallExpr *e) {
    // x = y on vectors: x takes y's size.
    if (e->getOperator() != clang::OO_Equal || e->getNumArgs() != 2)
      return true;
    std::optional<ContainerType> c = containerTypeOf(e->getArg(0)->getType(), ctx_);
    if (!c || !c->isVector)
      return true;
    if (const clang::VarDecl *vd = containerDecl(e->getArg(0)))
      named.insert(vd);
    return true;
  }
  std::set<const clang::VarDecl *> named;
  bool unknown = false;

private:
  const clang::ASTContext &ctx_;
};

} // namespace

std::optional<int64_t> Lowering::fixedVectorSize(const clang::VarDecl *vd,
                                                 std::optional<int64_t> count) {
  // As large as a local array may sensibly be (it and its adjoint live on
  // the stack of the generated function).
  constexpr int64_t kMaxElements = 8192;
  if (!count || *count < 1 || *count > kMaxElements)
    return std::nullopt;
  const auto *fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(vd->getParentFunctionOrMethod());
  if (!fn || !fn->getBody())
    return std::nullopt;
  auto known = resizedVectors_.find(fn);
  if (known == resizedVectors_.end()) { // once per function
    ResizedVectors scan(ctx_);
    scan.TraverseStmt(fn->getBody());
    known = resizedVectors_.emplace(fn, scan.unknown ? std::nullopt : std::optional(scan.named))
                .first;
  }
  if (!known->second || known->second->count(vd))
    return std::nullopt;
  return count;
}

void Lowering::lowerContainerParam(const clang::ParmVarDecl *p, const ContainerType &c,
                                   Function *f) {
  clang::QualType t = p->getType();
  std::string name = p->getNameAsString();
  if (t->isRValueReferenceType())
    unsupported(p->getLocation(), "parameter '" + name + "': rvalue references are not supported");
  bool writable = t->isLValueReferenceType() && !t.getNonReferenceType().isConstQualified();
  Var v;
  v.name = name;
  v.elem = c.elem;
  v.shape = Var::Pointer;
  // A copy (`std::vector<double> x`) is read-only here, so that the callee
  // cannot change the caller's elements.
  v.isConst = !writable;
  v.origin = Var::Param;
  v.paramIndex = static_cast<int>(f->params.size());
  v.pos = position(p->getLocation());
  Var *data = module_.newVar(v);
  vars_[p] = data;
  f->params.push_back(data);
  if (c.isVector)
    data->sizeVar = addSizeParam(name, v.pos, f);
  f->splitParams = true;
}

Var *Lowering::addSizeParam(const std::string &name, const SourcePos &pos, Function *f) {
  Var n;
  n.name = name + "_size";
  n.elem = sizeType(ctx_);
  n.isConst = true;
  n.origin = Var::Param;
  n.paramIndex = static_cast<int>(f->params.size());
  n.pos = pos;
  Var *size = module_.newVar(n);
  f->params.push_back(size);
  return size;
}

void Lowering::describeContainerParam(const clang::ParmVarDecl *p, const ContainerType &c, int index,
                                      Function *f) {
  clang::QualType t = p->getType();
  SplitParam split;
  split.index = index;
  split.name = p->getNameAsString();
  split.type = c.spelling;
  split.isContainer = true;
  split.isConst = t.getNonReferenceType().isConstQualified();
  split.byReference = t->isReferenceType();
  split.inOut = split.byReference && !split.isConst;
  SplitParam::Leaf data;
  data.var = vars_.at(p);
  data.access = ".data()";
  data.isArray = true;
  split.leaves.push_back(data);
  if (c.isVector) {
    SplitParam::Leaf size;
    size.var = vars_.at(p)->sizeVar;
    size.access = ".size()";
    split.leaves.push_back(size);
  }
  f->splitOriginals.push_back(split);
}

ExprRef Lowering::containerSize(const clang::Expr *e) {
  std::optional<ContainerType> c = containerTypeOf(e->getType(), ctx_);
  if (!c)
    unsupported(e, "internal error: not a container");
  if (!c->isVector)
    return intLit(c->dims[0], sizeType(ctx_));
  if (const clang::VarDecl *vd = containerDecl(e)) {
    if (auto it = fixedVectorSizes_.find(vd); it != fixedVectorSizes_.end())
      return intLit(it->second, sizeType(ctx_));
    if (auto it = vars_.find(vd); it != vars_.end() && it->second->sizeVar)
      return varRef(it->second->sizeVar);
  }
  if (Var *v = memoryVar(e); v && v->sizeVar) // a struct's std::vector member
    return varRef(v->sizeVar);
  unsupported(e, "the size of this std::vector is not known here; use a std::vector parameter "
                 "or local variable");
}

ExprRef Lowering::containerElement(const clang::Expr *base, ExprRef at, const clang::Expr *whole) {
  // M[i][j] on a std::array of std::arrays: the base is the row M[i].
  if (const auto *row = llvm::dyn_cast<clang::CXXOperatorCallExpr>(base->IgnoreParenImpCasts());
      row && row->getOperator() == clang::OO_Subscript) {
    std::optional<ContainerType> outer = containerTypeOf(row->getArg(0)->getType(), ctx_);
    if (outer && outer->dims.size() == 2) {
      Var *v = memoryVar(row->getArg(0));
      ExprRef i = lowerIndex(row->getArg(1));
      if (v && v->isArray())
        return index(v, {i, at});
      if (v) // a parameter: a pointer to N * M elements, row after row
        return index(v, {binary(BinaryOp::Add,
                                binary(BinaryOp::Mul, i, intLit(outer->dims[1])), at)});
    }
  }
  Var *v = memoryVar(base);
  if (!v)
    unsupported(whole, "only std::vector and std::array variables, parameters and struct members "
                       "can be indexed");
  if (v->isArray() && v->dims.size() == 2)
    unsupported(whole, "'" + v->name + "' has two dimensions; index it as " + v->name + "[i][j]");
  return index(v, {at});
}

ExprRef Lowering::lowerContainerSubscript(const clang::CXXOperatorCallExpr *e) {
  if (e->getOperator() != clang::OO_Subscript || e->getNumArgs() != 2 ||
      !containerTypeOf(e->getArg(0)->getType(), ctx_))
    return nullptr;
  return containerElement(e->getArg(0), lowerIndex(e->getArg(1)), e);
}

ExprRef Lowering::lowerIndex(const clang::Expr *at) {
  // operator[] and at() take a size_t: the conversion of an int index is
  // C++'s, not the user's, and an index of any integer type reads the same
  // element, so the IR keeps the index as written (`xc[i]`, as for arrays).
  const clang::Expr *written = at->IgnoreImpCasts();
  if (written->getType()->isIntegerType())
    at = written;
  return lowerExpr(at);
}

ExprRef Lowering::lowerContainerMethod(const clang::CXXMemberCallExpr *e, bool wantAddress) {
  if (ExprRef value = lowerStructVectorValue(e))
    return value;
  const clang::Expr *object = e->getImplicitObjectArgument();
  if (!object || !containerTypeOf(object->getType(), ctx_))
    return nullptr;
  std::string name = e->getMethodDecl()->getNameAsString();
  if (name == "size")
    return convert(containerSize(object), scalarType(e->getType(), e->getBeginLoc()));
  if (name == "empty")
    return binary(BinaryOp::Eq, containerSize(object), intLit(0, sizeType(ctx_)));
  if (name == "data") {
    if (!wantAddress)
      unsupported(e, "'data()' can only be indexed, offset or passed to a function");
    Var *v = memoryVar(object);
    if (!v)
      unsupported(e, "'data()' of this container is not supported");
    return address(v, intLit(0));
  }
  ExprRef element;
  if (name == "at" || name == "operator[]")
    element = containerElement(object, lowerIndex(e->getArg(0)), e);
  else if (name == "front")
    element = containerElement(object, intLit(0), e);
  else if (name == "back")
    element = containerElement(
        object, binary(BinaryOp::Sub, convert(containerSize(object), ScalarType::intType()), intLit(1)),
        e);
  if (!element)
    unsupported(e, "the method '" + name + "' of a standard container is not supported; use "
                   "size(), data(), [], at(), front(), back(), empty() and fill()");
  return wantAddress ? elementAddress(element) : element;
}

ExprRef Lowering::containerDataElement(const clang::Expr *base, ExprRef offset) {
  const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(base->IgnoreParenImpCasts());
  const clang::Expr *object = mc ? mc->getImplicitObjectArgument() : nullptr;
  if (!object || !containerTypeOf(object->getType(), ctx_) ||
      mc->getMethodDecl()->getNameAsString() != "data")
    return nullptr;
  Var *v = memoryVar(object);
  if (!v || (v->isArray() && v->dims.size() == 2))
    return nullptr; // (the caller says what is not supported)
  return index(v, {offset});
}

StmtRef Lowering::lowerContainerStmt(const clang::Expr *e) {
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    if (StmtRef s = lowerStructVectorStmt(mc))
      return s;
    const clang::Expr *object = mc->getImplicitObjectArgument();
    if (!object || !containerTypeOf(object->getType(), ctx_))
      return nullptr;
    std::string name = mc->getMethodDecl()->getNameAsString();
    if (name == "fill") {
      Var *v = memoryVar(object);
      if (!v || (v->isArray() && v->dims.size() == 2))
        unsupported(e, "'fill' of this container is not supported");
      ExprRef value = convert(lowerExpr(mc->getArg(0)), v->elem);
      if (v->isConst && v->origin != Var::Local)
        unsupported(e, readOnlyWrite(v));
      return elementLoop(v, containerSize(object), [value](ExprRef) { return value; },
                         position(e->getBeginLoc()));
    }
    if (name == "push_back" || name == "emplace_back" || name == "resize" ||
        name == "clear" || name == "pop_back" || name == "reserve" || name == "assign")
      return lowerVectorResize(mc, name);
    if (name == "insert" || name == "erase" || name == "swap" ||
        name == "shrink_to_fit" || name == "emplace")
      unsupported(e, "'" + name + "' on a std::vector is not supported; use push_back, "
                     "pop_back, resize, clear or assign, or set its elements");
    return nullptr;
  }
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
  if (!op || op->getOperator() != clang::OO_Equal ||
      !containerTypeOf(op->getArg(0)->getType(), ctx_))
    return nullptr;
  // a = b on two std::arrays: element by element. (A vector's assignment may
  // change its size.)
  std::optional<ContainerType> c = containerTypeOf(op->getArg(0)->getType(), ctx_);
  Var *to = memoryVar(op->getArg(0));
  Var *from = memoryVar(op->getArg(1));
  if (c->isVector) { // x = y: y's size and elements
    if (!to || !from || !to->sizeVar)
      unsupported(e, "a std::vector can be assigned only from another std::vector variable, "
                     "parameter or struct member");
    std::vector<StmtRef> out;
    copyVector(to, from, containerSize(op->getArg(1)), e->getBeginLoc(), out);
    StmtRef b = block(out);
    b->pos = position(e->getBeginLoc());
    return b;
  }
  if (!to || !from)
    unsupported(e, "a std::array can be assigned only from another std::array variable");
  if (to->isConst && to->origin != Var::Local)
    unsupported(e, readOnlyWrite(to));
  std::vector<StmtRef> out;
  int64_t count = 1;
  for (int64_t d : c->dims)
    count *= d;
  for (int64_t k = 0; k < count; ++k)
    out.push_back(assign(index(to, elementAt(to, k)), index(from, elementAt(from, k))));
  StmtRef b = block(out);
  b->pos = position(e->getBeginLoc());
  return b;
}

StmtRef Lowering::lowerVectorResize(const clang::CXXMemberCallExpr *e, const std::string &name) {
  const clang::Expr *object = e->getImplicitObjectArgument();
  const clang::VarDecl *vd = containerDecl(object);
  Var *v = memoryVar(object); // a local, or a member of a struct local
  if (!v || !v->ownsStorage)
    unsupported(e, "'" + name + "' changes the size of '" +
                       (vd ? vd->getNameAsString() : v ? v->name : std::string("this vector")) +
                       "'; only a std::vector local of the function may change its size (a "
                       "parameter's size is the caller's)");
  if (name == "reserve")
    return block(); // capacity only: nothing the derivative sees
  Var *size = v->sizeVar;
  SourcePos pos = position(e->getBeginLoc());
  std::vector<StmtRef> out;
  auto resized = [&] { resizeBuffer(v, out); };
  if (name == "assign") { // assign(n, value), assign(first, last)
    std::vector<const clang::Expr *> args(e->arg_begin(), e->arg_end());
    std::optional<ContainerType> c = containerTypeOf(object->getType(), ctx_);
    if (args.size() != 2)
      unsupported(e, "'assign' takes a count and a value, or a range, here");
    VectorInit what = vectorContents(args, *c, v->name, e->getBeginLoc());
    out.push_back(assign(varRef(size), what.count));
    resized();
    fillVector(v, varRef(size), what, pos, out);
  } else if (name == "push_back" || name == "emplace_back") {
    if (e->getNumArgs() != 1)
      unsupported(e, "'" + name + "' with other than one argument is not supported");
    // The value first: it may read the vector (v.push_back(v.back())).
    ExprRef value = convert(lowerExpr(e->getArg(0)), v->elem);
    if (mentions(value, v) || mentions(value, size)) {
      Var *staged = newLocal(v->name + "_pushed", v->elem, pos);
      out.push_back(decl(staged, value));
      value = varRef(staged);
    }
    out.push_back(assign(varRef(size), intLit(1, size->elem), AssignOp::Add));
    resized();
    out.push_back(assign(index(v, {binary(BinaryOp::Sub, varRef(size), intLit(1, size->elem))}),
                         value));
  } else if (name == "pop_back") {
    out.push_back(assign(varRef(size), intLit(1, size->elem), AssignOp::Sub));
    resized();
  } else if (name == "clear") {
    out.push_back(assign(varRef(size), intLit(0, size->elem)));
    resized();
  } else { // resize(n) and resize(n, value): new elements value-initialised or `value`
    ExprRef count = convert(lowerExpr(e->getArg(0)), size->elem);
    ExprRef value = e->getNumArgs() > 1 ? convert(lowerExpr(e->getArg(1)), v->elem)
                    : v->isFloating()   ? floatLit(0.0, v->elem)
                                        : intLit(0, v->elem);
    Var *old = newLocal(v->name + "_old_size", size->elem, pos);
    out.push_back(decl(old, varRef(size)));
    out.push_back(assign(varRef(size), count));
    resized();
    out.push_back(elementLoop(v, varRef(size), [value](ExprRef) { return value; }, pos,
                              varRef(old)));
  }
  StmtRef b = block(out);
  b->pos = pos;
  return b;
}

StmtRef Lowering::rangeLoop(Var *k, ExprRef from, ExprRef to, std::vector<StmtRef> body,
                            SourcePos pos) {
  auto asInt = [](const ExprRef &e) {
    return e->type == ScalarType::intType() ? e : cast(ScalarType::intType(), e);
  };
  StmtRef loop = forStmt(decl(k, asInt(from)), binary(BinaryOp::Lt, varRef(k), asInt(to)),
                         assign(varRef(k), intLit(1), AssignOp::Add), block(std::move(body)));
  loop->pos = pos;
  return loop;
}

StmtRef Lowering::rangeLoop(const std::string &name, ExprRef from, ExprRef to,
                            const std::function<std::vector<StmtRef>(ExprRef)> &body,
                            SourcePos pos) {
  Var *k = newLocal(name + "_k", ScalarType::intType(), pos);
  k->spelling = "the elements"; // a loop of cgp-ad's, over a container or a struct's members
  return rangeLoop(k, std::move(from), std::move(to), body(varRef(k)), pos);
}

StmtRef Lowering::elementLoop(Var *v, ExprRef count,
                              const std::function<ExprRef(ExprRef)> &valueAt, SourcePos pos,
                              ExprRef first) {
  if (v->isArray() && v->dims.size() == 2)
    unsupported(clang::SourceLocation(), "internal error: filling a 2-D array");
  return rangeLoop(v->name, first ? first : intLit(0), std::move(count), [&](ExprRef k) {
    return std::vector<StmtRef>{assign(index(v, {k}), valueAt(k))};
  }, pos);
}

Var *Lowering::newLocal(const std::string &name, const ScalarType &type, const SourcePos &pos) {
  Var v;
  v.name = name;
  v.elem = type;
  v.origin = Var::Local;
  v.pos = pos;
  return module_.newVar(v);
}

bool Lowering::lowerContainerArg(const clang::Expr *arg, const clang::ParmVarDecl *param,
                                 std::vector<ExprRef> &args) {
  std::optional<ContainerType> c = containerTypeOf(param->getType(), ctx_);
  if (!c)
    return false;
  const clang::Expr *source = arg->IgnoreImplicit();
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(source);
      construct && construct->getNumArgs() == 1)
    source = construct->getArg(0)->IgnoreImplicit(); // the copy made for a by-value parameter
  Var *v = memoryVar(source);
  if (!v)
    unsupported(arg, "a container argument must be a std::vector or std::array variable, "
                     "parameter or struct member");
  args.push_back(address(v, intLit(0)));
  if (c->isVector)
    args.push_back(containerSize(source));
  return true;
}

const clang::InitListExpr *Lowering::stdArrayElements(const clang::InitListExpr *l) {
  if (l && l->getNumInits() == 1 && containerTypeOf(l->getType(), ctx_))
    if (const auto *inner = llvm::dyn_cast<clang::InitListExpr>(l->getInit(0)->IgnoreImplicit()))
      return inner;
  return l;
}

StmtRef Lowering::lowerStdArrayInit(Var *array, const clang::Expr *init) {
  const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(init);
  if (!construct || !containerTypeOf(init->getType(), ctx_))
    return nullptr;
  if (construct->getNumArgs() == 0) {
    if (!construct->requiresZeroInitialization())
      return block(); // std::array<double, 4> h; leaves the elements as they are
    ExprRef zero = array->isFloating() ? floatLit(0.0, array->elem) : intLit(0, array->elem);
    std::vector<StmtRef> out;
    for (int64_t k = 0; k < array->elementCount(); ++k)
      out.push_back(assign(index(array, elementAt(array, k)), zero));
    return block(out);
  }
  Var *from = construct->getNumArgs() == 1 ? memoryVar(construct->getArg(0)) : nullptr;
  if (!from)
    unsupported(init, "a std::array can be initialised with a braced list or a copy of another "
                      "std::array variable");
  std::vector<StmtRef> out;
  for (int64_t k = 0; k < array->elementCount(); ++k) {
    out.push_back(assign(index(array, elementAt(array, k)), index(from, elementAt(from, k))));
  }
  return block(out);
}

const clang::InitListExpr *Lowering::initializerListItems(const clang::Expr *arg) {
  const auto *list = llvm::dyn_cast_or_null<clang::CXXStdInitializerListExpr>(arg);
  if (!list)
    return nullptr;
  const clang::Expr *items = list->getSubExpr()->IgnoreImplicit();
  if (const auto *temp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(items))
    items = temp->getSubExpr()->IgnoreImplicit();
  const auto *l = llvm::dyn_cast<clang::InitListExpr>(items);
  if (!l)
    unsupported(arg, "this initialiser list is not supported");
  return l;
}

Lowering::VectorInit Lowering::vectorInit(const clang::Expr *init, const ContainerType &c,
                                           const std::string &name, clang::SourceLocation loc) {
  // What it starts with: a count and a value, a copy, a braced list.
  init = init ? init->IgnoreImplicit() : nullptr;
  if (const auto *cleanups = llvm::dyn_cast_or_null<clang::ExprWithCleanups>(init))
    init = cleanups->getSubExpr()->IgnoreImplicit();
  const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(init);
  if (!construct)
    unsupported(loc, "this initialisation of the std::vector '" + name +
                         "' is not supported; write std::vector<T> " + name +
                         "(n), (n, value), (first, last), (other) or {a, b, ...}");
  std::vector<const clang::Expr *> args;
  for (const clang::Expr *a : construct->arguments())
    if (!llvm::isa<clang::CXXDefaultArgExpr>(a))
      args.push_back(a);
  return vectorContents(args, c, name, loc);
}

Lowering::VectorInit Lowering::vectorContents(const std::vector<const clang::Expr *> &args,
                                              const ContainerType &c, const std::string &name,
                                              clang::SourceLocation loc) {
  ScalarType sizeElem = sizeType(ctx_);
  VectorInit out;
  const clang::Expr *first = args.empty() ? nullptr : args[0]->IgnoreImplicit();
  if (const auto *temp = llvm::dyn_cast_or_null<clang::MaterializeTemporaryExpr>(first))
    first = temp->getSubExpr()->IgnoreImplicit();
  if (const clang::InitListExpr *l = initializerListItems(first)) {
    for (const clang::Expr *item : l->inits())
      out.listed.push_back(item);
    out.count = intLit(static_cast<int64_t>(out.listed.size()), sizeElem);
    out.constantCount = static_cast<int64_t>(out.listed.size());
  } else if (args.empty()) {
    out.count = intLit(0, sizeElem); // std::vector<double> v; (filled by push_back)
  } else if (containerTypeOf(args[0]->getType(), ctx_) && args.size() == 1) {
    const clang::Expr *source = args[0];
    Var *from = memoryVar(source);
    if (!from)
      unsupported(source, "a std::vector can be copied only from a std::vector variable, "
                          "parameter or struct member");
    out.count = containerSize(source);
    if (const clang::VarDecl *from = containerDecl(source))
      if (auto it = fixedVectorSizes_.find(from); it != fixedVectorSizes_.end())
        out.constantCount = it->second;
    out.valueAt = [from](ExprRef k) { return index(from, {k}); };
  } else if (args.size() <= 2 && args[0]->getType()->isIntegerType()) {
    out.count = convert(lowerExpr(args[0]), sizeElem);
    clang::Expr::EvalResult known;
    if (args[0]->EvaluateAsInt(known, ctx_))
      out.constantCount = known.Val.getInt().getExtValue();
    ExprRef value = args.size() == 2 ? convert(lowerExpr(args[1]), c.elem)
                    : c.elem.isFloating() ? floatLit(0.0, c.elem)
                                          : intLit(0, c.elem);
    out.valueAt = [value](ExprRef) { return value; };
  } else if (args.size() == 2) { // (first, last): a range of one buffer
    const IteratorRange range = iteratorRange(args[0], args[1], "vector");
    ExprRef first = range.first, end = range.end;
    ExprRef from = first->operands[0];
    bool fromZero = from->kind == ExprKind::IntLit && from->intValue == 0;
    out.count = convert(fromZero ? end : binary(BinaryOp::Sub, end, from), sizeElem);
    Var *buffer = first->var;
    out.valueAt = [buffer, from, fromZero](ExprRef k) {
      return index(buffer, {fromZero ? k : binary(BinaryOp::Add, from, k)});
    };
  } else {
    unsupported(loc, "this constructor of the std::vector '" + name +
                         "' is not supported; write std::vector<T> " + name +
                         "(n), (n, value), (first, last), (other) or {a, b, ...}");
  }
  return out;
}

void Lowering::fillVector(Var *data, ExprRef length, const VectorInit &init, SourcePos pos,
                          std::vector<StmtRef> &out) {
  for (size_t i = 0; i < init.listed.size(); ++i)
    out.push_back(assign(index(data, {intLit(static_cast<int64_t>(i))}),
                         convert(lowerExpr(init.listed[i]), data->elem)));
  if (init.valueAt)
    out.push_back(elementLoop(data, std::move(length), init.valueAt, pos));
}

void Lowering::initVector(Var *v, const clang::Expr *init, std::vector<StmtRef> &out) {
  std::optional<ContainerType> c = containerTypeOf(init->getType(), ctx_);
  if (!c || !c->isVector)
    unsupported(init, "internal error: not a std::vector");
  VectorInit what = vectorInit(init, *c, v->name, init->getBeginLoc());
  out.push_back(assign(varRef(v->sizeVar), what.count));
  resizeBuffer(v, out);
  fillVector(v, varRef(v->sizeVar), what, position(init->getBeginLoc()), out);
}

StmtRef Lowering::lowerVectorDecl(const clang::VarDecl *vd, const ContainerType &c) {
  std::string name = vd->getNameAsString();
  SourcePos pos = position(vd->getLocation());
  ScalarType sizeElem = sizeType(ctx_);
  VectorInit init = vectorInit(vd->getInit(), c, name, vd->getLocation());
  // Never resized and sized by a constant, it is an array, as a std::array
  // would be (`v.size()` is the constant). Otherwise a buffer the function
  // owns. Declared in a loop or a branch, it is sized again each time its
  // declaration runs, like a resize: its storage is the function's, and the
  // reverse sweep finds each run's elements where the tape put them back (a
  // loop that sizes a vector is taped, not checkpointed). Either is filled
  // each time the declaration runs.
  std::optional<int64_t> fixed = fixedVectorSize(vd, init.constantCount);
  Var v;
  v.name = name;
  v.elem = c.elem;
  v.origin = Var::Local;
  v.pos = pos;
  if (fixed) {
    v.shape = Var::Array;
    v.dims = {*fixed};
  } else {
    v.shape = Var::Pointer;
    v.ownsStorage = true;
    v.sizeVar = newLocal(name + "_size", sizeElem, pos);
    v.sizeVar->spelling = name + ".size()"; // as the plan names it
  }
  Var *data = module_.newVar(v);
  vars_[vd] = data;
  std::vector<StmtRef> out;
  ExprRef length;
  if (fixed) {
    fixedVectorSizes_[vd] = *fixed;
    out.push_back(decl(data));
    length = intLit(*fixed);
  } else {
    out.push_back(decl(data->sizeVar, init.count));
    out.push_back(decl(data));
    resizeBuffer(data, out);
    length = varRef(data->sizeVar);
  }
  fillVector(data, length, init, pos, out);
  StmtRef b = block(out);
  b->pos = pos;
  return b;
}

} // namespace cgp
