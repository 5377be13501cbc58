//===- LowerStructValues.cpp - functions, operators, constructors of structs ===//
//
// The IR's functions return one scalar at most, so a function that returns
// a struct is lowered as a void helper with one out parameter per leaf of its
// result, last, like the members of an `S&` parameter:
//
//   Vec3 operator-(const Vec3& a, const Vec3& b)     void Vec3_operator_minus(
//   { return {a.x - b.x, ...}; }                       const double &a_x, ..., double &ret_x, ...)
//                                                     { ret_x = a_x - b_x; ...; return; }
//
// A call whose value is a struct fills a fresh struct local, a temporary
// (named after the variable it initialises, `d`, else after the function,
// else `tmp`), whose scalar leaves are one-element arrays so that the call
// can write them through its references (`d_x[0]`); in a kernel, scalar
// replacement turns them back into scalars where it inlines the helper.
// A temporary in the middle of an expression (`(a - b).norm()`, `a + b * s`)
// is made by statements placed before the statement that uses it, in the
// order C++ evaluates them; where that statement cannot be placed exactly
// (a condition, the right of `&&`, an arm of `?:`) it is refused.
//
// Overloaded operators are helpers like methods and free functions, named
// in words (`Vec3_operator_minus`, `Vec3_operator_index`); a method
// returning `*this` by reference (`operator+=`) is a void helper whose value
// may only be ignored. A constructor the user wrote is a void helper too,
// whose first parameters are the members of the object it builds, by
// reference: its member initialisers (default member values included), then
// its body, fill them.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace cgp {
namespace {

/// The object a call of a method is made on (`a` in `a.f()` and `a * s`),
/// or null for a free function.
const clang::Expr *objectOf(const clang::Expr *e) {
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(e))
    return mc->getImplicitObjectArgument();
  if (const auto *oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e))
    if (const auto *md = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(oc->getDirectCallee());
        md && !md->isStatic())
      return oc->getArg(0);
  return nullptr;
}

bool isThis(const clang::Expr *e) {
  const auto *deref = llvm::dyn_cast<clang::UnaryOperator>(e->IgnoreParenImpCasts());
  return deref && deref->getOpcode() == clang::UO_Deref &&
         llvm::isa<clang::CXXThisExpr>(deref->getSubExpr()->IgnoreParenImpCasts());
}

} // namespace

std::string Lowering::calleeName(const clang::CallExpr *c) {
  const clang::FunctionDecl *fd = c->getDirectCallee();
  return fd ? fd->getNameAsString() : "the function";
}

ExprRef Lowering::plusConstant(ExprRef e, int64_t k) {
  if (k == 0)
    return e;
  if (e->kind == ExprKind::IntLit)
    return intLit(e->intValue + k, e->type);
  if (e->kind == ExprKind::Binary && e->binaryOp == BinaryOp::Add &&
      e->operands[1]->kind == ExprKind::IntLit)
    return binary(BinaryOp::Add, e->operands[0], intLit(e->operands[1]->intValue + k));
  return binary(BinaryOp::Add, e, intLit(k));
}

const clang::Expr *Lowering::structRValue(const clang::Expr *e) {
  while (true) {
    e = e->IgnoreParens();
    if (const auto *c = llvm::dyn_cast<clang::ExprWithCleanups>(e))
      e = c->getSubExpr();
    else if (const auto *m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e))
      e = m->getSubExpr();
    else if (const auto *b = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e))
      e = b->getSubExpr();
    else if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
             ice && ice->getCastKind() == clang::CK_NoOp)
      e = ice->getSubExpr();
    else if (const auto *fc = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(e))
      e = fc->getSubExpr(); // Vec3{...}, Vec3(v)
    else if (const auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(e);
             ce && ce->getNumArgs() == 1 && ce->getConstructor()->isCopyOrMoveConstructor() &&
             !ce->getConstructor()->isUserProvided() &&
             structRValue(ce->getArg(0)))
      e = ce->getArg(0); // the copy of a temporary (elided)
    else
      break;
  }
  if (!e->isPRValue() || !e->getType()->isRecordType())
    return nullptr;
  if (llvm::isa<clang::CallExpr>(e) || llvm::isa<clang::InitListExpr>(e))
    return e;
  if (const auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(e);
      ce && !(ce->getNumArgs() == 1 && ce->getConstructor()->isCopyOrMoveConstructor()))
    return e;
  return nullptr;
}

bool Lowering::filledByCall(const clang::Expr *value) {
  if (isComplexOperation(value) || isEigenOperation(value))
    return false; // set part by part (LowerComplex.cpp, LowerEigen.cpp)
  if (llvm::isa<clang::CallExpr>(value))
    return true;
  if (const auto *ce = llvm::dyn_cast<clang::CXXConstructExpr>(value))
    return ce->getConstructor()->isUserProvided();
  return false;
}

Lowering::RecordView Lowering::valueView(const clang::Expr *e) {
  const clang::Expr *source = e->IgnoreImplicit();
  if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(source))
    source = cleanups->getSubExpr()->IgnoreImplicit();
  if (const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(source);
      construct && construct->getNumArgs() == 1 &&
      construct->getConstructor()->isCopyOrMoveConstructor())
    source = construct->getArg(0); // the copy made for `S s`
  if (structRValue(source))
    return structValue(source);
  if (foreignRoot(source) && sideEffects_ && !lazy_) {
    // A struct read from a constant kept whole (`obs[i]` of a vector that is
    // not differentiated): a copy of it, made before the statement.
    std::vector<ExprRef> operands;
    std::string pattern = foreignPattern(source, operands);
    std::vector<StmtRef> stmts;
    clang::QualType type = source->getType().getNonReferenceType().getUnqualifiedType();
    RecordView view = viewOf(newTemporary(type, "held", source->getBeginLoc(), false, stmts));
    copyForeignRecord(view, type, pattern, operands, stmts);
    appendAll(sideEffects_->before, stmts);
    return view;
  }
  return recordView(source);
}

Lowering::RecordLocal Lowering::newTemporary(clang::QualType t, const std::string &name,
                                             clang::SourceLocation loc, bool boxed,
                                             std::vector<StmtRef> &out) {
  RecordLocal record;
  std::string problem = flattenRecord(t, ctx_, record.leaves);
  if (!problem.empty()) {
    // The type leads the message, unless the message names it already or
    // it is the standard library's (named in the user's words there).
    std::string type = "'" + t.getUnqualifiedType().getAsString() + "'";
    bool library = isStandardLibraryRecord(t->getAsCXXRecordDecl());
    unsupported(loc, problem.compare(0, type.size(), type) == 0 || library ? problem
                                                                           : type + ": " + problem);
  }
  for (const RecordLeaf &leaf : record.leaves) {
    Var v;
    v.name = leafVarName(name, leaf);
    v.elem = leaf.elem;
    v.origin = Var::Local;
    v.pos = position(loc);
    v.dims = leaf.dims;
    v.shape = leaf.dims.empty() ? Var::Scalar : Var::Array;
    bool box = boxed && leaf.dims.empty();
    if (box) {
      v.shape = Var::Array;
      v.dims = {1};
      v.isBox = true;
    }
    Var *var = module_.newVar(v);
    record.places.push_back({var, box ? intLit(0) : nullptr});
    out.push_back(decl(var));
  }
  return record;
}

Lowering::RecordView Lowering::structValue(const clang::Expr *e) {
  const clang::Expr *value = structRValue(e);
  if (!value)
    return recordView(e);
  if (!sideEffects_)
    unsupported(e, "a struct made by a call, a constructor or braces is not supported here; "
                   "make it a local first");
  if (lazy_)
    unsupported(e, "a struct made by a call, a constructor or braces on a side of '&&', '||' "
                   "or '?:' that may not run is not supported; make it a local first");
  std::string name = "tmp";
  if (const auto *c = llvm::dyn_cast<clang::CallExpr>(value))
    if (const clang::FunctionDecl *fd = c->getDirectCallee();
        fd && fd->getDeclName().isIdentifier() && !llvm::isa<clang::CXXOperatorCallExpr>(c))
      name = fd->getName().str();
  std::vector<StmtRef> stmts;
  bool byCall = filledByCall(value);
  RecordLocal temp = newTemporary(value->getType(), name, value->getBeginLoc(), byCall, stmts);
  RecordView view = viewOf(temp);
  if (byCall)
    fillByCall(view, value, stmts);
  else
    initRecord(view, value, /*declared=*/true, stmts);
  appendAll(sideEffects_->before, stmts);
  return view;
}

void Lowering::fillByCall(const RecordView &to, const clang::Expr *value,
                          std::vector<StmtRef> &out) {
  // The call is a statement of its own: what its arguments need runs
  // around it (their temporaries before, their postfix increments after).
  SideEffects effects;
  SideEffects *outer = sideEffects_;
  sideEffects_ = &effects;
  ExprRef c = lowerUserCall(value, ScalarType::voidType(), &to);
  sideEffects_ = outer;
  StmtRef s = eval(c);
  s->pos = position(value->getBeginLoc());
  appendAll(out, effects.before);
  out.push_back(s);
  appendAll(out, effects.after);
}

StmtRef Lowering::lowerFilledDecl(const clang::VarDecl *vd, const clang::Expr *value) {
  std::vector<StmtRef> decls;
  RecordLocal record =
      newTemporary(vd->getType(), vd->getNameAsString(), vd->getLocation(), true, decls);
  records_[vd] = record;
  StmtRef body = withSideEffects([&] {
    std::vector<StmtRef> stmts;
    fillByCall(viewOf(record), value, stmts);
    return block(stmts);
  });
  appendFlat(decls, body);
  StmtRef b = block(decls);
  b->pos = position(vd->getLocation());
  return b;
}

ExprRef Lowering::lowerUserCall(const clang::Expr *e, ScalarType type, const RecordView *result) {
  const clang::FunctionDecl *callee = nullptr;
  const auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
  const auto *callExpr = llvm::dyn_cast<clang::CallExpr>(e);
  if (construct)
    callee = construct->getConstructor();
  else if (callExpr)
    callee = callExpr->getDirectCallee();
  if (!callee)
    unsupported(e, "indirect calls are not supported");
  if (const auto *md = llvm::dyn_cast<clang::CXXMethodDecl>(callee); md && md->isVirtual())
    unsupported(e, "virtual calls are not supported");
  const clang::FunctionDecl *def = callee->getDefinition();
  if (!def || !def->hasBody() || ctx_.getSourceManager().isInSystemHeader(def->getLocation()))
    unsupported(e, "calls of '" + callee->getNameAsString() + "' are supported only where "
                   "cgp-ad sees its body in your code");
  if (pullbacks_.count(callee->getCanonicalDecl()) && result)
    unsupported(e, "custom pullbacks of functions that return a struct are not supported");
  Function *f = lowerFunction(def);
  std::vector<ExprRef> args;
  if (construct) {
    // The object being built comes first, by reference.
    viewArgs(*result, e, f, thisRecords_.at(def).vars(), args);
    std::vector<const clang::Expr *> cxxArgs(construct->arg_begin(), construct->arg_end());
    args = lowerArgList(def, cxxArgs, e->getBeginLoc(), f, args);
    return call(f, type, args);
  }
  unsigned skip = 0;
  if (const clang::Expr *object = objectOf(e)) {
    lowerRecordArgs(object, f, thisRecords_.at(def).vars(), args);
    skip = llvm::isa<clang::CXXOperatorCallExpr>(e) ? 1 : 0;
  }
  args = lowerArgs(callExpr, f, args, skip);
  if (result)
    viewArgs(*result, e, f, resultRecords_.at(def).vars(), args);
  return call(f, type, args);
}

ExprRef Lowering::lowerOperatorCall(const clang::CXXOperatorCallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (ExprRef compared = lowerComplexScalar(e))
    return compared;
  if (ExprRef coefficient = lowerEigenScalar(e))
    return coefficient;
  if (ExprRef element = lowerAccessorCall(e))
    return element;
  if (!callee || !callee->getDefinition() ||
      ctx_.getSourceManager().isInSystemHeader(callee->getLocation()))
    unsupported(e, "calls of overloaded operators are supported only for operators of your own "
                   "structs whose body cgp-ad sees");
  return lowerUserCall(e, scalarType(e->getType(), e->getBeginLoc()), nullptr);
}

StmtRef Lowering::lowerStructCallStmt(const clang::CallExpr *e) {
  if (StmtRef s = lowerComplexStmt(e))
    return s;
  if (const clang::FunctionDecl *fd = e->getDirectCallee();
      fd && fd->getReturnType()->isReferenceType()) {
    StmtRef s = eval(lowerUserCall(e, ScalarType::voidType(), nullptr)); // acc += f;
    s->pos = position(e->getBeginLoc());
    return s;
  }
  structValue(e); // a struct computed and dropped
  return block();
}

StmtRef Lowering::lowerStructReturn(const clang::ReturnStmt *s) {
  const clang::FunctionDecl *fd = callStack_.back();
  const clang::Expr *value = s->getRetValue();
  if (returnThis_.count(fd)) {
    if (!value || !isThis(value))
      unsupported(s, "functions that return a reference to a struct are supported only when they "
                     "return '*this'");
    return returnStmt();
  }
  RecordView result = viewOf(resultRecords_.at(fd));
  StmtRef fill = withSideEffects([&] {
    std::vector<StmtRef> stmts;
    initRecord(result, value, /*declared=*/true, stmts);
    return block(stmts);
  });
  StmtRef out = block({fill, returnStmt()});
  out->pos = position(s->getBeginLoc());
  return out;
}

void Lowering::lowerMemberInits(const clang::CXXConstructorDecl *ctor, const RecordView &self,
                                std::vector<StmtRef> &out) {
  for (const clang::CXXCtorInitializer *init : ctor->inits()) {
    const clang::FieldDecl *field = init->getMember();
    if (!init->isMemberInitializer() || !field)
      unsupported(init->getSourceLocation(), "constructors that delegate, or initialise base "
                                             "classes or anonymous members, are not supported");
    RecordView member = subView(self, {field});
    const clang::Expr *value = init->getInit()->IgnoreImplicit();
    if (const auto *dflt = llvm::dyn_cast<clang::CXXDefaultInitExpr>(value))
      value = dflt->getExpr()->IgnoreImplicit();
    if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(value))
      value = cleanups->getSubExpr()->IgnoreImplicit();
    StmtRef s = withSideEffects([&] {
      std::vector<StmtRef> stmts;
      if (std::optional<ContainerType> c = containerTypeOf(field->getType(), ctx_);
          c && c->isVector) {
        initVector(member.places[0].var, value, stmts); // d(n, 0.0)
      } else if (field->getType()->isRecordType()) {
        initRecord(member, value, /*declared=*/true, stmts);
      } else if (!member.dims[0].empty()) {
        if (llvm::isa<clang::InitListExpr>(value) || llvm::isa<clang::ImplicitValueInitExpr>(value))
          initElements(member.places[0], member.dims[0], value, stmts);
        else
          unsupported(value, "the member array '" + field->getNameAsString() +
                                 "' must be initialised with a braced list");
      } else {
        Var *v = member.places[0].var;
        ExprRef x = llvm::isa<clang::ImplicitValueInitExpr>(value)
                        ? (v->isFloating() ? floatLit(0.0, v->elem) : intLit(0, v->elem))
                        : convert(lowerExpr(value), v->elem);
        stmts.push_back(assign(leafRef(member.places[0]), x));
      }
      return block(stmts);
    });
    s->pos = position(init->getSourceLocation());
    appendFlat(out, s);
  }
}

void Lowering::initElements(const LeafPlace &place, const std::vector<int64_t> &dims,
                            const clang::Expr *list, std::vector<StmtRef> &out) {
  Var *v = place.var;
  if (dims.size() != 1)
    unsupported(list, "setting the two-dimensional member array '" + v->name +
                          "' here is not supported; assign its elements");
  if (!place.offset && v->isPointer() && v->isConst)
    unsupported(list, "setting the member array '" + v->name + "' of a struct parameter from "
                      "a braced list is not supported; assign its elements");
  const auto *l = list ? llvm::dyn_cast<clang::InitListExpr>(list->IgnoreImplicit()) : nullptr;
  for (int64_t k = 0; k < dims[0]; ++k) {
    const clang::Expr *item = l && k < l->getNumInits() ? l->getInit(k) : nullptr;
    if (item && llvm::isa<clang::ImplicitValueInitExpr>(item->IgnoreImplicit()))
      item = nullptr;
    ExprRef x = item ? convert(lowerExpr(item), v->elem)
                     : (v->isFloating() ? floatLit(0.0, v->elem) : intLit(0, v->elem));
    out.push_back(assign(leafElement(place, k), x));
  }
}

} // namespace cgp
