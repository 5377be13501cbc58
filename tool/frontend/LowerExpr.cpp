//===- LowerExpr.cpp - expressions to the IR ------------------------------===//
//
// Expressions keep every conversion Clang made explicit in the AST as IR
// casts (marked implicit when the user did not write them), so that the
// generated forward sweep computes bit for bit what the user's code does.
// Math functions (ir/MathTable.h) become IR math nodes;
// std::min and std::max become selects (the way libstdc++ defines them);
// calls of functions with visible bodies become calls of lowered helpers.
// Pointers exist only as call arguments (`p`, `p + k`, `&a[i]`, `a[i]` of a
// 2-D array): anything else a pointer could do is refused.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"
#include "ir/MathTable.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

#include <map>

namespace cgp {

const clang::Expr *withoutTemporaries(const clang::Expr *e) {
  while (true) {
    e = e->IgnoreParens();
    if (const auto *m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e))
      e = m->getSubExpr();
    else if (const auto *b = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e))
      e = b->getSubExpr();
    else if (const auto *w = llvm::dyn_cast<clang::ExprWithCleanups>(e))
      e = w->getSubExpr();
    else if (const auto *c = llvm::dyn_cast<clang::CXXConstructExpr>(e);
             c && c->getNumArgs() == 1 && c->getConstructor()->isCopyOrMoveConstructor())
      e = c->getArg(0);
    else
      return e;
  }
}

const clang::Expr *withoutValueCarriers(const clang::Expr *e) {
  while (true) {
    e = withoutTemporaries(e);
    if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
        ice && (ice->getCastKind() == clang::CK_NoOp ||
                ice->getCastKind() == clang::CK_LValueToRValue ||
                ice->getCastKind() == clang::CK_DerivedToBase ||
                ice->getCastKind() == clang::CK_UncheckedDerivedToBase ||
                ice->getCastKind() == clang::CK_ConstructorConversion))
      e = ice->getSubExpr();
    else if (const auto *fc = llvm::dyn_cast<clang::CXXFunctionalCastExpr>(e);
             fc && fc->getCastKind() == clang::CK_ConstructorConversion)
      e = fc->getSubExpr();
    else
      return e;
  }
}

const clang::FunctionDecl *calleeOf(const clang::Expr *e) {
  if (const auto *c = llvm::dyn_cast<clang::CallExpr>(e))
    return c->getDirectCallee();
  if (const auto *c = llvm::dyn_cast<clang::CXXConstructExpr>(e))
    return c->getConstructor();
  return nullptr;
}

namespace {

bool inStdOrGlobal(const clang::FunctionDecl *fd) {
  const clang::DeclContext *dc = fd->getDeclContext()->getRedeclContext();
  if (dc->isTranslationUnit())
    return true;
  if (const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(dc))
    return ns->getName() == "std" || ns->getName() == "__gnu_cxx" ||
           ns->getName() == "__1";
  return dc->isExternCContext();
}

/// True for a function of a library: one without a definition here, or
/// defined in a system header. A function of the user's with a math
/// function's name is a helper like any other.
bool isLibraryFunction(const clang::FunctionDecl *fd, const clang::SourceManager &sources) {
  const clang::FunctionDecl *def = fd->getDefinition();
  return !def || sources.isInSystemHeader(def->getLocation());
}

/// True for a function whose parameters are all integers or bools by value.
bool integerFunction(const clang::FunctionDecl *fd) {
  for (const clang::ParmVarDecl *p : fd->parameters()) {
    clang::QualType t = p->getType();
    if (t->isReferenceType() || !(t->isIntegralOrEnumerationType()))
      return false;
  }
  return !fd->isVariadic();
}

} // namespace

ExprRef Lowering::convert(ExprRef e, const ScalarType &to) {
  if (e->type == to)
    return e;
  return cast(to, std::move(e), /*implicit=*/true);
}

Var *Lowering::varFor(const clang::VarDecl *vd, clang::SourceLocation use) {
  auto it = vars_.find(vd);
  if (it != vars_.end())
    return it->second;
  if (vd->hasGlobalStorage() && !vd->isStaticLocal()) {
    clang::QualType t = vd->getType();
    bool isConst = t.isConstQualified() || vd->isConstexpr() ||
                   (t->isArrayType() && ctx_.getAsArrayType(t)->getElementType().isConstQualified());
    if (!isConst)
      unsupported(use, "reads the global variable '" + vd->getNameAsString() +
                           "', which is not const; only constant globals are supported");
    Var v;
    std::string problem = describeVarType(t, ctx_, v);
    if (!problem.empty())
      unsupported(use, "global '" + vd->getNameAsString() + "': " + problem);
    if (v.isPointer())
      unsupported(use, "global pointers such as '" + vd->getNameAsString() + "' are not supported");
    v.name = vd->getNameAsString();
    v.qualifiedName = globalName(vd);
    v.origin = Var::Global;
    v.isConst = true;
    v.pos = position(vd->getLocation());
    // An integer constant's value lets loops over it have known trip counts.
    if (v.isScalar() && v.elem.kind == ScalarType::Integer && vd->getInit())
      if (const clang::APValue *value = vd->evaluateValue(); value && value->isInt()) {
        v.hasKnownValue = true;
        v.knownValue = value->getInt().getExtValue();
      }
    Var *var = module_.newVar(v);
    vars_[vd] = var;
    return var;
  }
  unsupported(use, "uses '" + vd->getNameAsString() + "', which cgp-ad cannot see here");
}

Lowering::NestingLevel::NestingLevel(Lowering &l, const clang::Stmt *s) : lowering(l) {
  if (++l.nesting_ > kMaxNesting) {
    --l.nesting_; // no destructor runs for an object whose constructor throws
    l.unsupported(s, "expressions and statements nested more than " +
                         std::to_string(kMaxNesting) +
                         " levels deep are not supported; split them into several statements");
  }
}

ExprRef Lowering::lowerExpr(const clang::Expr *e) {
  NestingLevel level(*this, e);
  e = e->IgnoreParens();
  if (foreignRoot(e)) {
    // A conversion of a number read from a constant of a foreign type.
    if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
        ice && ice->getCastKind() != clang::CK_LValueToRValue && ice->getCastKind() != clang::CK_NoOp)
      return convert(lowerForeign(ice->getSubExpr()), scalarType(e->getType(), e->getBeginLoc()));
    return lowerForeign(e);
  }
  switch (e->getStmtClass()) {
  case clang::Stmt::IntegerLiteralClass:
    return intLit(llvm::cast<clang::IntegerLiteral>(e)->getValue().getSExtValue(),
                  scalarType(e->getType(), e->getBeginLoc()));
  case clang::Stmt::CharacterLiteralClass:
    return intLit(llvm::cast<clang::CharacterLiteral>(e)->getValue(),
                  scalarType(e->getType(), e->getBeginLoc()));
  case clang::Stmt::CXXBoolLiteralExprClass:
    return boolLit(llvm::cast<clang::CXXBoolLiteralExpr>(e)->getValue());
  case clang::Stmt::FloatingLiteralClass: {
    const auto *fl = llvm::cast<clang::FloatingLiteral>(e);
    ScalarType t = scalarType(e->getType(), e->getBeginLoc());
    std::string spelling;
    if (!e->getBeginLoc().isMacroID()) {
      spelling = clang::Lexer::getSourceText(
                     clang::CharSourceRange::getTokenRange(e->getSourceRange()),
                     ctx_.getSourceManager(), ctx_.getLangOpts())
                     .str();
      if (spelling.find('\'') != std::string::npos || spelling.empty() ||
          !(std::isdigit(static_cast<unsigned char>(spelling[0])) || spelling[0] == '.'))
        spelling.clear();
    }
    return floatLit(fl->getValueAsApproximateDouble(), t, spelling);
  }
  case clang::Stmt::ImplicitCastExprClass:
  case clang::Stmt::CStyleCastExprClass:
  case clang::Stmt::CXXStaticCastExprClass:
  case clang::Stmt::CXXFunctionalCastExprClass:
    return lowerCast(llvm::cast<clang::CastExpr>(e));
  case clang::Stmt::DeclRefExprClass:
    return lowerDeclRef(llvm::cast<clang::DeclRefExpr>(e));
  case clang::Stmt::ArraySubscriptExprClass:
    return lowerSubscript(llvm::cast<clang::ArraySubscriptExpr>(e));
  case clang::Stmt::UnaryOperatorClass:
    return lowerUnary(llvm::cast<clang::UnaryOperator>(e));
  case clang::Stmt::BinaryOperatorClass:
    return lowerBinary(llvm::cast<clang::BinaryOperator>(e));
  case clang::Stmt::CompoundAssignOperatorClass:
    unsupported(e, "assignments inside expressions are not supported; write them as statements");
  case clang::Stmt::ConditionalOperatorClass: {
    const auto *co = llvm::cast<clang::ConditionalOperator>(e);
    ExprRef c = lowerExpr(co->getCond());
    ++lazy_; // only one arm runs
    ExprRef a = lowerExpr(co->getTrueExpr());
    ExprRef b = lowerExpr(co->getFalseExpr());
    --lazy_;
    ScalarType t = scalarType(e->getType(), e->getBeginLoc());
    return select(c, convert(a, t), convert(b, t));
  }
  case clang::Stmt::CallExprClass:
    return lowerCall(llvm::cast<clang::CallExpr>(e));
  case clang::Stmt::MaterializeTemporaryExprClass:
    return lowerExpr(llvm::cast<clang::MaterializeTemporaryExpr>(e)->getSubExpr());
  case clang::Stmt::ExprWithCleanupsClass:
    return lowerExpr(llvm::cast<clang::ExprWithCleanups>(e)->getSubExpr());
  case clang::Stmt::SubstNonTypeTemplateParmExprClass: // N in an instantiation
    return lowerExpr(llvm::cast<clang::SubstNonTypeTemplateParmExpr>(e)->getReplacement());
  case clang::Stmt::ConstantExprClass:
    return lowerExpr(llvm::cast<clang::ConstantExpr>(e)->getSubExpr());
  case clang::Stmt::CXXDefaultArgExprClass:
    return lowerExpr(llvm::cast<clang::CXXDefaultArgExpr>(e)->getExpr());
  case clang::Stmt::UnaryExprOrTypeTraitExprClass: {
    clang::Expr::EvalResult result;
    if (e->EvaluateAsInt(result, ctx_))
      return intLit(result.Val.getInt().getExtValue(), scalarType(e->getType(), e->getBeginLoc()));
    unsupported(e, "this 'sizeof' or 'alignof' is not supported");
  }
  case clang::Stmt::LambdaExprClass:
    unsupported(e, "a lambda can only initialise a local variable ('auto f = [&](double x) "
                   "{ ... };') or be called where it is written");
  case clang::Stmt::CXXMemberCallExprClass:
    return lowerMemberCall(llvm::cast<clang::CXXMemberCallExpr>(e));
  case clang::Stmt::CXXOperatorCallExprClass: {
    const auto *op = llvm::cast<clang::CXXOperatorCallExpr>(e);
    const auto *closure = op->getArg(0)->getType()->getAsCXXRecordDecl();
    if (op->getOperator() == clang::OO_Call && closure && closure->isLambda())
      return lowerLambdaCall(op);
    if (op->getOperator() == clang::OO_Star && op->getNumArgs() == 1)
      if (ExprRef element = lowerExtremeElement(op->getArg(0)))
        return element;
    if (ExprRef r = lowerIteratorOperation(op))
      return r;
    if (ExprRef element = lowerContainerSubscript(op))
      return element;
    return lowerOperatorCall(op);
  }
  case clang::Stmt::PseudoObjectExprClass:
    return lowerCudaBuiltin(llvm::cast<clang::PseudoObjectExpr>(e));
  case clang::Stmt::MemberExprClass: {
    RecordView leaf = memberLeaf(e);
    if (!leaf.dims[0].empty() || leaf.places[0].isVector())
      unsupported(e, "'" + leaf.places[0].var->name + "' is an array or vector member; it can "
                                                      "only be indexed or passed to a function");
    return leafRef(leaf.places[0]);
  }
  default:
    break;
  }
  unsupported(e, std::string("expressions of kind '") + e->getStmtClassName() +
                     "' are not supported");
}

ExprRef Lowering::lowerCast(const clang::CastExpr *e) {
  // `(double)i` is an explicit cast around an implicit conversion; the
  // conversion is the user's, and generated code must write it.
  const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(e);
  bool implicit = ice && !ice->isPartOfExplicitCast();
  switch (e->getCastKind()) {
  case clang::CK_LValueToRValue:
  case clang::CK_NoOp:
  case clang::CK_ToVoid:
    return lowerExpr(e->getSubExpr());
  case clang::CK_IntegralCast:
  case clang::CK_IntegralToFloating:
  case clang::CK_FloatingToIntegral:
  case clang::CK_FloatingCast:
  case clang::CK_IntegralToBoolean:
  case clang::CK_FloatingToBoolean:
  case clang::CK_BooleanToSignedIntegral: {
    ExprRef sub = lowerExpr(e->getSubExpr());
    ScalarType to = scalarType(e->getType(), e->getBeginLoc());
    if (sub->type == to)
      return sub;
    return cast(to, sub, implicit);
  }
  case clang::CK_UserDefinedConversion:
    if (ExprRef number = lowerEigenScalar(e->getSubExpr()))
      return number; // a 1x1 Eigen product read as a number
    break;
  case clang::CK_ArrayToPointerDecay:
    unsupported(e, "arrays can only be indexed or passed to a function");
  case clang::CK_PointerToBoolean:
  case clang::CK_PointerToIntegral:
  case clang::CK_BitCast:
  case clang::CK_IntegralToPointer:
    unsupported(e, "conversions of pointers are not supported");
  default:
    break;
  }
  unsupported(e, std::string("the conversion '") + e->getCastKindName() + "' is not supported");
}

ExprRef Lowering::lowerDeclRef(const clang::DeclRefExpr *e) {
  const clang::ValueDecl *d = e->getDecl();
  if (const auto *ec = llvm::dyn_cast<clang::EnumConstantDecl>(d))
    return intLit(ec->getInitVal().getExtValue(), scalarType(e->getType(), e->getBeginLoc()));
  const auto *vd = llvm::dyn_cast<clang::VarDecl>(d);
  if (!vd)
    unsupported(e, "uses '" + d->getNameAsString() + "', which is not a variable");
  if (ExprRef bound = inlinedParam(vd))
    return bound;
  if (ExprRef constant = outerConstant(e))
    return constant;
  if (auto alias = aliases_.find(vd); alias != aliases_.end()) {
    if (alias->second.offset)
      unsupported(e, "the local pointer '" + vd->getNameAsString() +
                         "' can only be dereferenced, indexed, moved, compared or passed to a "
                         "function");
    return aliasElement(alias->second);
  }
  Var *v = varFor(vd, e->getBeginLoc());
  if (v->isReference && v->isPointer())
    return index(v, {intLit(0)}); // a non-const reference parameter
  if (!v->isScalar())
    unsupported(e, "'" + v->name + "' is an array or pointer; it can only be indexed or "
                                   "passed to a function");
  return varRef(v);
}

Var *Lowering::memoryVar(const clang::Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (llvm::isa<clang::MemberExpr>(e)) {
    RecordView leaf = memberLeaf(e);
    Var *v = leaf.places[0].var;
    return !leaf.places[0].offset && v->isMemory() && !v->isReference ? v : nullptr;
  }
  if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(e))
    if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl())) {
      Var *v = varFor(vd, e->getBeginLoc());
      if (v->isMemory())
        return v;
    }
  return nullptr;
}

ExprRef Lowering::lowerSubscript(const clang::ArraySubscriptExpr *e) {
  ExprRef idx = lowerExpr(e->getIdx());
  const clang::Expr *base = e->getBase()->IgnoreParens();
  if (const Alias *p = pointerAlias(base))
    return index(p->base, {binary(BinaryOp::Add, varRef(p->offset), idx)});
  if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(base->IgnoreParenImpCasts())) {
    // A member array inside a buffer: ps[i].hist[k] is ps[i * 7 + 4 + k].
    RecordView leaf = memberLeaf(member);
    if (leaf.places[0].offset) {
      if (leaf.dims[0].size() != 1)
        unsupported(e, "two-dimensional member arrays of an array of structs are not supported");
      const ExprRef &at = leaf.places[0].offset;
      return index(leaf.places[0].var, {idx->kind == ExprKind::IntLit
                                            ? plusConstant(at, idx->intValue)
                                            : binary(BinaryOp::Add, at, idx)});
    }
  }
  if (Var *v = memoryVar(base)) {
    if (v->isArray() && v->dims.size() == 2)
      unsupported(e, "'" + v->name + "' has two dimensions; index it as " + v->name + "[i][j]");
    return index(v, {idx});
  }
  // a[i][j]: the base is the decayed row a[i].
  if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(base);
      ice && ice->getCastKind() == clang::CK_ArrayToPointerDecay) {
    if (const auto *row = llvm::dyn_cast<clang::ArraySubscriptExpr>(ice->getSubExpr()->IgnoreParens()))
      if (Var *v = memoryVar(row->getBase()); v && v->isArray() && v->dims.size() == 2)
        return index(v, {lowerExpr(row->getIdx()), idx});
  }
  if (ExprRef element = containerDataElement(base, idx)) // v.data()[i]
    return element;
  unsupported(e, "only arrays and pointer parameters can be indexed; pointer arithmetic in "
                 "an index base is not supported");
}

ExprRef Lowering::lowerLValue(const clang::Expr *e) {
  ExprRef lv = lowerPlace(e);
  if (isReadOnly(lv->var))
    unsupported(e, readOnlyWrite(lv->var));
  return lv;
}

ExprRef Lowering::lowerPlace(const clang::Expr *e) {
  const clang::Expr *inner = e->IgnoreParens();
  while (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(inner)) {
    if (ice->getCastKind() != clang::CK_NoOp)
      break;
    inner = ice->getSubExpr()->IgnoreParens();
  }
  ExprRef lv;
  if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(inner)) {
    lv = lowerDeclRef(dr);
  } else if (const auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(inner)) {
    lv = lowerSubscript(as);
  } else if (const auto *oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(inner);
             oc && (lv = lowerContainerSubscript(oc))) {
  } else if (const auto *oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(inner);
             oc && (lv = lowerIteratorOperation(oc))) {
  } else if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(inner);
             mc && (lv = lowerContainerMethod(mc))) {
  } else if (const auto *uo = llvm::dyn_cast<clang::UnaryOperator>(inner);
             uo && uo->getOpcode() == clang::UO_Deref) {
    lv = lowerUnary(uo);
  } else if (llvm::isa<clang::MemberExpr>(inner)) {
    RecordView leaf = memberLeaf(inner);
    if (!leaf.dims[0].empty() || leaf.places[0].isVector())
      unsupported(e, "an array or vector member cannot be assigned as a whole here");
    lv = leafRef(leaf.places[0]);
  } else if (const auto *call = llvm::dyn_cast<clang::CallExpr>(inner);
             call && (lv = lowerEigenCoefficient(call))) {
  } else if (const auto *call = llvm::dyn_cast<clang::CallExpr>(inner);
             call && (lv = lowerAccessorCall(call))) {
  } else if (const auto *call = llvm::dyn_cast<clang::CallExpr>(inner);
             call && call->getDirectCallee() && call->getType()->isArithmeticType()) {
    unsupported(e, "assigns through the reference that '" + calleeName(call) +
                       "' returns; cgp-ad sees through functions that return a reference only "
                       "when their body is one 'return' of an element or member");
} else {
    unsupported(e, "this assignment target is not supported");
  }
  return lv;
}

ExprRef Lowering::lowerUnary(const clang::UnaryOperator *e) {
  switch (e->getOpcode()) {
  case clang::UO_Minus:
    return unary(UnaryOp::Neg, lowerExpr(e->getSubExpr()));
  case clang::UO_Plus:
    return lowerExpr(e->getSubExpr());
  case clang::UO_LNot:
    return unary(UnaryOp::Not, lowerExpr(e->getSubExpr()));
  case clang::UO_Not:
    return unary(UnaryOp::BitNot, lowerExpr(e->getSubExpr()));
  case clang::UO_Deref: {
    const clang::Expr *sub = e->getSubExpr()->IgnoreParenImpCasts();
    if (const Alias *p = pointerAlias(sub))
      return index(p->base, {varRef(p->offset)});
    if (const auto *step = llvm::dyn_cast<clang::UnaryOperator>(sub);
        step && step->isIncrementDecrementOp()) {
      // *p++, *--p: the element at the offset before (after) the move.
      if (const Alias *p = pointerAlias(step->getSubExpr())) {
        if (!sideEffects_)
          unsupported(e, "'++' and '--' are not supported here; write them as "
                         "their own statement");
        StmtRef move = assign(varRef(p->offset), intLit(1, p->offset->elem),
                              step->isIncrementOp() ? AssignOp::Add : AssignOp::Sub);
        move->pos = position(step->getBeginLoc());
        (step->isPrefix() ? sideEffects_->before : sideEffects_->after).push_back(move);
        return index(p->base, {varRef(p->offset)});
      }
    }
    if (ExprRef element = lowerExtremeElement(sub))
      return element;
    if (ExprRef found = iteratorPosition(sub)) // *std::lower_bound(a, a + n, x)
      return index(found->var, {found->operands[0]});
    if (ExprRef element = lowerPointee(sub))
      return element;
    unsupported(e, "dereferencing this pointer expression is not supported");
  }
  case clang::UO_PreInc:
  case clang::UO_PostInc:
  case clang::UO_PreDec:
  case clang::UO_PostDec: {
    if (!sideEffects_)
      unsupported(e, "'++' and '--' are not supported here; write them as "
                     "their own statement");
    ExprRef lhs = lowerLValue(e->getSubExpr());
    if (lhs->type.kind == ScalarType::Bool)
      unsupported(e, "incrementing a bool is not supported");
    ExprRef one = lhs->type.isFloating() ? floatLit(1.0, lhs->type) : intLit(1, lhs->type);
    StmtRef step = assign(lhs, one, e->isIncrementOp() ? AssignOp::Add : AssignOp::Sub);
    step->pos = position(e->getBeginLoc());
    (e->isPrefix() ? sideEffects_->before : sideEffects_->after).push_back(step);
    return lhs; // the value after (prefix) or before (postfix) the step
  }
  case clang::UO_AddrOf:
    unsupported(e, "taking an address is supported only to pass an element to a function");
  default:
    break;
  }
  unsupported(e, "this unary operator is not supported");
}

ExprRef Lowering::lowerPointee(const clang::Expr *pointer) {
  const clang::Expr *p = pointer->IgnoreParenImpCasts();
  if (const auto *uo = llvm::dyn_cast<clang::UnaryOperator>(p);
      uo && uo->getOpcode() == clang::UO_AddrOf)
    return lowerPlace(uo->getSubExpr()); // &a[i], &s
  if (const Alias *alias = pointerAlias(p))
    return index(alias->base, {varRef(alias->offset)});
  if (Var *v = memoryVar(p); v && (v->isPointer() || v->dims.size() == 1))
    return index(v, {intLit(0)}); // p, or a one-dimensional array
  if (ExprRef element = containerDataElement(p, intLit(0))) // *v.data()
    return element;
  if (const auto *bo = llvm::dyn_cast<clang::BinaryOperator>(p);
      bo && bo->getOpcode() == clang::BO_Add) {
    ExprRef a = lowerAddress(bo);
    if (a->var->isPointer() || a->var->dims.size() == 1)
      return index(a->var, {a->operands[0]});
  }
  return nullptr;
}

ExprRef Lowering::lowerBinary(const clang::BinaryOperator *e) {
  if (e->isAssignmentOp())
    unsupported(e, "assignments inside expressions are not supported; write them as statements");
  if (e->getOpcode() == clang::BO_Comma)
    unsupported(e, "the comma operator is not supported");
  if (e->getLHS()->getType()->isPointerType() && e->getRHS()->getType()->isPointerType())
    return lowerPointerCompare(e);
  if (e->getLHS()->getType()->isPointerType() || e->getRHS()->getType()->isPointerType())
    unsupported(e, "pointer arithmetic is supported only to initialise or move a local pointer, "
                   "and in the arguments of a call");
  static const std::map<clang::BinaryOperatorKind, BinaryOp> ops = {
      {clang::BO_Add, BinaryOp::Add},    {clang::BO_Sub, BinaryOp::Sub},
      {clang::BO_Mul, BinaryOp::Mul},    {clang::BO_Div, BinaryOp::Div},
      {clang::BO_Rem, BinaryOp::Rem},    {clang::BO_LT, BinaryOp::Lt},
      {clang::BO_LE, BinaryOp::Le},      {clang::BO_GT, BinaryOp::Gt},
      {clang::BO_GE, BinaryOp::Ge},      {clang::BO_EQ, BinaryOp::Eq},
      {clang::BO_NE, BinaryOp::Ne},      {clang::BO_LAnd, BinaryOp::LAnd},
      {clang::BO_LOr, BinaryOp::LOr},    {clang::BO_And, BinaryOp::BitAnd},
      {clang::BO_Or, BinaryOp::BitOr},   {clang::BO_Xor, BinaryOp::BitXor},
      {clang::BO_Shl, BinaryOp::Shl},    {clang::BO_Shr, BinaryOp::Shr},
  };
  auto it = ops.find(e->getOpcode());
  if (it == ops.end())
    unsupported(e, "this binary operator is not supported");
  ExprRef a = lowerExpr(e->getLHS());
  bool lazy = e->getOpcode() == clang::BO_LAnd || e->getOpcode() == clang::BO_LOr;
  lazy_ += lazy; // the right of && and || may not run
  ExprRef b = lowerExpr(e->getRHS());
  lazy_ -= lazy;
  ExprRef out = binary(it->second, a, b);
  // Keep the type Clang computed (shifts take the left operand's type, for
  // instance, and predicates are bool).
  ScalarType t = scalarType(e->getType(), e->getBeginLoc());
  if (out->type != t) {
    auto fixed = std::make_shared<ExprNode>(*out);
    fixed->type = t;
    return fixed;
  }
  return out;
}

ExprRef Lowering::lowerAddress(const clang::Expr *e) {
  if (ExprRef found = iteratorPosition(e)) // std::lower_bound(a, a + n, x), std::next(p)
    return found;
  const clang::Expr *inner = e->IgnoreParens();
  if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(inner)) {
    if (ice->getCastKind() == clang::CK_ArrayToPointerDecay) {
      const clang::Expr *arr = ice->getSubExpr()->IgnoreParens();
      if (const auto *member = llvm::dyn_cast<clang::MemberExpr>(arr->IgnoreParenImpCasts())) {
        RecordView leaf = memberLeaf(member);
        if (leaf.places[0].offset && !leaf.dims[0].empty())
          return leafAddress(leaf.places[0]); // ps[i].hist
      }
      if (Var *v = memoryVar(arr))
        return address(v, intLit(0));
      // The row a[i] of a 2-D array.
      if (const auto *row = llvm::dyn_cast<clang::ArraySubscriptExpr>(arr))
        if (Var *v = memoryVar(row->getBase()); v && v->isArray() && v->dims.size() == 2)
          return address(v, binary(BinaryOp::Mul, lowerExpr(row->getIdx()), intLit(v->dims[1])));
    }
    if (ice->getCastKind() == clang::CK_LValueToRValue || ice->getCastKind() == clang::CK_NoOp)
      return lowerAddress(ice->getSubExpr());
  }
  if (const Alias *p = pointerAlias(inner))
    return address(p->base, varRef(p->offset));
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(inner))
    if (ExprRef a = lowerContainerMethod(mc, /*address=*/true))
      return a; // v.data()
  if (Var *v = memoryVar(inner); v && v->isPointer() && !v->isReference)
    return address(v, intLit(0));
  if (const auto *bo = llvm::dyn_cast<clang::BinaryOperator>(inner)) {
    bool lhsPtr = bo->getLHS()->getType()->isPointerType();
    if (bo->getOpcode() == clang::BO_Add || (bo->getOpcode() == clang::BO_Sub && lhsPtr)) {
      const clang::Expr *ptr = lhsPtr ? bo->getLHS() : bo->getRHS();
      const clang::Expr *off = lhsPtr ? bo->getRHS() : bo->getLHS();
      ExprRef base = lowerAddress(ptr);
      ExprRef offset = lowerExpr(off);
      if (int64_t stride = strideOf(base->var);
          stride && ptr->getType()->getPointeeType()->isRecordType())
        offset = binary(BinaryOp::Mul, offset, intLit(stride)); // ps + k: k structs on
      if (bo->getOpcode() == clang::BO_Sub)
        offset = unary(UnaryOp::Neg, offset);
      const ExprRef &old = base->operands[0];
      bool zero = old->kind == ExprKind::IntLit && old->intValue == 0;
      return address(base->var, zero ? offset : binary(BinaryOp::Add, old, offset));
    }
  }
  if (const auto *uo = llvm::dyn_cast<clang::UnaryOperator>(inner);
      uo && uo->getOpcode() == clang::UO_AddrOf) {
    // Not lowerLValue: taking the address of a constant's element (for a
    // const pointer parameter) assigns nothing.
    const clang::Expr *sub = uo->getSubExpr()->IgnoreParens();
    const auto *subscript = llvm::dyn_cast<clang::ArraySubscriptExpr>(sub);
    if (const StructArray *a = subscript ? structArrayOf(subscript->getBase()) : nullptr) {
      if (!a->columns.empty())
        unsupported(e, "the address of an element of a vector of structs cannot be passed; "
                       "pass the element by reference");
      return leafAddress(elementView(*a, lowerExpr(subscript->getIdx())).places[0]); // &ps[k]
    }
    ExprRef element = subscript ? lowerSubscript(subscript) : lowerPlace(sub);
    if (element->kind == ExprKind::Index)
      return elementAddress(element);
    unsupported(e, "only the address of an array element can be passed");
  }
  unsupported(e, "this pointer argument is not supported; pass an array, a pointer "
                 "parameter, 'p + k' or '&a[k]'");
}

ExprRef Lowering::lowerCall(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee)
    unsupported(e, "indirect calls are not supported");
  if (ExprRef shuffle = lowerShuffle(e))
    return shuffle;
  if (ExprRef load = lowerCachedLoad(e))
    return load;
  refuseCudaCall(e);
  if (ExprRef element = lowerAccessorCall(e))
    return element;
  if (ExprRef part = lowerComplexScalar(e))
    return part;
  std::string name = callee->getNameAsString();
  ScalarType resultType = scalarType(e->getType(), e->getBeginLoc());

  auto custom = pullbacks_.find(callee->getCanonicalDecl());
  if (custom != pullbacks_.end()) {
    refuseLambdaArgs(e);
    Function *f = lowerCustom(callee, custom->second);
    return call(f, resultType, lowerArgs(e, f));
  }

  if (inStdOrGlobal(callee)) {
    if (ExprRef sum = lowerAlgorithmValue(e))
      return sum;
    if ((name == "min" || name == "max") && e->getNumArgs() == 2) {
      ExprRef a = convert(lowerExpr(e->getArg(0)), resultType);
      ExprRef b = convert(lowerExpr(e->getArg(1)), resultType);
      // CUDA's own min and max of floating values are fminf and fmin
      // (crt/math_functions.hpp), which differ from std's for NaN.
      if (resultType.isFloating() && ctx_.getLangOpts().CUDA &&
          callee->getDeclContext()->getRedeclContext()->isTranslationUnit() &&
          isLibraryFunction(callee, ctx_.getSourceManager()))
        return math(name == "max" ? MathFn::Fmax : MathFn::Fmin, resultType, {a, b});
      // libstdc++: max(a, b) = (a < b) ? b : a;  min(a, b) = (b < a) ? b : a
      if (name == "max")
        return select(binary(BinaryOp::Lt, a, b), b, a);
      return select(binary(BinaryOp::Lt, b, a), b, a);
    }
    if (name == "distance" && e->getNumArgs() == 2) {
      if (ExprRef position = lowerExtremeElement(e->getArg(1), e->getArg(0)))
        return convert(position, resultType);
      if (ExprRef difference = lowerDistance(e, resultType))
        return difference;
    }
    if ((name == "min" || name == "max") && e->getNumArgs() == 1)
      if (ExprRef extreme = lowerListExtreme(e, name == "max", resultType))
        return extreme;
    if (name == "clamp" && e->getNumArgs() == 3 && !callee->getDeclContext()->isTranslationUnit()) {
      // libstdc++: clamp(v, lo, hi) = min(max(v, lo), hi)
      ExprRef v = convert(lowerExpr(e->getArg(0)), resultType);
      ExprRef lo = convert(lowerExpr(e->getArg(1)), resultType);
      ExprRef hi = convert(lowerExpr(e->getArg(2)), resultType);
      ExprRef atLeastLo = select(binary(BinaryOp::Lt, v, lo), lo, v);
      return select(binary(BinaryOp::Lt, hi, atLeastLo), hi, atLeastLo);
    }
    if (!mathFunctionsNamed(name).empty() && resultType.isFloating() &&
        isLibraryFunction(callee, ctx_.getSourceManager()))
      return lowerMathCall(e, callee);
  }

  const clang::FunctionDecl *def = callee->getDefinition();
  // Helpers: functions whose body the user wrote (not library code).
  bool visible = def && def->hasBody() &&
                 !ctx_.getSourceManager().isInSystemHeader(def->getLocation());
  if (visible && resultType.isIntegral() && integerFunction(def)) {
    // No derivative flows through a function of integers: call it as it is
    // (a constexpr one, with constant arguments, is folded).
    clang::Expr::EvalResult value;
    if (def->isConstexpr() && e->EvaluateAsInt(value, ctx_))
      return intLit(value.Val.getInt().getExtValue(), resultType);
    std::vector<ExprRef> args;
    for (unsigned i = 0; i < e->getNumArgs(); ++i)
      args.push_back(convert(lowerExpr(e->getArg(i)),
                             scalarType(def->getParamDecl(i)->getType(), e->getBeginLoc())));
    return opaque(globalName(callee) + templateArguments(callee, ctx_), resultType, args);
  }
  if (visible) {
    prepareClosureArgs(e, def);
    firstCall_ = {def, e};
    Function *f = lowerFunction(def);
    firstCall_ = {};
    return call(f, resultType, lowerArgs(e, f));
  }

  // A function without a body: allowed only on values that carry no
  // derivative, which the activity analysis checks.
  refuseLambdaArgs(e);
  std::vector<ExprRef> args;
  for (unsigned i = 0; i < e->getNumArgs(); ++i) {
    if (e->getArg(i)->getType()->isPointerType() || e->getArg(i)->getType()->isArrayType())
      unsupported(e->getArg(i), "passes a pointer to '" + name +
                                    "', whose body cgp-ad cannot see");
    args.push_back(lowerExpr(e->getArg(i)));
  }
  return opaque(globalName(callee), resultType, args);
}

StmtRef Lowering::lowerMathPairCall(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !inStdOrGlobal(callee) || e->getNumArgs() != 3 ||
      !isLibraryFunction(callee, ctx_.getSourceManager()))
    return nullptr;
  const MathPair *pair = mathPairNamed(callee->getNameAsString());
  if (!pair)
    return nullptr;
  ExprRef results[2];
  for (int i = 0; i < 2; ++i) {
    const clang::Expr *pointer = e->getArg(1 + i);
    results[i] = lowerPointee(pointer);
    if (!results[i])
      unsupported(pointer, "'" + callee->getNameAsString() + "' is supported with results "
                           "written to variables or elements: '&s', '&a[i]', 'p', 'p + k'");
    if (isReadOnly(results[i]->var))
      unsupported(pointer, "writes to the constant '" + results[i]->var->name + "'");
  }
  ScalarType t = results[0]->type;
  ExprRef x = convert(lowerExpr(e->getArg(0)), t);
  std::vector<StmtRef> out;
  if (mentions(x, results[0]->var)) {
    // sincos(x, &x, &c): the cosine is of the x before the call.
    Var arg;
    arg.name = callee->getNameAsString() + "_arg";
    arg.elem = t;
    arg.origin = Var::Temp;
    Var *held = module_.newVar(arg);
    out.push_back(decl(held, x));
    x = varRef(held);
  }
  out.push_back(assign(results[0], math(pair->first, t, {x})));
  out.push_back(assign(results[1], convert(math(pair->second, t, {x}), results[1]->type)));
  for (const StmtRef &s : out)
    s->pos = position(e->getBeginLoc());
  return block(out);
}

ExprRef Lowering::lowerMathCall(const clang::CallExpr *e, const clang::FunctionDecl *callee) {
  const MathFunction *f = nullptr;
  for (const MathFunction *candidate : mathFunctionsNamed(callee->getNameAsString()))
    if (candidate->arity() == e->getNumArgs())
      f = candidate;
  if (!f)
    unsupported(e, "'" + callee->getNameAsString() + "' with " + std::to_string(e->getNumArgs()) +
                       " arguments is not supported");
  ScalarType t = scalarType(e->getType(), e->getBeginLoc());
  std::vector<ExprRef> args;
  for (unsigned i = 0; i < e->getNumArgs(); ++i) {
    ExprRef arg = lowerExpr(e->getArg(i));
    args.push_back(f->args[i] == MathArg::Floating ? convert(arg, t) : arg);
  }
  return math(f->fn, t, args);
}

} // namespace cgp
