//===- LowerStructArrays.cpp - arrays of structs --------------------------===//
//
// An array of structs whose members (nested structs and 1-D member arrays
// included) are all of one floating type T is, in memory, an array of T:
// C++ lays such a struct out without padding (the entry point checks it with
// a static_assert on its size). The IR sees it as that flat buffer, `stride`
// scalars per element, so every member of every element is an element of
// one named buffer at an explicit index, as the analyses want:
//
//   struct Particle { Vec3 pos; double mass; };   // stride 4
//   ps[i].pos.y                                    ps[i * 4 + 1]
//   ps[i].norm()                                   Particle_norm(ps[i * 4], ...)
//   const Particle& p = ps[i];                     int p_at = i;  (p.mass: ps[p_at * 4 + 3])
//   helper(&ps[k]);  helper(ps + k);               helper(ps + k * 4)
//
// A parameter `const S* ps`, `S* ps` or `S ps[]` is a pointer to T; a kernel
// keeps its signature through its entry point (transform/EntryWrappers.h),
// which passes `reinterpret_cast<const double *>(ps)` and the adjoints'
// buffer likewise. A local `S ps[N]` is a local array of N * stride scalars,
// initialised element by element as C++ does. Structs with members of
// several types (an `int id` among doubles) have no such flat view and are
// refused in parameter arrays, naming the member.
//
// A local `std::vector<S>` is a struct of vectors instead: one column per
// leaf, each a buffer the function owns as a vector local is (`obs_cam`,
// `obs_w`), all sized with the vector's count (`obs_size`), so members of
// any type mix. `v[i].w` is `obs_w[i]`; `push_back(s)`, `resize(n)` (new
// elements value-initialised), `clear`, `pop_back`, `size()`, `empty()`,
// `front()`, `back()`, `at(i)`, references to elements and range-based
// `for` work as on arrays.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace cgp {

Lowering::StructArray Lowering::structArrayLayout(clang::QualType t, const std::string &what,
                                                  clang::SourceLocation loc) {
  StructArray a;
  clang::PrintingPolicy policy(ctx_.getLangOpts());
  policy.SuppressTagKeyword = true; // 'Tagged', not 'struct Tagged'
  std::string type = t.getUnqualifiedType().getAsString(policy);
  std::string problem = flattenRecord(t, ctx_, a.leaves);
  if (!problem.empty())
    unsupported(loc, what + ": " + problem);
  for (const RecordLeaf &leaf : a.leaves) {
    if (!leaf.elem.isFloating() || leaf.elem != a.leaves[0].elem)
      unsupported(loc, what + ": arrays of '" + type + "' are supported only when every member "
                          "has one floating type; member '" + leaf.path + "' is '" +
                          leaf.elem.spelling + "'");
    if (leaf.dims.size() > 1)
      unsupported(loc, what + ": member '" + leaf.path + "' of '" + type +
                          "' is a two-dimensional array; arrays of structs may hold "
                          "one-dimensional member arrays only");
    a.offsets.push_back(a.stride);
    a.stride += leaf.dims.empty() ? 1 : leaf.dims[0];
  }
  if (a.leaves.empty())
    unsupported(loc, what + ": '" + type + "' has no members");
  return a;
}

Lowering::StructArray Lowering::flatStructParam(const clang::ParmVarDecl *p,
                                                clang::QualType element, bool isConst,
                                                Function *f) {
  std::string name = p->getNameAsString();
  StructArray a = structArrayLayout(element, "parameter '" + name + "'", p->getLocation());
  Var v;
  v.name = name;
  v.elem = a.leaves[0].elem;
  v.shape = Var::Pointer;
  v.isConst = isConst;
  v.origin = Var::Param;
  v.paramIndex = static_cast<int>(f->params.size());
  v.pos = position(p->getLocation());
  a.buffer = module_.newVar(v);
  vars_[p] = a.buffer;
  f->params.push_back(a.buffer);
  f->splitParams = true; // the user's function takes the structs
  return a;
}

void Lowering::lowerStructArrayParam(const clang::ParmVarDecl *p, Function *f) {
  clang::QualType t = p->getType();
  clang::QualType element = t->isPointerType() ? t->getPointeeType()
                                               : ctx_.getAsArrayType(t)->getElementType();
  structArrays_[p] = flatStructParam(p, element, element.isConstQualified(), f);
}

StmtRef Lowering::lowerStructArrayDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  const auto *arrayType = ctx_.getAsConstantArrayType(vd->getType());
  if (!arrayType)
    unsupported(vd->getLocation(), "local '" + name + "': arrays of structs must have a "
                                                      "constant size");
  clang::QualType element = arrayType->getElementType();
  if (element->isArrayType())
    unsupported(vd->getLocation(), "local '" + name + "': two-dimensional arrays of structs "
                                                      "are not supported");
  StructArray a = structArrayLayout(element, "local '" + name + "'", vd->getLocation());
  int64_t n = static_cast<int64_t>(arrayType->getSize().getZExtValue());
  Var v;
  v.name = name;
  v.elem = a.leaves[0].elem;
  v.shape = Var::Array;
  v.dims = {n * a.stride};
  v.origin = Var::Local;
  v.pos = position(vd->getLocation());
  a.buffer = module_.newVar(v);
  vars_[vd] = a.buffer;
  structArrays_[vd] = a;

  const clang::Expr *init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
  if (const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(init);
      construct && construct->getConstructor()->isDefaultConstructor() &&
      !construct->getConstructor()->isUserProvided())
    init = nullptr; // default member values only
  const auto *list = llvm::dyn_cast_or_null<clang::InitListExpr>(init);
  if (init && !list)
    unsupported(init, "array '" + name + "' must be initialised with a braced list");
  const clang::CXXRecordDecl *rd = element->getAsCXXRecordDecl();
  int64_t listed = list ? std::min<int64_t>(list->getNumInits(), n) : 0;
  if (listed < n && (rd->hasUserDeclaredConstructor() || memberWithConstructor(element)))
    unsupported(vd->getLocation(), "local '" + name + "': elements of an array of structs with "
                                                      "a constructor must all be given");
  std::vector<StmtRef> out{decl(a.buffer)};
  StmtRef body = withSideEffects([&] {
    std::vector<StmtRef> stmts;
    for (int64_t k = 0; k < listed; ++k)
      initRecord(elementView(a, intLit(k)), list->getInit(k), /*declared=*/true, stmts);
    if (listed == n)
      return block(stmts);
    // The rest: zero when the list is there (value-initialised), then the
    // default member values, element by element.
    auto loop = [&](const std::string &counter, int64_t from, int64_t to, auto fill) {
      Var k;
      k.name = counter;
      k.elem = ScalarType::intType();
      k.origin = Var::Temp;
      Var *kv = module_.newVar(k);
      std::vector<StmtRef> inner;
      fill(varRef(kv), inner);
      if (inner.empty())
        return;
      StmtRef s = forStmt(decl(kv, intLit(from)), binary(BinaryOp::Lt, varRef(kv), intLit(to)),
                          assign(varRef(kv), intLit(1), AssignOp::Add), block(inner));
      s->pos = a.buffer->pos;
      stmts.push_back(s);
    };
    if (list)
      loop("k", listed * a.stride, n * a.stride, [&](ExprRef k, std::vector<StmtRef> &inner) {
        inner.push_back(assign(index(a.buffer, {k}), floatLit(0.0, a.buffer->elem)));
      });
    loop("e", listed, n, [&](ExprRef k, std::vector<StmtRef> &inner) {
      initRecord(elementView(a, k), nullptr, /*declared=*/true, inner);
    });
    return block(stmts);
  });
  appendFlat(out, body);
  StmtRef b = block(out);
  b->pos = a.buffer->pos;
  return b;
}

const Lowering::StructArray *Lowering::structArrayOf(const clang::Expr *e) {
  const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *vd = dr ? llvm::dyn_cast<clang::VarDecl>(dr->getDecl()) : nullptr;
  auto it = vd ? structArrays_.find(vd) : structArrays_.end();
  return it == structArrays_.end() ? nullptr : &it->second;
}

int64_t Lowering::strideOf(const Var *v) const {
  for (const auto &[decl, a] : structArrays_)
    if (a.buffer == v)
      return a.stride;
  return 0;
}

Lowering::RecordView Lowering::elementView(const StructArray &a, ExprRef index) {
  if (!a.columns.empty()) {
    RecordView view;
    for (size_t l = 0; l < a.leaves.size(); ++l) {
      int64_t width = a.leaves[l].dims.empty() ? 1 : a.leaves[l].dims[0];
      ExprRef at = width == 1                        ? index
                   : index->kind == ExprKind::IntLit ? intLit(index->intValue * width)
                                                     : binary(BinaryOp::Mul,
                                                              convert(index, ScalarType::intType()),
                                                              intLit(width));
      view.places.push_back({a.columns[l], at});
      view.fields.push_back(a.leaves[l].fields);
      view.dims.push_back(a.leaves[l].dims);
    }
    return view;
  }
  ExprRef start = index->kind == ExprKind::IntLit
                      ? intLit(index->intValue * a.stride)
                      : binary(BinaryOp::Mul, convert(index, ScalarType::intType()),
                               intLit(a.stride));
  RecordView view;
  for (size_t l = 0; l < a.leaves.size(); ++l) {
    view.places.push_back({a.buffer, plusConstant(start, a.offsets[l])});
    view.fields.push_back(a.leaves[l].fields);
    view.dims.push_back(a.leaves[l].dims);
  }
  return view;
}

const Lowering::StructArray *Lowering::indexedStructArray(const clang::Expr *e, ExprRef &index) {
  e = e->IgnoreParenImpCasts();
  if (const auto *sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
    const StructArray *a = structArrayOf(sub->getBase());
    if (!a)
      unsupported(e, "only arrays of structs that are parameters or locals can be indexed");
    index = lowerExpr(sub->getIdx());
    return a;
  }
  if (const auto *deref = llvm::dyn_cast<clang::UnaryOperator>(e);
      deref && deref->getOpcode() == clang::UO_Deref) {
    const StructArray *a = structArrayOf(deref->getSubExpr());
    if (a)
      index = intLit(0); // *ps
    return a;
  }
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
      op && op->getOperator() == clang::OO_Subscript && op->getNumArgs() == 2) {
    const StructArray *a = structArrayOf(op->getArg(0));
    if (a)
      index = lowerIndex(op->getArg(1)); // v[i]
    return a;
  }
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const StructArray *a = mc->getImplicitObjectArgument()
                               ? structArrayOf(mc->getImplicitObjectArgument())
                               : nullptr;
    if (!a || !a->count)
      return nullptr;
    std::string name = mc->getMethodDecl()->getNameAsString();
    if ((name == "at" || name == "operator[]") && mc->getNumArgs() == 1)
      index = lowerIndex(mc->getArg(0));
    else if (name == "front")
      index = intLit(0);
    else if (name == "back")
      index = binary(BinaryOp::Sub, cast(ScalarType::intType(), varRef(a->count)), intLit(1));
    else
      return nullptr;
    return a;
  }
  return nullptr;
}

std::optional<Lowering::RecordView> Lowering::structElement(const clang::Expr *e) {
  ExprRef index;
  if (const StructArray *a = indexedStructArray(e, index))
    return elementView(*a, index);
  return std::nullopt;
}

const clang::CXXRecordDecl *Lowering::structVectorElement(clang::QualType t) {
  clang::QualType element = vectorOfStructsElement(t, ctx_);
  return element.isNull() ? nullptr : element->getAsCXXRecordDecl();
}

Lowering::StructArray Lowering::columnLayout(clang::QualType element, const std::string &what,
                                             clang::SourceLocation loc) {
  StructArray a;
  std::string problem = flattenRecord(element, ctx_, a.leaves);
  if (!problem.empty())
    unsupported(loc, what + ": " + problem);
  if (a.leaves.empty())
    unsupported(loc, what + ": '" + element.getAsString() + "' has no members");
  for (const RecordLeaf &leaf : a.leaves)
    if (leaf.dims.size() > 1)
      unsupported(loc, what + ": member '" + leaf.path + "' is a two-dimensional array; "
                       "vectors of structs may hold one-dimensional member arrays only");
  return a;
}

Lowering::StructArray Lowering::newStructVector(const std::string &name, clang::QualType element,
                                                clang::SourceLocation loc,
                                                std::vector<StmtRef> &out) {
  SourcePos pos = position(loc);
  StructArray a = columnLayout(element, "local '" + name + "'", loc);
  a.count = newLocal(name + "_size", sizeType(ctx_), pos);
  a.count->spelling = name + ".size()";
  a.owned = true;
  out.push_back(decl(a.count, intLit(0, a.count->elem)));
  for (const RecordLeaf &leaf : a.leaves) {
    Var v;
    v.name = leafVarName(name, leaf);
    v.elem = leaf.elem;
    v.shape = Var::Pointer;
    v.ownsStorage = true;
    v.origin = Var::Local;
    v.pos = pos;
    v.sizeVar = newLocal(v.name + "_size", sizeType(ctx_), pos);
    Var *column = module_.newVar(v);
    a.columns.push_back(column);
    declareLeaf(column, out);
  }
  return a;
}

StmtRef Lowering::lowerStructVectorDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  SourcePos pos = position(vd->getLocation());
  clang::QualType element = ctx_.getRecordType(structVectorElement(vd->getType()));
  std::vector<StmtRef> out;
  StructArray a = newStructVector(name, element, vd->getLocation(), out);
  structArrays_[vd] = a;

  // What it starts with: n value-initialised elements, n copies of one,
  // a copy of another vector, a braced list.
  const clang::Expr *init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
  if (const auto *cleanups = llvm::dyn_cast_or_null<clang::ExprWithCleanups>(init))
    init = cleanups->getSubExpr()->IgnoreImplicit();
  const auto *construct = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(init);
  if (!construct)
    unsupported(vd->getLocation(), "this initialisation of the vector of structs '" + name +
                                       "' is not supported; write (n), (n, value), (other) or "
                                       "{a, b, ...}");
  std::vector<const clang::Expr *> args;
  for (const clang::Expr *arg : construct->arguments())
    if (!llvm::isa<clang::CXXDefaultArgExpr>(arg))
      args.push_back(arg);
  const clang::Expr *first = args.empty() ? nullptr : args[0]->IgnoreImplicit();
  if (const auto *temp = llvm::dyn_cast_or_null<clang::MaterializeTemporaryExpr>(first))
    first = temp->getSubExpr()->IgnoreImplicit();
  StmtRef body = withSideEffects([&] {
    std::vector<StmtRef> stmts;
    auto sized = [&](ExprRef count) {
      stmts.push_back(assign(varRef(a.count), convert(count, a.count->elem)));
      resizeColumns(a, stmts);
    };
    if (args.empty())
      return block(stmts);
    if (const clang::InitListExpr *l = initializerListItems(first)) {
      sized(intLit(l->getNumInits(), a.count->elem));
      for (unsigned k = 0; k < l->getNumInits(); ++k)
        initRecord(elementView(a, intLit(k)), l->getInit(k), /*declared=*/true, stmts);
      return block(stmts);
    }
    if (args.size() == 1 && structVectorElement(args[0]->getType())) {
      ExprRef index;
      const StructArray *from = structArrayOf(args[0]);
      if (!from || !from->count)
        unsupported(args[0], "a vector of structs can be copied only from another local one");
      sized(varRef(from->count));
      stmts.push_back(rangeLoop(name, intLit(0), varRef(a.count), [&](ExprRef k) {
        std::vector<StmtRef> copy;
        copyRecord(elementView(a, k), elementView(*from, k), copy);
        return copy;
      }, pos));
      return block(stmts);
    }
    if (args.size() <= 2 && args[0]->getType()->isIntegerType()) {
      if (args.size() == 1 && element->getAsCXXRecordDecl()->hasUserProvidedDefaultConstructor() &&
          !complexElement(element, ctx_)) // std::complex's makes zero
        unsupported(vd->getLocation(), "local '" + name + "': elements of '" +
                                           element.getAsString() + "' have a constructor; "
                                           "push_back the elements instead");
      sized(lowerExpr(args[0]));
      if (args.size() == 2) { // n copies of one value, built once
        RecordView value = valueView(args[1]);
        stmts.push_back(rangeLoop(name, intLit(0), varRef(a.count), [&](ExprRef k) {
          std::vector<StmtRef> copy;
          copyRecord(elementView(a, k), value, copy);
          return copy;
        }, pos));
      } else {
        stmts.push_back(rangeLoop(name, intLit(0), varRef(a.count), [&](ExprRef k) {
          std::vector<StmtRef> fill;
          initRecord(elementView(a, k), nullptr, /*declared=*/true, fill, /*zeroRest=*/true);
          return fill;
        }, pos));
      }
      return block(stmts);
    }
    unsupported(vd->getLocation(), "this constructor of the vector of structs '" + name +
                                       "' is not supported; write (n), (n, value), (other) or "
                                       "{a, b, ...}");
  });
  appendFlat(out, body);
  StmtRef b = block(out);
  b->pos = pos;
  return b;
}

void Lowering::refuseVectorByValue(const clang::ParmVarDecl *p) {
  if (!p->getType()->isLValueReferenceType())
    unsupported(p->getLocation(), "parameter '" + p->getNameAsString() + "': pass a vector of "
                                  "structs by reference ('const std::vector<S>&' or "
                                  "'std::vector<S>&')");
}

void Lowering::lowerStructVectorParam(const clang::ParmVarDecl *p, Function *f) {
  std::string name = p->getNameAsString();
  clang::QualType t = p->getType();
  refuseVectorByValue(p);
  bool writable = !t.getNonReferenceType().isConstQualified();
  clang::QualType element = ctx_.getRecordType(structVectorElement(t));
  StructArray a = columnLayout(element, "parameter '" + name + "'", p->getLocation());
  SourcePos pos = position(p->getLocation());
  for (const RecordLeaf &leaf : a.leaves) {
    Var v;
    v.name = leafVarName(name, leaf);
    v.elem = leaf.elem;
    v.shape = Var::Pointer;
    v.isConst = !writable;
    v.origin = Var::Param;
    v.pos = pos;
    v.paramIndex = static_cast<int>(f->params.size());
    a.columns.push_back(module_.newVar(v));
    f->params.push_back(a.columns.back());
  }
  a.count = addSizeParam(name, pos, f);
  structArrays_[p] = a;
  f->splitParams = true;
}

void Lowering::lowerStructVectorKernelParam(const clang::ParmVarDecl *p, Function *f) {
  clang::QualType t = p->getType();
  refuseVectorByValue(p);
  StructArray a = flatStructParam(p, vectorOfStructsElement(t, ctx_),
                                  t.getNonReferenceType().isConstQualified(), f);
  a.count = addSizeParam(p->getNameAsString(), a.buffer->pos, f);
  structArrays_[p] = a;
}

void Lowering::describeStructVectorParam(const clang::ParmVarDecl *p, int index, Function *f) {
  clang::QualType t = p->getType();
  const StructArray &a = structArrays_.at(p);
  SplitParam split;
  split.index = index;
  split.name = p->getNameAsString();
  split.type = globalTypeName(t.getNonReferenceType().getUnqualifiedType(), ctx_);
  split.isContainer = true;
  split.isConst = t.getNonReferenceType().isConstQualified();
  split.byReference = true;
  split.inOut = !split.isConst;
  split.stride = a.stride;
  SplitParam::Leaf data;
  data.var = a.buffer;
  data.access = ".data()";
  data.isArray = true;
  data.flatElements = true;
  split.leaves.push_back(data);
  SplitParam::Leaf size;
  size.var = a.count;
  size.access = ".size()";
  split.leaves.push_back(size);
  f->splitOriginals.push_back(split);
}

bool Lowering::lowerStructVectorArg(const clang::Expr *arg, const clang::ParmVarDecl *param,
                                    std::vector<ExprRef> &args) {
  auto it = structArrays_.find(param);
  if (it == structArrays_.end() || !it->second.count)
    return false;
  if (foreignRoot(arg)) {
    // A constant kept whole (a kernel's parameter it reads as written): its
    // elements copied into columns of the caller's own before the call.
    if (!sideEffects_ || lazy_)
      unsupported(arg, "a constant vector of structs passed here must be copied into a local "
                       "vector first");
    std::vector<ExprRef> operands;
    std::string range = foreignPattern(arg, operands);
    std::vector<StmtRef> &out = sideEffects_->before;
    clang::QualType element = ctx_.getRecordType(structVectorElement(param->getType()));
    StructArray copy = newStructVector(param->getNameAsString() + "_copy", element,
                                       arg->getBeginLoc(), out);
    out.push_back(assign(varRef(copy.count),
                         foreign(range + ".size()", copy.count->elem, operands)));
    resizeColumns(copy, out);
    std::vector<ExprRef> elementOperands = operands;
    out.push_back(rangeLoop(copy.count->name, intLit(0), varRef(copy.count), [&](ExprRef k) {
      std::vector<StmtRef> fill;
      elementOperands.push_back(k);
      copyForeignRecord(elementView(copy, k), element,
                        range + "[$" + std::to_string(operands.size()) + "]", elementOperands,
                        fill);
      elementOperands.pop_back();
      return fill;
    }, position(arg->getBeginLoc())));
    for (Var *column : copy.columns)
      args.push_back(address(column, intLit(0)));
    args.push_back(varRef(copy.count));
    return true;
  }
  const StructArray *from = structArrayOf(arg);
  if (!from || !from->count)
    unsupported(arg, "a vector of structs argument must be a vector of structs variable or "
                     "parameter");
  if (from->columns.empty()) {
    // A kernel's parameter, one flat buffer: its elements copied into
    // columns before the call, for a helper that only reads them.
    if (!param->getType().getNonReferenceType().isConstQualified())
      unsupported(arg, "passing the vector of structs parameter '" + from->buffer->name +
                       "' to a helper that may change it is not supported; pass it by const "
                       "reference, or pass its elements");
    if (!sideEffects_ || lazy_)
      unsupported(arg, "a vector of structs parameter passed here must be copied into a local "
                       "vector first");
    std::vector<StmtRef> &out = sideEffects_->before;
    clang::QualType element = ctx_.getRecordType(structVectorElement(param->getType()));
    StructArray copy = newStructVector(from->buffer->name + "_columns", element,
                                       arg->getBeginLoc(), out);
    out.push_back(assign(varRef(copy.count), varRef(from->count)));
    resizeColumns(copy, out);
    out.push_back(rangeLoop(copy.count->name, intLit(0), varRef(copy.count), [&](ExprRef k) {
      std::vector<StmtRef> fill;
      copyRecord(elementView(copy, k), elementView(*from, k), fill);
      return fill;
    }, position(arg->getBeginLoc())));
    for (Var *column : copy.columns)
      args.push_back(address(column, intLit(0)));
    args.push_back(varRef(copy.count));
    return true;
  }
  if (!param->getType().getNonReferenceType().isConstQualified())
    for (Var *column : from->columns)
      if (column->isConst)
        unsupported(arg, "passes the constant '" + column->name + "' to a non-const reference");
  for (Var *column : from->columns)
    args.push_back(address(column, intLit(0)));
  args.push_back(varRef(from->count));
  return true;
}

void Lowering::resizeColumns(const StructArray &a, std::vector<StmtRef> &out) {
  for (size_t l = 0; l < a.columns.size(); ++l) {
    Var *column = a.columns[l];
    int64_t width = a.leaves[l].dims.empty() ? 1 : a.leaves[l].dims[0];
    ExprRef count = varRef(a.count);
    out.push_back(assign(varRef(column->sizeVar),
                         width == 1 ? count
                                    : binary(BinaryOp::Mul, count, intLit(width, count->type))));
    resizeBuffer(column, out);
  }
}

StmtRef Lowering::lowerStructVectorStmt(const clang::CXXMemberCallExpr *e) {
  const clang::Expr *object = e->getImplicitObjectArgument();
  if (!object || !structVectorElement(object->getType()))
    return nullptr;
  const StructArray *a = structArrayOf(object);
  std::string name = e->getMethodDecl()->getNameAsString();
  bool resizes = name == "push_back" || name == "emplace_back" || name == "resize" ||
                 name == "clear" || name == "pop_back" || name == "reserve";
  if (!resizes)
    return nullptr;
  if (!a || !a->owned)
    unsupported(e, "'" + name + "' changes the size of a vector of structs that is not a local "
                   "of the function");
  if (name == "reserve")
    return block(); // capacity only
  SourcePos pos = position(e->getBeginLoc());
  Var *count = a->count;
  std::vector<StmtRef> out;
  if (name == "push_back" || name == "emplace_back") {
    if (e->getNumArgs() != 1 || !e->getArg(0)->getType()->isRecordType())
      unsupported(e, "'" + name + "' on a vector of structs takes one struct");
    // The new element is an index: reading the vector's own elements
    // (`v.push_back(v[0])`) after it grew reads the same values.
    out.push_back(assign(varRef(count), intLit(1, count->elem), AssignOp::Add));
    resizeColumns(*a, out);
    ExprRef last = binary(BinaryOp::Sub, cast(ScalarType::intType(), varRef(count)), intLit(1));
    initRecord(elementView(*a, last), e->getArg(0), /*declared=*/true, out);
  } else if (name == "pop_back") {
    out.push_back(assign(varRef(count), intLit(1, count->elem), AssignOp::Sub));
    resizeColumns(*a, out);
  } else if (name == "clear") {
    out.push_back(assign(varRef(count), intLit(0, count->elem)));
    resizeColumns(*a, out);
  } else { // resize(n), resize(n, value)
    Var *old = newLocal(count->name + "_old", count->elem, pos);
    out.push_back(decl(old, varRef(count)));
    out.push_back(assign(varRef(count), convert(lowerExpr(e->getArg(0)), count->elem)));
    resizeColumns(*a, out);
    std::optional<RecordView> value;
    if (e->getNumArgs() > 1)
      value = valueView(e->getArg(1));
    out.push_back(rangeLoop(count->name, varRef(old), varRef(count), [&](ExprRef k) {
      std::vector<StmtRef> fill;
      if (value)
        copyRecord(elementView(*a, k), *value, fill);
      else
        initRecord(elementView(*a, k), nullptr, /*declared=*/true, fill, /*zeroRest=*/true);
      return fill;
    }, pos));
  }
  StmtRef b = block(out);
  b->pos = pos;
  return b;
}

ExprRef Lowering::lowerStructVectorValue(const clang::CXXMemberCallExpr *e) {
  const clang::Expr *object = e->getImplicitObjectArgument();
  if (!object || !structVectorElement(object->getType()))
    return nullptr;
  const StructArray *a = structArrayOf(object);
  std::string name = e->getMethodDecl()->getNameAsString();
  if (name == "at" || name == "operator[]" || name == "front" || name == "back")
    return nullptr; // an element: a struct, seen through structElement
  if (!a || !a->count)
    unsupported(e, "vectors of structs are supported as local variables and helper parameters "
                   "only");
  if (name == "size")
    return convert(varRef(a->count), scalarType(e->getType(), e->getBeginLoc()));
  if (name == "empty")
    return binary(BinaryOp::Eq, varRef(a->count), intLit(0, a->count->elem));
  unsupported(e, "the method '" + name + "' of a vector of structs is not supported; use "
                 "size(), empty(), [], at(), front(), back(), push_back, pop_back, resize and "
                 "clear");
}

StmtRef Lowering::lowerStructRangeFor(const clang::CXXForRangeStmt *s, const StructArray &a) {
  const clang::VarDecl *loopVar = s->getLoopVariable();
  std::string name = loopVar->getNameAsString();
  SourcePos pos = position(loopVar->getLocation());
  ExprRef extent;
  if (a.count) {
    extent = varRef(a.count);
  } else if (const auto *array = ctx_.getAsConstantArrayType(s->getRangeInit()->getType())) {
    extent = intLit(static_cast<int64_t>(array->getSize().getZExtValue()));
  } else {
    unsupported(s->getRangeInit(), "range-based 'for' loops over a pointer to structs are not "
                                   "supported; index it");
  }
  Var *at = newLocal(name + "_at", ScalarType::intType(), pos);
  RecordView element = elementView(a, varRef(at));
  std::vector<StmtRef> body;
  if (loopVar->getType()->isReferenceType()) {
    RecordLocal record; // the element itself
    for (size_t i = 0; i < element.places.size(); ++i) {
      RecordLeaf leaf = a.leaves[i];
      record.leaves.push_back(leaf);
      record.places.push_back(element.places[i]);
    }
    records_[loopVar] = record;
  } else {
    RecordLocal copy = newRecordLocal(loopVar, "the loop variable '" + name + "'");
    records_[loopVar] = copy;
    for (const LeafPlace &p : copy.places)
      declareLeaf(p.var, body);
    copyRecord(viewOf(copy), element, body);
  }
  appendFlat(body, lowerStmt(s->getBody()));
  return rangeLoop(at, intLit(0), extent, std::move(body), position(s->getBeginLoc()));
}

StmtRef Lowering::lowerRecordReference(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  clang::QualType t = vd->getType();
  if (t->isRValueReferenceType())
    unsupported(vd->getLocation(), "local '" + name + "': rvalue references are not supported");
  const clang::Expr *init = vd->getInit();
  if (!init)
    unsupported(vd->getLocation(), "local '" + name + "' must be bound where it is declared");
  std::vector<StmtRef> out;
  StmtRef s = withSideEffects([&] {
    // Walk p.a.b down to its struct; an element of an array of structs
    // gets its index bound once, as C++ binds the reference.
    std::vector<const clang::FieldDecl *> path;
    const clang::Expr *at = init->IgnoreParenImpCasts();
    while (const auto *me = llvm::dyn_cast<clang::MemberExpr>(at)) {
      const auto *field = llvm::dyn_cast<clang::FieldDecl>(me->getMemberDecl());
      if (!field || me->isArrow())
        break;
      path.insert(path.begin(), field);
      at = me->getBase()->IgnoreParenImpCasts();
    }
    RecordView view;
    std::vector<StmtRef> binds;
    ExprRef idx;
    if (const StructArray *a = indexedStructArray(at, idx)) {
      if (idx->kind != ExprKind::IntLit) {
        Var *bound = newLocal(name + "_at", ScalarType::intType(), position(vd->getLocation()));
        binds.push_back(decl(bound, convert(idx, bound->elem)));
        idx = varRef(bound);
      }
      view = subView(elementView(*a, idx), path);
    } else {
      view = recordView(init); // a struct variable, member or temporary
    }
    RecordLocal record;
    for (size_t i = 0; i < view.places.size(); ++i) {
      RecordLeaf leaf;
      leaf.fields = view.fields[i];
      leaf.dims = view.dims[i];
      leaf.elem = view.places[i].var->elem;
      record.leaves.push_back(leaf);
      record.places.push_back(view.places[i]);
    }
    records_[vd] = record;
    return block(binds);
  });
  appendFlat(out, s);
  StmtRef b = block(out);
  b->pos = position(vd->getLocation());
  return b;
}

} // namespace cgp
