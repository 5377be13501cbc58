//===- LowerAliases.cpp - local pointers and references to the IR ---------===//
//
// The IR has no pointer or reference variables of its own: every access goes
// to a named buffer at explicit indices, which is what lets the analyses and
// the tape know exactly what each statement reads and writes. A local pointer
// or reference is therefore lowered to what it stands for:
//
//   const double* row = A + i * n;   int row_at = i * n;
//   s += row[j];                     s += A[row_at + j];
//   ++row;                           row_at += 1;
//   double& r = y[k];                int r_at = k;   (r is y[r_at] from here on)
//
// A pointer keeps the buffer it was initialised with (its base) for its whole
// life; setting it to another buffer is an error naming it, since the
// analyses could then no longer tell what it writes. A reference is bound
// once, so its indices are evaluated once, into locals of their own.
// Non-const reference parameters of helpers are pointers of extent one in the
// IR (Var::isReference); a scalar variable given to one is passed through a
// one-element copy that is copied back after the call. Range-based `for` over
// an array becomes a counted loop whose variable is a copy of, or a reference
// to, the element.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include <algorithm>

#include <set>

namespace cgp {
namespace {

const clang::Expr *stripNoOps(const clang::Expr *e) {
  while (true) {
    e = e->IgnoreParens();
    const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
    if (!ice || (ice->getCastKind() != clang::CK_LValueToRValue &&
                 ice->getCastKind() != clang::CK_NoOp))
      return e;
    e = ice->getSubExpr();
  }
}

} // namespace

const Lowering::Alias *Lowering::pointerAlias(const clang::Expr *e) {
  const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(stripNoOps(e));
  if (!dr)
    return nullptr;
  const auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
  auto it = vd ? aliases_.find(vd) : aliases_.end();
  if (it == aliases_.end() || !it->second.offset)
    return nullptr;
  return &it->second;
}

ExprRef Lowering::aliasElement(const Alias &a) {
  if (a.at.empty())
    return varRef(a.base);
  return index(a.base, a.at);
}

StmtRef Lowering::lowerPointerDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  clang::QualType pointee = vd->getType()->getPointeeType();
  auto elem = scalarTypeOf(pointee, ctx_);
  if (!elem || elem->isVoid() || pointee->isPointerType())
    unsupported(vd->getLocation(), "local '" + name + "': pointers to '" + pointee.getAsString() +
                                       "' are not supported");
  const clang::Expr *init = vd->getInit();
  if (!init)
    unsupported(vd->getLocation(),
                "the local pointer '" + name +
                    "' must be initialised where it is declared, so that cgp-ad knows which "
                    "buffer it points into");
  return withSideEffects([&] {
    ExprRef where = lowerAddress(init);
    Var *base = where->var;
    if (base->isScalar() || base->isReference)
      unsupported(init, "the local pointer '" + name + "' points at the scalar '" + base->name +
                            "'; local pointers may point only into arrays and pointer parameters");
    if (base->isArray() && base->dims.size() == 2)
      unsupported(init, "the local pointer '" + name + "' points into the two-dimensional array '" +
                            base->name + "'; index the array instead");
    Var off;
    off.name = name + "_at";
    off.elem = where->operands[0]->type.kind == ScalarType::Integer ? where->operands[0]->type
                                                                     : ScalarType::intType();
    off.origin = Var::Local;
    off.pos = position(vd->getLocation());
    Var *offset = module_.newVar(off);
    aliases_[vd] = Alias{base, {varRef(offset)}, offset, name};
    StmtRef d = decl(offset, convert(where->operands[0], offset->elem));
    d->pos = offset->pos;
    return d;
  });
}

ExprRef Lowering::bindIndices(ExprRef element, const std::string &name,
                              std::vector<StmtRef> &out) {
  if (element->kind != ExprKind::Index)
    return element;
  std::vector<ExprRef> at;
  for (size_t i = 0; i < element->operands.size(); ++i) {
    const ExprRef &idx = element->operands[i];
    if (idx->kind == ExprKind::IntLit) {
      at.push_back(idx);
      continue;
    }
    Var v;
    v.name = name + "_at" + (i ? std::to_string(i + 1) : "");
    v.elem = idx->type.kind == ScalarType::Integer ? idx->type : ScalarType::intType();
    v.origin = Var::Local;
    v.pos = element->var->pos;
    Var *bound = module_.newVar(v);
    out.push_back(decl(bound, convert(idx, bound->elem)));
    at.push_back(varRef(bound));
  }
  return index(element->var, at);
}

StmtRef Lowering::lowerReferenceDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  clang::QualType t = vd->getType();
  clang::QualType referred = t.getNonReferenceType();
  if (t->isRValueReferenceType())
    unsupported(vd->getLocation(), "local '" + name + "': rvalue references are not supported");
  if (referred->isArrayType())
    unsupported(vd->getLocation(),
                "local '" + name + "': references to arrays are not supported; index the array");
  auto elem = scalarTypeOf(referred, ctx_);
  if (!elem || elem->isVoid())
    unsupported(vd->getLocation(), "local '" + name + "': references to '" +
                                       referred.getAsString() + "' are not supported");
  const clang::Expr *init = vd->getInit();
  const clang::Expr *bound = init ? init->IgnoreParens() : nullptr;
  if (const auto *cleanups = llvm::dyn_cast_or_null<clang::ExprWithCleanups>(bound))
    bound = cleanups->getSubExpr()->IgnoreParens();
  if (!bound || llvm::isa<clang::MaterializeTemporaryExpr>(bound)) {
    // `const double& r = a * b;` binds a temporary: a constant local.
    Var v;
    v.name = name;
    v.elem = *elem;
    v.origin = Var::Local;
    v.isConst = referred.isConstQualified();
    v.pos = position(vd->getLocation());
    Var *var = module_.newVar(v);
    vars_[vd] = var;
    return withSideEffects([&] {
      StmtRef d = decl(var, init ? convert(lowerExpr(init), var->elem) : nullptr);
      d->pos = var->pos;
      return d;
    });
  }
  return withSideEffects([&] {
    ExprRef element = lowerPlace(bound);
    std::vector<StmtRef> binds;
    element = bindIndices(element, name, binds);
    Alias a;
    a.base = element->var;
    a.at = element->kind == ExprKind::Index ? element->operands : std::vector<ExprRef>{};
    a.name = name;
    aliases_[vd] = a;
    StmtRef out = block(binds);
    out->pos = position(vd->getLocation());
    return out;
  });
}

StmtRef Lowering::lowerPointerMove(const clang::Expr *e) {
  e = e->IgnoreParens();
  auto offsetOf = [&](const clang::Expr *p) -> const Alias & {
    const Alias *a = pointerAlias(p);
    if (!a)
      unsupported(p, "only local pointers declared in the kernel can be moved");
    return *a;
  };
  if (const auto *uo = llvm::dyn_cast<clang::UnaryOperator>(e);
      uo && uo->isIncrementDecrementOp() && uo->getSubExpr()->getType()->isPointerType()) {
    const Alias &a = offsetOf(uo->getSubExpr());
    return assign(varRef(a.offset), intLit(1, a.offset->elem),
                  uo->isIncrementOp() ? AssignOp::Add : AssignOp::Sub);
  }
  if (const auto *cao = llvm::dyn_cast<clang::CompoundAssignOperator>(e);
      cao && cao->getLHS()->getType()->isPointerType()) {
    const Alias &a = offsetOf(cao->getLHS());
    ExprRef by = convert(lowerExpr(cao->getRHS()), a.offset->elem);
    return assign(varRef(a.offset), by,
                  cao->getOpcode() == clang::BO_SubAssign ? AssignOp::Sub : AssignOp::Add);
  }
  if (const auto *bo = llvm::dyn_cast<clang::BinaryOperator>(e);
      bo && bo->getOpcode() == clang::BO_Assign && bo->getLHS()->getType()->isPointerType()) {
    const Alias &a = offsetOf(bo->getLHS());
    ExprRef where = lowerAddress(bo->getRHS());
    if (where->var != a.base)
      unsupported(e, "the local pointer '" + a.name + "' points into '" + a.base->name +
                         "' and is set here to point into '" + where->var->name +
                         "'; a local pointer must stay in the buffer it was initialised with");
    return assign(varRef(a.offset), convert(where->operands[0], a.offset->elem));
  }
  return nullptr;
}

ExprRef Lowering::lowerPointerCompare(const clang::BinaryOperator *e) {
  for (const clang::Expr *side : {e->getLHS(), e->getRHS()})
    if (side->isNullPointerConstant(ctx_, clang::Expr::NPC_ValueDependentIsNotNull))
      unsupported(e, "comparing a pointer with a null pointer is not supported");
  ExprRef a = lowerAddress(e->getLHS());
  ExprRef b = lowerAddress(e->getRHS());
  if (a->var != b->var)
    unsupported(e, "compares pointers into different buffers ('" + a->var->name + "' and '" +
                       b->var->name + "')");
  BinaryOp op;
  switch (e->getOpcode()) {
  case clang::BO_LT: op = BinaryOp::Lt; break;
  case clang::BO_LE: op = BinaryOp::Le; break;
  case clang::BO_GT: op = BinaryOp::Gt; break;
  case clang::BO_GE: op = BinaryOp::Ge; break;
  case clang::BO_EQ: op = BinaryOp::Eq; break;
  case clang::BO_NE: op = BinaryOp::Ne; break;
  case clang::BO_Sub: op = BinaryOp::Sub; break;
  default:
    unsupported(e, "this operation on pointers is not supported");
  }
  ScalarType t = scalarType(e->getType(), e->getBeginLoc());
  ExprRef out = binary(op, a->operands[0], b->operands[0]);
  if (out->type != t)
    out = op == BinaryOp::Sub ? cast(t, out, /*implicit=*/true) : out;
  return out;
}

ExprRef Lowering::referenceCopy(Var *x, const Function *f, const Var *param,
                                const clang::Expr *arg) {
  if (!sideEffects_)
    unsupported(arg, "passing '" + x->name + "' by reference to '" + f->name +
                         "' is not supported here; call it in a statement of its "
                         "own");
  for (Var *other : sideEffects_->copiedBack)
    if (other == x)
      unsupported(arg, "passes '" + x->name + "' to two reference parameters of '" + f->name +
                           "'; this aliasing is not supported");
  Var t;
  t.name = f->name + "_" + param->name;
  t.elem = param->elem;
  t.shape = Var::Array;
  t.dims = {1};
  t.origin = Var::Local;
  t.pos = position(arg->getBeginLoc());
  Var *copy = module_.newVar(t);
  sideEffects_->before.push_back(decl(copy));
  sideEffects_->before.push_back(assign(index(copy, {intLit(0)}), varRef(x)));
  sideEffects_->after.push_back(assign(varRef(x), index(copy, {intLit(0)})));
  sideEffects_->copiedBack.push_back(x);
  sideEffects_->copiedFor.push_back(f);
  sideEffects_->copiedAt = arg->getBeginLoc();
  return referenceArgument(address(copy, intLit(0)));
}

void Lowering::refuseReadsAroundCopies(const std::vector<ExprRef> &exprs,
                                       const SideEffects &effects) {
  // The copy goes back after the whole statement (or condition). C++ reads
  // the variable after the call where `&&`, `||` or `?:` order them, and in
  // either order elsewhere; only the call's own arguments read it before.
  auto visit = [&](const ExprRef &e, std::set<const Var *> exempt, auto &self) -> void {
    if (!e)
      return;
    for (size_t i = 0; i < effects.copiedBack.size(); ++i) {
      const Var *v = effects.copiedBack[i];
      if (e->kind == ExprKind::Call && e->callee == effects.copiedFor[i])
        exempt.insert(v);
      else if ((e->kind == ExprKind::VarRef || e->kind == ExprKind::Index) && e->var == v &&
               !exempt.count(v))
        unsupported(effects.copiedAt,
                    "reads '" + v->name + "' in the expression that passes it by reference to '" +
                        effects.copiedFor[i]->name + "', which changes it; make that call a "
                        "statement of its own");
    }
    for (const ExprRef &op : e->operands)
      self(op, exempt, self);
  };
  for (const ExprRef &e : exprs)
    visit(e, {}, visit);
}

std::vector<ExprRef> Lowering::lowerArgs(const clang::CallExpr *e, Function *f,
                                         std::vector<ExprRef> args, unsigned skip) {
  std::vector<const clang::Expr *> cxxArgs(e->arg_begin() + skip, e->arg_end());
  return lowerArgList(e->getDirectCallee(), cxxArgs, e->getBeginLoc(), f, std::move(args));
}

std::vector<ExprRef> Lowering::lowerArgList(const clang::FunctionDecl *callee,
                                            llvm::ArrayRef<const clang::Expr *> cxxArgs,
                                            clang::SourceLocation loc, Function *f,
                                            std::vector<ExprRef> args) {
  if (const clang::FunctionDecl *def = callee->getDefinition())
    callee = def;
  std::vector<std::pair<const clang::Expr *, const clang::ParmVarDecl *>> closures;
  for (unsigned i = 0; i < cxxArgs.size(); ++i) {
    const clang::Expr *arg = cxxArgs[i];
    const clang::ParmVarDecl *cxxParam = i < callee->getNumParams() ? callee->getParamDecl(i) : nullptr;
    if (cxxParam && closureParams_.count(cxxParam)) {
      closures.emplace_back(arg, cxxParam); // its captures come last
      continue;
    }
    if (cxxParam && lowerContainerArg(arg, cxxParam, args))
      continue; // a std::vector or std::array: its elements (and size)
    if (auto record = cxxParam ? records_.find(cxxParam) : records_.end(); record != records_.end()) {
      lowerRecordArgs(arg, f, record->second.vars(), args); // one argument per leaf member
      continue;
    }
    Var *param = f->params[args.size()];
    if (!param->isMemory()) {
      args.push_back(convert(lowerExpr(arg), param->elem));
      continue;
    }
    if (!param->isReference) {
      // `&x` for a scalar local: through a one-element array, copied back after.
      const auto *addr = llvm::dyn_cast<clang::UnaryOperator>(arg->IgnoreParenImpCasts());
      if (addr && addr->getOpcode() == clang::UO_AddrOf)
        if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(addr->getSubExpr()->IgnoreParens()))
          if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
              vd && !aliases_.count(vd) && !records_.count(vd)) {
            Var *x = varFor(vd, dr->getBeginLoc());
            if (x->isScalar() && x->origin != Var::Global && !x->isConst) {
              ExprRef copy = referenceCopy(x, f, param, arg);
              args.push_back(address(copy->var, intLit(0))); // a pointer, not a reference
              continue;
            }
          }
      args.push_back(lowerAddress(arg));
      continue;
    }
    ExprRef element = lowerLValue(arg);
    if (element->kind == ExprKind::Index) {
      args.push_back(referenceArgument(elementAddress(element)));
      continue;
    }
    // A scalar variable: through a one-element array, copied back after.
    args.push_back(referenceCopy(element->var, f, param, arg));
  }
  size_t own = args.size();
  // A parameter taken by value (a std::vector, a struct's member array) is
  // read-only here, so that a helper cannot change its caller's elements;
  // C++ lets the function change its own copy, cgp-ad does not.
  for (size_t j = 0; j < own && j < f->params.size(); ++j) {
    const ExprRef &arg = args[j];
    if (f->params[j]->isMemory() && !f->params[j]->isConst && arg->kind == ExprKind::Address &&
        arg->var->isConst && arg->var->origin == Var::Param)
      unsupported(loc, "passes '" + arg->var->name + "', a parameter taken by value, to '" +
                           callee->getNameAsString() + "', which may change it; cgp-ad keeps "
                           "parameters taken by value read-only: take it by reference, or "
                           "copy it into a local variable first");
  }
  for (auto [arg, cxxParam] : closures)
    captureArgs(pendingClosures_.at(cxxParam), closureParams_.at(cxxParam), arg, f, args);
  if (!closures.empty())
    checkCaptureAliasing(f, args, own, [&](size_t) { return closures[0].first; },
                         "'" + f->name + "', whose lambda argument captures it by reference, "
                         "and which");
  checkConstReferenceArgs(loc, f, args);
  return args;
}

void Lowering::checkConstReferenceArgs(clang::SourceLocation loc, const Function *f,
                                       const std::vector<ExprRef> &args) {
  // A const reference is passed by value: exact unless it refers to a
  // variable or element (not a temporary) that the callee could change
  // through another parameter.
  for (unsigned i = 0; i < args.size(); ++i) {
    if (!f->params[i]->isReference || f->params[i]->isMemory())
      continue;
    const ExprRef &r = args[i];
    if (r->kind != ExprKind::Index && r->kind != ExprKind::VarRef)
      continue; // an expression: bound to a temporary
    bool copiedToo = sideEffects_ && std::find(sideEffects_->copiedBack.begin(),
                                               sideEffects_->copiedBack.end(),
                                               r->var) != sideEffects_->copiedBack.end();
    for (unsigned j = 0; j < args.size(); ++j) {
      const Var *out = f->params[j];
      bool writable = out->isMemory() && !out->isConst && args[j]->kind == ExprKind::Address;
      if (writable && (args[j]->var == r->var || copiedToo))
        unsupported(loc, "passes '" + r->var->name + "' by const reference to '" +
                                          f->name + "', which may change it through its "
                                          "parameter '" + out->name + "'; pass a copy");
    }
  }
}

StmtRef Lowering::lowerRangeFor(const clang::CXXForRangeStmt *s) {
  const clang::VarDecl *loopVar = s->getLoopVariable();
  std::string name = loopVar->getNameAsString();
  Var *array = memoryVar(s->getRangeInit());
  std::vector<int64_t> dims = array ? array->dims : std::vector<int64_t>{};
  std::optional<ContainerType> container = containerTypeOf(s->getRangeInit()->getType(), ctx_);
  if (array && array->isPointer() &&
      llvm::isa<clang::MemberExpr>(s->getRangeInit()->IgnoreParenImpCasts()))
    dims = recordView(s->getRangeInit()).dims[0]; // a struct parameter's member array
  ExprRef extent = dims.size() == 1 ? intLit(dims[0]) : nullptr;
  if (array && container && (container->isVector || container->dims.size() == 1))
    extent = cast(ScalarType::intType(), containerSize(s->getRangeInit()));
  if (!array || !extent)
    unsupported(s->getRangeInit(), "range-based 'for' loops are supported over one-dimensional "
                                   "arrays, std::arrays and std::vectors only");
  Var *at = newLocal(name + "_at", ScalarType::intType(), position(loopVar->getLocation()));
  ExprRef element = index(array, {varRef(at)});

  std::vector<StmtRef> body;
  clang::QualType t = loopVar->getType();
  if (t->isReferenceType()) {
    if (!scalarTypeOf(t.getNonReferenceType(), ctx_))
      unsupported(loopVar->getLocation(), "the loop variable '" + name + "' has a type that is "
                                                                        "not supported");
    aliases_[loopVar] = Alias{array, {varRef(at)}, nullptr, name};
  } else {
    Var v;
    std::string problem = describeVarType(t, ctx_, v);
    if (!problem.empty() || !v.isScalar())
      unsupported(loopVar->getLocation(), "the loop variable '" + name + "': " +
                                              (problem.empty() ? "must be a scalar" : problem));
    v.name = name;
    v.origin = Var::Local;
    v.pos = position(loopVar->getLocation());
    Var *var = module_.newVar(v);
    vars_[loopVar] = var;
    StmtRef d = decl(var, convert(element, var->elem));
    d->pos = var->pos;
    body.push_back(d);
  }
  appendFlat(body, lowerStmt(s->getBody()));
  StmtRef loop = forStmt(decl(at, intLit(0)), binary(BinaryOp::Lt, varRef(at), extent),
                         assign(varRef(at), intLit(1), AssignOp::Add), block(body));
  return loop;
}

} // namespace cgp
