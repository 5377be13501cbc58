//===- LowerStmt.cpp - statements to the IR -------------------------------===//
//
// Statements map one to one onto IR statements, except: ++/-- and compound
// assignments whose arithmetic type differs from the variable's become plain
// assignments with the conversions spelled out; array initialisers become
// element assignments; `[[fallthrough]];` and `;` disappear; a loop whose
// condition needs statements (`i++ < n`, a struct temporary) tests it at the
// top of its body (`while (true) { ...; if (!c) break; ... }`), at the end
// for `do ... while`. Control flow (break, continue, return, switch) stays
// as written; a later pass rewrites it into the form the reverse transform
// wants.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

namespace cgp {

static StmtRef splitIndexPart(const StmtRef &parts, const ExprRef &cond,
                              std::vector<StmtRef> &before, std::vector<StmtRef> &after);

bool Lowering::hasReturn(const clang::Stmt *s) {
  if (!s)
    return false;
  if (llvm::isa<clang::ReturnStmt>(s))
    return true;
  for (const clang::Stmt *child : s->children())
    if (hasReturn(child))
      return true;
  return false;
}

StmtRef Lowering::lowerStmt(const clang::Stmt *s) {
  if (!s)
    return block();
  NestingLevel level(*this, s);
  StmtRef out;
  switch (s->getStmtClass()) {
  case clang::Stmt::CompoundStmtClass: {
    std::vector<StmtRef> stmts;
    for (const clang::Stmt *c : llvm::cast<clang::CompoundStmt>(s)->body())
      stmts.push_back(lowerStmt(c));
    out = block(stmts);
    break;
  }
  case clang::Stmt::DeclStmtClass: {
    std::vector<StmtRef> stmts;
    for (const clang::Decl *d : llvm::cast<clang::DeclStmt>(s)->decls()) {
      const auto *vd = llvm::dyn_cast<clang::VarDecl>(d);
      if (!vd) {
        // Declarations that need no derivative: types, assertions, names.
        if (llvm::isa<clang::TypedefNameDecl>(d) || llvm::isa<clang::StaticAssertDecl>(d) ||
            llvm::isa<clang::UsingDecl>(d) || llvm::isa<clang::UsingDirectiveDecl>(d) ||
            llvm::isa<clang::NamespaceAliasDecl>(d) || llvm::isa<clang::UsingEnumDecl>(d) ||
            llvm::isa<clang::EnumDecl>(d))
          continue;
        unsupported(d->getLocation(), "this local declaration is not supported");
      }
      stmts.push_back(lowerDecl(vd));
    }
    out = block(stmts);
    break;
  }
  case clang::Stmt::NullStmtClass:
    return block();
  case clang::Stmt::AttributedStmtClass:
    return lowerStmt(llvm::cast<clang::AttributedStmt>(s)->getSubStmt());
  case clang::Stmt::IfStmtClass: {
    const auto *is = llvm::cast<clang::IfStmt>(s);
    if (is->getInit() || is->getConditionVariable())
      unsupported(s, "declarations in 'if' conditions are not supported");
    if (is->isConstexpr())
      unsupported(s, "'if constexpr' is not supported");
    std::vector<StmtRef> before;
    ExprRef cond = lowerCondition(is->getCond(), before);
    StmtRef thenBody = lowerStmt(is->getThen());
    StmtRef elseBody = is->getElse() ? lowerStmt(is->getElse()) : nullptr;
    out = afterCondition(std::move(before), ifStmt(cond, thenBody, elseBody), s->getBeginLoc());
    break;
  }
  case clang::Stmt::ForStmtClass: {
    const auto *fs = llvm::cast<clang::ForStmt>(s);
    if (fs->getConditionVariable())
      unsupported(s, "declarations in 'for' conditions are not supported");
    StmtRef init = fs->getInit() ? lowerStmt(fs->getInit()) : nullptr;
    if (init && init->kind == StmtKind::Block && init->stmts.size() == 1)
      init = init->stmts[0];
    if (init && init->kind == StmtKind::Block && init->stmts.empty())
      init = nullptr;
    std::vector<StmtRef> before;
    ExprRef cond = fs->getCond() ? lowerCondition(fs->getCond(), before) : boolLit(true);
    StmtRef step = fs->getInc() ? lowerExprStmt(fs->getInc()) : nullptr;
    StmtRef body = lowerStmt(fs->getBody());
    // `i = 0, j = n - 1` and `++i, --j`: the parts that set the condition's
    // index stay the loop's init and step (so that it may be counted); the
    // init's others run before the loop, the step's others at the end of
    // each iteration, in their order where they touch the index.
    std::vector<StmtRef> beforeLoop, endOfBody;
    if (init && init->kind == StmtKind::Block)
      init = splitIndexPart(init, cond, beforeLoop, beforeLoop);
    if (step && step->kind == StmtKind::Block) {
      if (step->stmts.size() > 1 && continuesLoop(fs->getBody()))
        unsupported(fs->getInc(), "a 'for' loop whose step has several parts ('++i, --j') and "
                                  "whose body says 'continue' is not supported; move the other "
                                  "parts into the body");
      std::vector<StmtRef> first;
      step = splitIndexPart(step, cond, first, endOfBody);
      if (!first.empty()) { // the parts before the index's run first
        appendAll(first, endOfBody);
        endOfBody = std::move(first);
      }
    }
    if (!endOfBody.empty()) {
      endOfBody.insert(endOfBody.begin(), body);
      body = block(std::move(endOfBody));
    }
    if (!before.empty()) // `for (...; i++ < n; ...)`: the condition tested in the body
      std::tie(cond, body) = conditionInBody(std::move(before), cond, body);
    if (!beforeLoop.empty()) {
      StmtRef loop = forStmt(init, cond, step, body);
      loop->pos = position(s->getBeginLoc());
      beforeLoop.push_back(loop);
      out = block(std::move(beforeLoop));
      return out;
    }
    out = forStmt(init, cond, step, body);
    break;
  }
  case clang::Stmt::WhileStmtClass: {
    const auto *ws = llvm::cast<clang::WhileStmt>(s);
    if (ws->getConditionVariable())
      unsupported(s, "declarations in 'while' conditions are not supported");
    std::vector<StmtRef> before;
    ExprRef cond = lowerCondition(ws->getCond(), before);
    StmtRef body = lowerStmt(ws->getBody());
    if (!before.empty())
      std::tie(cond, body) = conditionInBody(std::move(before), cond, body);
    out = whileStmt(cond, body);
    break;
  }
  case clang::Stmt::DoStmtClass: {
    const auto *ds = llvm::cast<clang::DoStmt>(s);
    StmtRef body = lowerStmt(ds->getBody());
    std::vector<StmtRef> before;
    ExprRef cond = lowerCondition(ds->getCond(), before);
    if (!before.empty()) {
      // What the condition needs runs at the end of the body, which a
      // `continue` would skip.
      if (continuesLoop(ds->getBody()))
        unsupported(ds->getCond(), "this 'do ... while' condition needs statements of its own "
                                   "(a '++', a struct temporary, a call taking a reference), "
                                   "which 'continue' in the body would skip; compute it in the "
                                   "body into a local");
      before.insert(before.begin(), body);
      body = block(before);
    }
    out = doWhile(body, cond);
    break;
  }
  case clang::Stmt::BreakStmtClass:
    out = breakStmt();
    break;
  case clang::Stmt::ContinueStmtClass:
    out = continueStmt();
    break;
  case clang::Stmt::ReturnStmtClass: {
    const auto *rs = llvm::cast<clang::ReturnStmt>(s);
    const clang::Expr *value = rs->getRetValue();
    if (!callStack_.empty() && (resultRecords_.count(callStack_.back()) ||
                                returnThis_.count(callStack_.back())))
      return lowerStructReturn(rs);
    if (value && value->getType()->isVoidType()) {
      // `return g();` in a void function.
      out = block({lowerExprStmt(value), returnStmt()});
      out->pos = position(s->getBeginLoc());
      return out;
    }
    out = withSideEffects([&] { return returnStmt(value ? lowerExpr(value) : nullptr); });
    break;
  }
  case clang::Stmt::SwitchStmtClass:
    out = lowerSwitch(llvm::cast<clang::SwitchStmt>(s));
    break;
  case clang::Stmt::GotoStmtClass:
  case clang::Stmt::IndirectGotoStmtClass:
    unsupported(s, "'goto' statements are not supported");
  case clang::Stmt::LabelStmtClass:
    unsupported(s, "labels are not supported");
  case clang::Stmt::CXXForRangeStmtClass:
    out = lowerRangeFor(llvm::cast<clang::CXXForRangeStmt>(s));
    break;
  case clang::Stmt::CXXTryStmtClass:
    unsupported(s, "'try' statements are not supported");
  case clang::Stmt::GCCAsmStmtClass:
  case clang::Stmt::MSAsmStmtClass:
    unsupported(s, "inline assembly is not supported");
  case clang::Stmt::CaseStmtClass:
  case clang::Stmt::DefaultStmtClass:
    unsupported(s, "'case' labels outside the top level of a 'switch' body are not supported");
  default:
    if (const auto *e = llvm::dyn_cast<clang::Expr>(s))
      return lowerExprStmt(e);
    unsupported(s, std::string("statements of kind '") + s->getStmtClassName() +
                       "' are not supported");
  }
  out->pos = position(s->getBeginLoc());
  return out;
}

StmtRef Lowering::lowerDecl(const clang::VarDecl *vd) {
  if (vd->hasAttr<clang::CUDASharedAttr>())
    return lowerSharedDecl(vd);
  if (vd->isStaticLocal() || vd->getTLSKind() != clang::VarDecl::TLS_None)
    unsupported(vd->getLocation(), "static local variables such as '" + vd->getNameAsString() +
                                       "' are not supported");
  if (const auto *closure = vd->getType().getNonReferenceType()->getAsCXXRecordDecl();
      closure && closure->isLambda())
    return lowerLambdaDecl(vd);
  // A const reference into a foreign constant (`const Point& p = ps[k];`)
  // reads a value that cannot change: it is declared as a copy of it.
  clang::QualType type = vd->getType();
  if (type->isReferenceType() && type.getNonReferenceType().isConstQualified() &&
      vd->getInit() && foreignRoot(vd->getInit()))
    type = type.getNonReferenceType();
  if (const auto *runtime = type.getNonReferenceType()->getAsCXXRecordDecl();
      runtime && globalName(runtime).rfind("::cgp::rt::", 0) == 0)
    unsupported(vd->getLocation(),
                "a gradient that cgp-ad generated (it holds the runtime's '" +
                    runtime->getNameAsString() + "') cannot be differentiated again yet (reverse "
                    "or forward mode over reverse mode); differentiate its forward mode function "
                    "(f_jvp) instead: reverse over forward works");
  if (type->isReferenceType() && type.getNonReferenceType()->isRecordType() &&
      !containerTypeOf(type, ctx_))
    return lowerRecordReference(vd);
  if (type->isReferenceType())
    return lowerReferenceDecl(vd);
  if (type->isArrayType() &&
      ctx_.getBaseElementType(type)->isRecordType())
    return lowerStructArrayDecl(vd);
  if (!type->isReferenceType() && structVectorElement(type))
    return lowerStructVectorDecl(vd); // std::vector<S> ps(n);
  if (auto c = containerTypeOf(type, ctx_); c && c->isVector)
    return lowerVectorDecl(vd, *c);
  if (isIteratorType(type) && !type->isReferenceType())
    return lowerIteratorDecl(vd); // auto it = v.begin();
  if (eigenMapShapeOf(type, ctx_) && !type->isReferenceType())
    return lowerEigenMapDecl(vd); // Eigen::Map<const Eigen::Vector3d> p(x);
  if (type->isRecordType() && !type->getAsCXXRecordDecl()->isLambda() &&
      !containerTypeOf(type, ctx_))
    return lowerRecordDecl(vd);
  if (type->isPointerType())
    return lowerPointerDecl(vd);
  Var v;
  std::string problem = describeVarType(type, ctx_, v);
  if (!problem.empty())
    unsupported(vd->getLocation(), "local '" + vd->getNameAsString() + "': " + problem);
  v.name = vd->getNameAsString();
  v.origin = Var::Local;
  v.pos = position(vd->getLocation());
  Var *var = module_.newVar(v);
  vars_[vd] = var;

  const clang::Expr *init = vd->getInit();
  if (var->isArray())
    return block({decl(var), lowerArrayInit(var, init)});
  return withSideEffects([&] {
    StmtRef d = decl(var, init ? convert(lowerExpr(init), var->elem) : nullptr);
    d->pos = var->pos;
    return d;
  });
}

StmtRef Lowering::lowerArrayInit(Var *array, const clang::Expr *init) {
  if (!init)
    return block();
  init = init->IgnoreImplicit();
  if (StmtRef s = lowerStdArrayInit(array, init))
    return s;
  const auto *list = llvm::dyn_cast<clang::InitListExpr>(init);
  if (!list)
    unsupported(init, "array '" + array->name + "' must be initialised with a braced list");
  std::vector<StmtRef> out;
  // Zero everything first when the list does not give every element (C++
  // zero-fills the rest), then store the listed values.
  bool complete = true;
  std::vector<std::pair<std::vector<int64_t>, const clang::Expr *>> values;
  auto visit = [&](const clang::InitListExpr *l, std::vector<int64_t> at, auto &self) -> void {
    size_t level = at.size();
    int64_t extent = array->dims[level];
    if (static_cast<int64_t>(l->getNumInits()) < extent)
      complete = false;
    for (unsigned i = 0; i < l->getNumInits(); ++i) {
      std::vector<int64_t> here = at;
      here.push_back(i);
      const clang::Expr *item = l->getInit(i)->IgnoreImplicit();
      if (level + 1 < array->dims.size()) {
        const auto *inner = stdArrayElements(llvm::dyn_cast<clang::InitListExpr>(item));
        if (!inner) {
          if (llvm::isa<clang::ImplicitValueInitExpr>(item)) {
            complete = false;
            continue;
          }
          unsupported(item, "nested braces are needed to initialise '" + array->name + "'");
        }
        self(inner, here, self);
      } else if (llvm::isa<clang::ImplicitValueInitExpr>(item)) {
        complete = false;
      } else {
        values.push_back({here, l->getInit(i)});
      }
    }
  };
  visit(stdArrayElements(list), {}, visit);
  if (!complete) {
    // for (int k0 = 0; k0 < d0; ++k0) [for k1 ...] a[k0][k1] = 0;
    std::vector<Var *> counters;
    for (size_t level = 0; level < array->dims.size(); ++level) {
      Var k;
      k.name = "k" + std::to_string(level);
      k.elem = ScalarType::intType();
      k.origin = Var::Temp;
      counters.push_back(module_.newVar(k));
    }
    std::vector<ExprRef> at;
    for (Var *k : counters)
      at.push_back(varRef(k));
    StmtRef body = assign(index(array, at), floatLit(0.0, array->elem));
    if (!array->elem.isFloating())
      body = assign(index(array, at), intLit(0, array->elem));
    for (size_t level = array->dims.size(); level-- > 0;) {
      Var *k = counters[level];
      body = forStmt(decl(k, intLit(0)),
                     binary(BinaryOp::Lt, varRef(k), intLit(array->dims[level])),
                     assign(varRef(k), intLit(1), AssignOp::Add), block({body}));
    }
    body->pos = array->pos;
    out.push_back(body);
  }
  for (auto &[at, expr] : values) {
    std::vector<ExprRef> idx;
    for (int64_t i : at)
      idx.push_back(intLit(i));
    out.push_back(assign(index(array, idx), convert(lowerExpr(expr), array->elem)));
  }
  return block(out);
}

StmtRef Lowering::lowerExprStmt(const clang::Expr *e) {
  return withSideEffects([&] { return lowerExprStmtAlone(e); });
}

namespace {
/// The condition of `assert(c)`, the <cassert> macro expanded (as
/// `static_cast<bool>(c) ? void(0) : __assert_fail(...)`); null for any other
/// expression. With NDEBUG the macro leaves `(void)0`, a statement that does
/// nothing.
const clang::Expr *assertedCondition(const clang::Expr *e, const clang::ASTContext &ctx) {
  const clang::SourceManager &sm = ctx.getSourceManager();
  bool fromAssert = false;
  for (clang::SourceLocation at = e->getBeginLoc(); at.isMacroID() && !fromAssert;
       at = sm.getImmediateMacroCallerLoc(at))
    fromAssert = clang::Lexer::getImmediateMacroName(at, sm, ctx.getLangOpts()) == "assert";
  const auto *check = llvm::dyn_cast<clang::ConditionalOperator>(e->IgnoreParens());
  if (!fromAssert || !check || !check->getType()->isVoidType())
    return nullptr;
  const clang::Expr *cond = check->getCond()->IgnoreParenImpCasts();
  if (const auto *toBool = llvm::dyn_cast<clang::CXXStaticCastExpr>(cond);
      toBool && toBool->getSubExpr()->IgnoreParenImpCasts()->getType()->isBooleanType())
    cond = toBool->getSubExpr()->IgnoreParenImpCasts();
  return cond;
}

/// A variable of the function (a local or a parameter) that `e` reads, if any.
const clang::VarDecl *readsLocal(const clang::Stmt *e) {
  if (const auto *ref = llvm::dyn_cast_or_null<clang::DeclRefExpr>(e))
    if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
        vd && (vd->hasLocalStorage() || llvm::isa<clang::ParmVarDecl>(vd)))
      return vd;
  if (e)
    for (const clang::Stmt *child : e->children())
      if (const clang::VarDecl *vd = readsLocal(child))
        return vd;
  return nullptr;
}
} // namespace

StmtRef Lowering::lowerThrow(const clang::CXXThrowExpr *e) {
  // The gradient throws what the primal throws, where the primal throws it
  // (its forward sweep), written as the user wrote it: so it may name no
  // variable, which the generated code may have renamed.
  if (const clang::VarDecl *vd = readsLocal(e->getSubExpr()))
    unsupported(e, "'throw' of a value made from '" + vd->getNameAsString() +
                       "' is not supported; throw a value made of constants only");
  const clang::SourceManager &sm = ctx_.getSourceManager();
  clang::CharSourceRange range = sm.getExpansionRange(e->getSourceRange());
  std::string text = clang::Lexer::getSourceText(range, sm, ctx_.getLangOpts()).str();
  if (text.empty())
    unsupported(e, "this 'throw' is not supported");
  StmtRef out = raw(text + ";");
  out->pos = position(e->getBeginLoc());
  return out;
}

StmtRef Lowering::lowerExprStmtAlone(const clang::Expr *e) {
  e = e->IgnoreParens();
  if (const auto *thrown = llvm::dyn_cast<clang::CXXThrowExpr>(e))
    return lowerThrow(thrown);
  if (const clang::Expr *cond = assertedCondition(e, ctx_)) {
    StmtRef check = assertion(lowerExpr(cond));
    check->pos = position(e->getBeginLoc());
    return check;
  }
  if (const auto *cleanups = llvm::dyn_cast<clang::ExprWithCleanups>(e))
    return lowerExprStmtAlone(cleanups->getSubExpr());
  if (StmtRef eigen = lowerEigenStmt(e))
    return eigen;
  StmtRef out;
  if (StmtRef move = lowerPointerMove(e)) {
    out = move;
  } else if (StmtRef container = lowerContainerStmt(e)) {
    return container;
  } else if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
             op && op->getOperator() == clang::OO_Equal && op->getType()->isRecordType()) {
    if (const auto *md = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(op->getDirectCallee());
        md && md->isUserProvided() && !isComplex(op))
      unsupported(e, "assignment operators that you wrote are not supported");
    return lowerRecordAssign(op);
  } else if (const auto *cao = llvm::dyn_cast<clang::CompoundAssignOperator>(e)) {
    ExprRef lhs = lowerLValue(cao->getLHS());
    ExprRef rhs = lowerExpr(cao->getRHS());
    BinaryOp op;
    AssignOp aop;
    switch (cao->getOpcode()) {
    case clang::BO_AddAssign: op = BinaryOp::Add; aop = AssignOp::Add; break;
    case clang::BO_SubAssign: op = BinaryOp::Sub; aop = AssignOp::Sub; break;
    case clang::BO_MulAssign: op = BinaryOp::Mul; aop = AssignOp::Mul; break;
    case clang::BO_DivAssign: op = BinaryOp::Div; aop = AssignOp::Div; break;
    case clang::BO_RemAssign: op = BinaryOp::Rem; aop = AssignOp::Set; break;
    case clang::BO_AndAssign: op = BinaryOp::BitAnd; aop = AssignOp::Set; break;
    case clang::BO_OrAssign: op = BinaryOp::BitOr; aop = AssignOp::Set; break;
    case clang::BO_XorAssign: op = BinaryOp::BitXor; aop = AssignOp::Set; break;
    case clang::BO_ShlAssign: op = BinaryOp::Shl; aop = AssignOp::Set; break;
    case clang::BO_ShrAssign: op = BinaryOp::Shr; aop = AssignOp::Set; break;
    default:
      unsupported(e, "this compound assignment is not supported");
    }
    ScalarType compute = scalarType(cao->getComputationResultType(), e->getBeginLoc());
    if (aop != AssignOp::Set && compute == lhs->type && rhs->type == lhs->type) {
      out = assign(lhs, rhs, aop);
    } else {
      // x op= e  ==>  x = (T)((C)x op (C)e)
      ExprRef combined = binary(op, convert(lhs, compute), convert(rhs, compute));
      out = assign(lhs, convert(combined, lhs->type));
    }
  } else if (const auto *bo = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (bo->getOpcode() == clang::BO_Assign) {
      ExprRef lhs = lowerLValue(bo->getLHS());
      out = assign(lhs, convert(lowerExpr(bo->getRHS()), lhs->type));
    } else if (bo->getOpcode() == clang::BO_Comma) {
      out = block({lowerExprStmtAlone(bo->getLHS()), lowerExprStmtAlone(bo->getRHS())});
    } else {
      unsupported(e, "an expression whose value is unused is not supported here");
    }
  } else if (const auto *uo = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (!uo->isIncrementDecrementOp())
      unsupported(e, "an expression whose value is unused is not supported here");
    ExprRef lhs = lowerLValue(uo->getSubExpr());
    ExprRef one = lhs->type.isFloating() ? floatLit(1.0, lhs->type) : intLit(1, lhs->type);
    if (lhs->type.kind == ScalarType::Bool)
      unsupported(e, "incrementing a bool is not supported");
    out = assign(lhs, one, uo->isIncrementOp() ? AssignOp::Add : AssignOp::Sub);
  } else if (const auto *c = llvm::dyn_cast<clang::CallExpr>(e)) {
    if (StmtRef atomic = lowerCudaCallStmt(c))
      out = atomic;
    else if (StmtRef algorithm = lowerAlgorithmStmt(c))
      out = algorithm;
    else if (StmtRef pair = lowerMathPairCall(c))
      out = pair;
    else if (StmtRef complex = lowerComplexStmt(c))
      return complex;
    else
      out = e->getType()->isRecordType() ? lowerStructCallStmt(c) : eval(lowerExpr(e));
  } else if (const auto *ce = llvm::dyn_cast<clang::CastExpr>(e);
             ce && ce->getType()->isVoidType()) {
    return block(); // (void)x;
  } else {
    unsupported(e, "an expression whose value is unused is not supported here");
  }
  out->pos = position(e->getBeginLoc());
  return out;
}

StmtRef Lowering::lowerSwitch(const clang::SwitchStmt *s) {
  if (s->getInit() || s->getConditionVariable())
    unsupported(s, "declarations in 'switch' conditions are not supported");
  std::vector<StmtRef> before;
  ExprRef cond = lowerCondition(s->getCond(), before);
  if (!cond->type.isIntegral())
    unsupported(s, "'switch' on a non-integer value is not supported");
  const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(s->getBody());
  if (!body)
    unsupported(s, "a 'switch' body must be a braced block");

  StmtRef sw = std::make_shared<StmtNode>(StmtKind::Switch);
  sw->value = cond;
  bool open = false; // the last group has labels but no statements yet
  for (const clang::Stmt *child : body->body()) {
    const clang::Stmt *inner = child;
    // Peel the labels (`case 1: case 2: default: stmt`).
    while (true) {
      if (const auto *cs = llvm::dyn_cast<clang::CaseStmt>(inner)) {
        if (cs->getRHS())
          unsupported(cs, "case ranges are not supported");
        if (!open)
          sw->cases.emplace_back();
        open = true;
        sw->cases.back().values.push_back(cs->getLHS()->EvaluateKnownConstInt(ctx_).getExtValue());
        inner = cs->getSubStmt();
        continue;
      }
      if (const auto *ds = llvm::dyn_cast<clang::DefaultStmt>(inner)) {
        if (!open)
          sw->cases.emplace_back();
        open = true;
        sw->cases.back().isDefault = true;
        inner = ds->getSubStmt();
        continue;
      }
      break;
    }
    if (sw->cases.empty())
      unsupported(child, "statements before the first 'case' of a 'switch' are not supported");
    StmtRef lowered = lowerStmt(inner);
    appendFlat(sw->cases.back().body, lowered);
    open = false;
  }
  return afterCondition(std::move(before), sw, s->getBeginLoc());
}

StmtRef Lowering::afterCondition(std::vector<StmtRef> before, StmtRef s,
                                 clang::SourceLocation loc) {
  if (before.empty())
    return s; // lowerStmt gives it its position
  s->pos = position(loc);
  before.push_back(s);
  return block(before);
}

std::pair<ExprRef, StmtRef> Lowering::conditionInBody(std::vector<StmtRef> before, ExprRef cond,
                                                      StmtRef body) {
  StmtRef exit = ifStmt(unary(UnaryOp::Not, cond), breakStmt());
  exit->pos = body->pos;
  before.push_back(exit);
  before.push_back(body);
  return {boolLit(true), block(before)};
}

/// Of the parts of a `for` loop's init or step (a Block), the one that sets
/// the index its condition reads, when it may move past the others; those
/// before it go to `before`, those after it to `after`. Null (all parts to
/// `before`) when none may.
static StmtRef splitIndexPart(const StmtRef &parts, const ExprRef &cond,
                              std::vector<StmtRef> &before, std::vector<StmtRef> &after) {
  std::vector<StmtRef> list;
  appendFlat(list, parts);
  // The part that sets a variable the condition reads, and no other part
  // mentions: it may move past the others.
  size_t chosen = list.size();
  for (size_t k = 0; k < list.size() && chosen == list.size(); ++k) {
    const StmtRef &p = list[k];
    if (p->kind != StmtKind::Assign && p->kind != StmtKind::Decl)
      continue;
    Var *v = p->kind == StmtKind::Decl ? p->var : p->lhs->kind == ExprKind::VarRef ? p->lhs->var : nullptr;
    if (!v || !mentions(cond, v))
      continue;
    bool alone = true;
    for (size_t o = 0; o < list.size(); ++o)
      if (o != k)
        forEachStmt(list[o], [&](const StmtRef &n) {
          alone &= !(n->kind == StmtKind::Decl && n->var == v);
          for (const ExprRef &e : ownExprs(n))
            alone &= !mentions(e, v);
        });
    std::vector<Var *> read;
    for (const ExprRef &e : ownExprs(p))
      collectVars(e, read);
    for (Var *r : read)
      for (size_t o = 0; o < list.size(); ++o)
        if (o != k)
          forEachStmt(list[o], [&](const StmtRef &n) {
            alone &= !(n->kind == StmtKind::Assign && lvalueVar(n->lhs) == r && r != v);
          });
    if (alone)
      chosen = k;
  }
  if (chosen == list.size()) { // none: all run in their order, before or after
    appendAll(before, list);
    return nullptr;
  }
  for (size_t k = 0; k < list.size(); ++k)
    if (k != chosen)
      (k < chosen ? before : after).push_back(list[k]);
  return list[chosen];
}

bool Lowering::continuesLoop(const clang::Stmt *body) {
  if (!body)
    return false;
  if (llvm::isa<clang::ContinueStmt>(body))
    return true;
  if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt,
                clang::LambdaExpr>(body))
    return false; // their `continue`s are their own
  for (const clang::Stmt *child : body->children())
    if (continuesLoop(child))
      return true;
  return false;
}

ExprRef Lowering::lowerCondition(const clang::Expr *c, std::vector<StmtRef> &before) {
  // The statements the expression of a condition needs (a struct
  // temporary, a copy back after a call by reference, `i++`) run before it
  // is tested, each time it is; when some must run after its value is
  // computed, the value is kept.
  SideEffects effects;
  SideEffects *outer = sideEffects_;
  sideEffects_ = &effects;
  ExprRef cond = lowerExpr(c);
  sideEffects_ = outer;
  if (!effects.copiedBack.empty())
    cond = sequenceCopies(cond, effects);
  appendAll(before, effects.before);
  if (!effects.after.empty()) {
    Var *held = newLocal("condition", cond->type, position(c->getBeginLoc()));
    StmtRef d = decl(held, cond);
    d->pos = held->pos;
    before.push_back(d);
    appendAll(before, effects.after);
    cond = varRef(held);
  }
  return cond;
}

} // namespace cgp
