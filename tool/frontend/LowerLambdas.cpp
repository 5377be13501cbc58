//===- LowerLambdas.cpp - lambdas as helpers whose captures are parameters ===//
//
// A lambda is lowered as a helper: its call operator becomes a Function
// named after the variable that holds it (`kernel_f`), with the lambda's own
// parameters followed by one parameter per captured variable, and each call
// `f(x)` passes the captured variables on, as a call of a helper would:
//
//   auto f = [&](double x) { s += w[0] * x; };    (no code: f is a name)
//   f(a[i]);                                      kernel_f(a[i], w, s);
//
// A scalar captured by reference that the body writes is a reference
// parameter (`double &s`, a scalar local going through the one-element copy
// of reference arguments); one the body only reads a `const double &`; an
// array or pointer a pointer parameter; a struct one parameter per leaf, as
// a struct parameter is (`const S&` or `S&`). A capture by value passes the
// value; when the variable may change between the lambda's creation and a
// call (it is assigned after the lambda in the source, or a reference or
// pointer to it exists), its value is copied into a local where the lambda is
// created (`f_a`), and the call passes the copy. A `mutable` lambda keeps its
// by-value scalars in such copies, passed by reference when it changes them.
// Init-captures (`[y = 2 * a]`) are locals declared where the lambda is.
// A lambda that would leave its function (returned, stored, passed on) is
// refused, as is `this` captured.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace cgp {
namespace {

/// How one occurrence of a variable is used: its value read (through members
/// and elements too, or passed to a `const T&` parameter), assigned (`a = ...`,
/// `a[i] += ...`, `++a`), or let out (a reference or pointer bound to it, a
/// call taking it otherwise, a member call).
enum class Use { Read, Assigned, Escapes };

Use classify(const clang::Stmt *ref, const std::vector<const clang::Stmt *> &parents) {
  const clang::Stmt *child = ref;
  size_t k = parents.size();
  for (; k > 0; child = parents[--k]) {
    const clang::Stmt *p = parents[k - 1];
    if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(p)) {
      if (ice->getCastKind() == clang::CK_LValueToRValue)
        return Use::Read;
      if (ice->getCastKind() == clang::CK_NoOp ||
          ice->getCastKind() == clang::CK_ArrayToPointerDecay)
        continue;
      break;
    }
    if (llvm::isa<clang::ParenExpr>(p))
      continue;
    if (const auto *me = llvm::dyn_cast<clang::MemberExpr>(p); me && me->getBase() == child)
      continue;
    if (const auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(p); as && as->getBase() == child)
      continue;
    if (const auto *co = llvm::dyn_cast<clang::AbstractConditionalOperator>(p);
        co && co->getCond() != child)
      continue; // `c ? a : b` as an lvalue: what is done with it is done with `a`
    break;
  }
  if (k == 0)
    return Use::Escapes;
  const clang::Stmt *p = parents[k - 1];
  if (const auto *bo = llvm::dyn_cast<clang::BinaryOperator>(p);
      bo && bo->isAssignmentOp() && bo->getLHS() == child)
    return Use::Assigned;
  if (const auto *uo = llvm::dyn_cast<clang::UnaryOperator>(p); uo && uo->isIncrementDecrementOp())
    return Use::Assigned;
  // An argument of a function that takes it by const reference
  // (`std::min(a, t)`) is read.
  if (const auto *call = llvm::dyn_cast<clang::CallExpr>(p);
      call && !llvm::isa<clang::CXXOperatorCallExpr>(call) &&
      !llvm::isa<clang::CXXMemberCallExpr>(call))
    if (const clang::FunctionDecl *callee = call->getDirectCallee())
      for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); ++i)
        if (call->getArg(i) == child) {
          clang::QualType t = callee->getParamDecl(i)->getType();
          if (t->isReferenceType() && t.getNonReferenceType().isConstQualified())
            return Use::Read;
        }
  return Use::Escapes;
}

/// Calls `fn(ref, use)` on each occurrence of `vd` in `s`, outside `skip`.
template <class Fn>
void forEachUse(const clang::Stmt *s, const clang::VarDecl *vd, const clang::Stmt *skip,
                std::vector<const clang::Stmt *> &parents, Fn &fn) {
  if (!s || s == skip)
    return;
  if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(s); dr && dr->getDecl() == vd)
    fn(dr, classify(dr, parents));
  parents.push_back(s);
  for (const clang::Stmt *c : s->children())
    forEachUse(c, vd, skip, parents, fn);
  parents.pop_back();
}

/// True when `body` may change `vd` other than by reading it.
bool writes(const clang::Stmt *body, const clang::VarDecl *vd) {
  bool written = false;
  std::vector<const clang::Stmt *> parents;
  auto fn = [&](const clang::DeclRefExpr *, Use use) { written |= use != Use::Read; };
  forEachUse(body, vd, nullptr, parents, fn);
  return written;
}

/// True when `body` may write through the pointer `vd`: anything but reading
/// an element (`p[i]`, `*p` as a value) counts.
bool writesThrough(const clang::Stmt *body, const clang::VarDecl *vd) {
  bool written = false;
  std::vector<const clang::Stmt *> parents;
  auto fn = [&](const clang::DeclRefExpr *ref, Use) {
    const clang::Stmt *child = ref;
    size_t k = parents.size();
    auto up = [&] { // past parentheses and no-op conversions
      while (k > 0) {
        const clang::Stmt *p = parents[k - 1];
        const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(p);
        if (!llvm::isa<clang::ParenExpr>(p) &&
            !(ice && (ice->getCastKind() == clang::CK_NoOp ||
                      ice->getCastKind() == clang::CK_LValueToRValue)))
          break;
        child = p;
        --k;
      }
    };
    up(); // the pointer's value
    if (k == 0) {
      written = true;
      return;
    }
    const clang::Stmt *p = parents[k - 1];
    const auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(p);
    const auto *deref = llvm::dyn_cast<clang::UnaryOperator>(p);
    if (!(as && as->getBase() == child) && !(deref && deref->getOpcode() == clang::UO_Deref)) {
      written = true; // passed on, offset, compared...: assume the worst
      return;
    }
    child = p;
    --k;
    while (k > 0 && llvm::isa<clang::ParenExpr>(parents[k - 1]))
      child = parents[--k];
    const auto *ice = k > 0 ? llvm::dyn_cast<clang::ImplicitCastExpr>(parents[k - 1]) : nullptr;
    written |= !(ice && ice->getCastKind() == clang::CK_LValueToRValue);
  };
  forEachUse(body, vd, nullptr, parents, fn);
  return written;
}

/// True when `vd` may change after the lambda `le` captures it by value: it
/// is assigned after the lambda in the source, or a reference, pointer or
/// call may reach it anywhere in its function.
bool mayChangeAfter(const clang::VarDecl *vd, const clang::LambdaExpr *le,
                    const clang::SourceManager &sm) {
  if (vd->getType().isConstQualified() && !vd->getType()->isReferenceType())
    return false;
  const auto *fd = llvm::dyn_cast_or_null<clang::FunctionDecl>(vd->getParentFunctionOrMethod());
  if (!fd || !fd->getBody())
    return true;
  clang::SourceLocation end = sm.getExpansionLoc(le->getEndLoc());
  bool changes = false;
  std::vector<const clang::Stmt *> parents;
  auto fn = [&](const clang::DeclRefExpr *dr, Use use) {
    if (use == Use::Escapes ||
        (use == Use::Assigned && sm.isBeforeInTranslationUnit(end, sm.getExpansionLoc(dr->getLocation()))))
      changes = true;
  };
  forEachUse(fd->getBody(), vd, le, parents, fn);
  return changes;
}

} // namespace

std::string Lowering::displayName(const clang::FunctionDecl *fd) const {
  auto it = lambdaNames_.find(fd);
  return it != lambdaNames_.end() ? it->second : fd->getNameAsString();
}

void Lowering::refuseLambdaArgs(const clang::CallExpr *e) {
  unsigned first = llvm::isa<clang::CXXOperatorCallExpr>(e) ? 1 : 0; // a lambda's own call
  const clang::FunctionDecl *callee = e->getDirectCallee();
  std::string to = first ? "another lambda" : "'" + callee->getQualifiedNameAsString() + "'";
  for (unsigned i = first; i < e->getNumArgs(); ++i)
    if (isLambdaType(e->getArg(i)->getType()))
      unsupported(e->getArg(i), "passing a lambda to " + to + " is not supported; lambdas can "
                                "be passed to functions and methods whose body cgp-ad sees, "
                                "other than lambdas and functions with a custom pullback");
}

StmtRef Lowering::lowerLambdaDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  if (vd->getType()->isReferenceType())
    unsupported(vd->getLocation(), "the reference '" + name + "' to a lambda is not supported; "
                                   "call the lambda itself");
  const clang::Expr *init = vd->getInit() ? vd->getInit()->IgnoreImplicit() : nullptr;
  if (const auto *cleanups = llvm::dyn_cast_or_null<clang::ExprWithCleanups>(init))
    init = cleanups->getSubExpr()->IgnoreImplicit();
  const auto *le = llvm::dyn_cast_or_null<clang::LambdaExpr>(init);
  if (!le && llvm::isa_and_nonnull<clang::CallExpr>(init))
    unsupported(vd->getLocation(), "the lambda '" + name + "' comes from a function; lambdas "
                                   "returned by functions are not supported");
  if (!le)
    unsupported(vd->getLocation(), "the lambda '" + name + "' must be initialised with a lambda "
                                   "expression; copying a lambda is not supported");
  std::vector<StmtRef> out;
  lambdas_[vd] = makeLambda(le, name, out);
  StmtRef b = block(out);
  b->pos = position(vd->getLocation());
  return b;
}

Lowering::Lambda Lowering::makeLambda(const clang::LambdaExpr *le, const std::string &varName,
                                      std::vector<StmtRef> &out) {
  Lambda l;
  l.expr = le;
  l.name = lowered_.at(callStack_.back())->name + "_" + varName;
  l.definedIn = callStack_.back();
  const clang::SourceManager &sm = ctx_.getSourceManager();
  for (const clang::LambdaCapture &c : le->captures()) {
    if (c.capturesThis())
      unsupported(c.getLocation(), "lambdas that capture 'this' are not supported");
    const auto *vd = c.capturesVariable() ? llvm::dyn_cast<clang::VarDecl>(c.getCapturedVar())
                                          : nullptr;
    if (!vd)
      unsupported(c.getLocation(), "this capture is not supported");
    if (isLambdaType(vd->getType()))
      continue; // another lambda: only called, it needs no parameter
    LambdaCapture capture;
    capture.var = vd;
    capture.byReference = c.getCaptureKind() == clang::LCK_ByRef;
    std::string what = "'" + vd->getNameAsString() + "'";
    if (vd->isInitCapture()) {
      // `[y = 2 * a]`: a local of its own, which nothing else changes.
      appendFlat(out, lowerDecl(vd));
      l.captures.push_back(capture);
      continue;
    }
    if (capture.byReference) {
      l.captures.push_back(capture);
      continue;
    }
    bool changes = le->isMutable() || mayChangeAfter(vd, le, sm);
    // What a by-value capture that is not a scalar or pointer cannot do.
    auto refuseCopy = [&](const std::string &kind) {
      if (le->isMutable())
        unsupported(c.getLocation(), "the mutable lambda captures the " + kind + " " + what +
                                         " by value; a mutable lambda may capture by value "
                                         "only scalars and pointers");
      unsupported(c.getLocation(), "the lambda captures the " + kind + " " + what +
                                       " by value, and it may change after the lambda is "
                                       "created; capture it by reference");
    };
    Var copy;
    copy.name = varName + "_" + vd->getNameAsString();
    copy.origin = Var::Local;
    copy.pos = position(c.getLocation());
    ExprRef value;
    if (records_.count(vd)) {
      if (changes)
        refuseCopy("struct");
    } else if (auto alias = aliases_.find(vd); alias != aliases_.end()) {
      if (alias->second.offset && changes) { // a pointer that moves: keep its offset
        copy.elem = alias->second.offset->elem;
        copy.name += "_at";
        value = varRef(alias->second.offset);
      } else if (!alias->second.offset) { // a reference: the value it refers to now
        value = aliasElement(alias->second);
        copy.elem = value->type;
      }
    } else {
      Var *v = varFor(vd, c.getLocation());
      if (v->isArray() && changes)
        refuseCopy("array");
      if (changes && (v->isScalar() || v->isReference)) {
        value = v->isScalar() ? varRef(v) : index(v, {intLit(0)});
        copy.elem = v->elem;
      }
    }
    if (value) {
      capture.copy = module_.newVar(copy);
      StmtRef d = decl(capture.copy, value);
      d->pos = capture.copy->pos;
      out.push_back(d);
    }
    l.captures.push_back(capture);
  }
  return l;
}

Function *Lowering::lowerLambdaFunction(const Lambda &l, const clang::CXXMethodDecl *op) {
  for (const clang::FunctionDecl *active : callStack_)
    if (active == op)
      unsupported(l.expr->getBeginLoc(), "the lambda '" + l.name + "' calls itself; recursion "
                                         "through lambdas is not supported");
  if (auto known = lowered_.find(op); known != lowered_.end())
    return known->second;
  if (op->isVariadic())
    unsupported(op->getLocation(), "variadic lambdas are not supported");
  int n = ++lambdaNameCount_[l.name];
  std::string name = n == 1 ? l.name : l.name + "_" + std::to_string(n);
  lambdaNames_[op] = name;
  OwnStatements own(*this);
  callStack_.push_back(op);
  Function *f = lowerSignature(op);
  f->name = name;
  f->templateArgs.clear(); // a generic lambda's instantiation: one helper each
  f->isInline = true;
  // The user's lambda has no name generated code could call: an
  // undifferentiated call goes through a copy (transform/PrimalCopies.h).
  f->splitParams = true;
  lowered_[op] = f;

  // One parameter per captured variable (a struct: one per leaf), bound in
  // the body to the variable the lambda names; the enclosing function's
  // meaning of each is restored afterwards.
  captureParams_[op] = captureParams(l, {op->getBody()}, f);
  {
    CapturesBound bound(*this, captureParams_[op]);
    f->body = lowerStmt(op->getBody());
  }
  callStack_.pop_back();
  return f;
}

std::vector<Lowering::CaptureParam>
Lowering::captureParams(const Lambda &l, const std::vector<const clang::Stmt *> &bodies,
                        Function *f) {
  auto anyWrites = [&](const clang::VarDecl *vd) {
    return std::any_of(bodies.begin(), bodies.end(),
                       [&](const clang::Stmt *b) { return writes(b, vd); });
  };
  auto anyWritesThrough = [&](const clang::VarDecl *vd) {
    return std::any_of(bodies.begin(), bodies.end(),
                       [&](const clang::Stmt *b) { return writesThrough(b, vd); });
  };
  std::vector<CaptureParam> params;
  for (const LambdaCapture &c : l.captures) {
    const clang::VarDecl *vd = c.var;
    std::string what = "'" + vd->getNameAsString() + "'";
    auto outerVar = vars_.find(vd);
    auto outerAlias = aliases_.find(vd);
    const Alias *alias = outerAlias != aliases_.end() ? &outerAlias->second : nullptr;
    CaptureParam cp;
    cp.var = vd;
    bool written = anyWrites(vd);
    if (records_.count(vd) && !c.copy) {
      clang::QualType t = vd->getType().getNonReferenceType().getUnqualifiedType();
      bool inOut = c.byReference && written;
      if (!inOut)
        t.addConst();
      if (c.byReference)
        t = ctx_.getLValueReferenceType(t);
      cp.leaves = splitRecordParam(vd->getNameAsString(), t, vd->getLocation(), f);
      cp.params = cp.leaves.vars();
      cp.record = true;
      params.push_back(cp);
      continue;
    }
    Var v;
    v.name = vd->getNameAsString();
    v.origin = Var::Param;
    v.pos = position(vd->getLocation());
    Var *outer = outerVar != vars_.end() ? outerVar->second : nullptr;
    bool pointer = (alias && alias->offset) ||
                   (!alias && outer && outer->isMemory() && !outer->isReference);
    if (c.copy && !pointer)
      outer = c.copy;
    if (pointer) {
      Var *base = alias ? alias->base : outer;
      if (base->isArray() && base->dims.size() == 2)
        unsupported(l.expr->getBeginLoc(), "the lambda '" + l.name + "' captures the "
                                           "two-dimensional array " + what + "; lambdas may "
                                           "capture one-dimensional arrays only");
      v.shape = Var::Pointer;
      v.elem = base->elem;
      // Read-only unless the body may write through it (or a copy it may change).
      v.isConst = base->isConst || !anyWritesThrough(vd) ||
                  (!c.byReference && base->isArray() && !l.expr->isMutable());
    } else {
      if (!outer && !alias)
        outer = varFor(vd, l.expr->getBeginLoc());
      v.elem = alias && !c.copy ? alias->base->elem : outer->elem;
      // A mutable lambda's by-value scalars live in their copies (or
      // init-captures), which it changes from call to call.
      bool byReference = c.byReference || l.expr->isMutable();
      if (byReference && written) {
        v.shape = Var::Pointer; // `double &s`
        v.isReference = true;
      } else if (c.byReference) {
        v.isReference = v.isConst = true; // `const double &s`
      } else {
        v.isConst = !written; // a copy
      }
    }
    v.paramIndex = static_cast<int>(f->params.size());
    if (outerVar != vars_.end() && outerVar->second)
      v.sizeVar = outerVar->second->sizeVar; // `v.size()` of a captured std::vector
    Var *param = module_.newVar(v);
    f->params.push_back(param);
    cp.params = {param};
    params.push_back(cp);
  }
  return params;
}

std::vector<Lowering::SavedBinding>
Lowering::bindCaptures(const std::vector<CaptureParam> &params) {
  std::vector<SavedBinding> saved;
  for (const CaptureParam &cp : params) {
    const clang::VarDecl *vd = cp.var;
    SavedBinding s{vd, {}, {}, {}};
    if (auto it = vars_.find(vd); it != vars_.end())
      s.var_ = it->second;
    if (auto it = aliases_.find(vd); it != aliases_.end())
      s.alias = it->second;
    if (auto it = records_.find(vd); it != records_.end())
      s.record = it->second;
    saved.push_back(s);
    if (cp.record) {
      records_[vd] = cp.leaves;
      continue;
    }
    vars_[vd] = cp.params[0];
    aliases_.erase(vd);
    records_.erase(vd);
  }
  return saved;
}

void Lowering::restoreBindings(const std::vector<SavedBinding> &saved) {
  for (auto s = saved.rbegin(); s != saved.rend(); ++s) {
    vars_.erase(s->var);
    aliases_.erase(s->var);
    records_.erase(s->var);
    if (s->var_)
      vars_[s->var] = *s->var_;
    if (s->alias)
      aliases_[s->var] = *s->alias;
    if (s->record)
      records_[s->var] = *s->record;
  }
}

std::optional<Lowering::Lambda> Lowering::lambdaOf(const clang::Expr *object,
                                                   const clang::Expr *use,
                                                   const std::string &verb) {
  // Past conversions, temporaries, copies of the closure and std::move or
  // std::forward of it.
  for (const clang::Expr *last = nullptr; object != last;) {
    last = object;
    object = object->IgnoreImplicit()->IgnoreParens();
    if (const auto *temp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(object))
      object = temp->getSubExpr();
    if (const auto *copy = llvm::dyn_cast<clang::CXXConstructExpr>(object);
        copy && copy->getNumArgs() == 1 && isLambdaType(copy->getArg(0)->getType()))
      object = copy->getArg(0);
    if (const auto *c = llvm::dyn_cast<clang::CallExpr>(object); c && c->getNumArgs() == 1)
      if (const clang::FunctionDecl *fd = c->getDirectCallee();
          fd && fd->isInStdNamespace() && (fd->getName() == "move" || fd->getName() == "forward"))
        object = c->getArg(0);
  }
  std::optional<Lambda> l;
  if (const auto *le = llvm::dyn_cast<clang::LambdaExpr>(object)) {
    // Written where it is used: created here, for this use.
    std::vector<StmtRef> creation;
    l = makeLambda(le, "lambda", creation);
    if (!creation.empty()) {
      if (!sideEffects_)
        unsupported(use, "a lambda written here may not copy what it "
                         "captures; declare it first");
      appendAll(sideEffects_->before, creation);
    }
  } else if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(object)) {
    if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl()))
      if (auto it = lambdas_.find(vd); it != lambdas_.end())
        l = it->second;
  }
  if (l && !l->captures.empty() && l->definedIn != callStack_.back())
    unsupported(use, verb + " the lambda '" + l->name + "', which captures variables, from inside "
                         "another lambda; capture what it needs in that lambda instead, or make "
                         "it a helper function");
  return l;
}

ExprRef Lowering::lambdaOperation(const clang::Expr *opArg, const clang::Expr *use,
                                  unsigned arity, std::vector<StmtRef> &out) {
  const std::string algorithm =
      "'std::" + llvm::cast<clang::CallExpr>(use)->getDirectCallee()->getNameAsString() + "'";
  const clang::Expr *object = opArg->IgnoreImplicit()->IgnoreParens();
  if (const auto *temp = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(object))
    object = temp->getSubExpr()->IgnoreImplicit();
  std::optional<Lambda> made;
  if (const auto *le = llvm::dyn_cast<clang::LambdaExpr>(object))
    made = makeLambda(le, "lambda", out); // written here: its copies go before the loop
  else
    made = lambdaOf(opArg, use, "passes");
  if (!made)
    unsupported(opArg, algorithm + " takes its operation as a lambda, written there or held in a "
                       "local variable");
  const clang::CXXMethodDecl *op = made->expr->getCallOperator();
  if (made->expr->isGenericLambda())
    unsupported(opArg, "a generic lambda ('auto' parameters) given to " + algorithm +
                           " is not supported; name the parameters' types");
  if (const clang::FunctionDecl *def = op->getDefinition())
    op = llvm::cast<clang::CXXMethodDecl>(def);
  if (op->getNumParams() != arity)
    unsupported(opArg, "the lambda given to " + algorithm + " takes " +
                           std::to_string(op->getNumParams()) + " parameters; it must take " +
                           std::to_string(arity));
  Function *f = lowerLambdaFunction(*made, op);
  std::vector<ExprRef> args;
  for (unsigned j = 0; j < arity; ++j) {
    if (!f->params[j]->isScalar())
      unsupported(op->getParamDecl(j)->getLocation(),
                  "the lambda given to " + algorithm + " must take its elements by value or by "
                  "const reference");
    args.push_back(floatLit(0, f->params[j]->elem)); // an element, given by applyOperation
  }
  captureArgs(*made, captureParams_.at(op), use, f, args);
  return call(f, scalarType(op->getReturnType(), op->getLocation()), args);
}

ExprRef Lowering::applyOperation(const ExprRef &operation, const std::vector<ExprRef> &elements) {
  auto applied = std::make_shared<ExprNode>(*operation);
  for (size_t j = 0; j < elements.size(); ++j)
    applied->operands[j] = convert(elements[j], operation->callee->params[j]->elem);
  return applied;
}

ExprRef Lowering::lowerLambdaCall(const clang::CXXOperatorCallExpr *e) {
  refuseLambdaArgs(e);
  std::optional<Lambda> made = lambdaOf(e->getArg(0), e, "calls");
  if (!made)
    unsupported(e, "only a lambda held in a local variable, or called where it is written, can "
                   "be called");
  const Lambda *l = &*made;
  const auto *op = llvm::cast<clang::CXXMethodDecl>(e->getDirectCallee());
  if (const clang::FunctionDecl *def = op->getDefinition())
    op = llvm::cast<clang::CXXMethodDecl>(def);
  ScalarType resultType = scalarType(e->getType(), e->getBeginLoc());
  Function *f = lowerLambdaFunction(*l, op);
  std::vector<ExprRef> args = lowerArgs(e, f, {}, /*skip=*/1);
  captureArgs(*l, captureParams_.at(op), e, f, args);
  size_t own = args.size();
  for (const CaptureParam &cp : captureParams_.at(op))
    own -= cp.params.size();
  checkCaptureAliasing(f, args, own, [&](size_t j) { return j < own ? e->getArg(j + 1) : e; },
                       "the lambda '" + f->name + "', which captures it by reference and");
  checkConstReferenceArgs(e->getBeginLoc(), f, args);
  return call(f, resultType, args);
}

void Lowering::captureArgs(const Lambda &l, const std::vector<CaptureParam> &params,
                           const clang::Expr *at, const Function *f,
                           std::vector<ExprRef> &args) {
  for (const CaptureParam &cp : params) {
    const LambdaCapture *c = nullptr;
    for (const LambdaCapture &each : l.captures)
      if (each.var == cp.var)
        c = &each;
    const clang::VarDecl *vd = cp.var;
    if (cp.record) {
      viewArgs(viewOf(records_.at(vd)), at, f, cp.params, args);
      continue;
    }
    Var *param = cp.params[0];
    auto alias = aliases_.find(vd);
    if (param->isPointer() && !param->isReference) {
      if (alias != aliases_.end())
        args.push_back(address(alias->second.base,
                               varRef(c->copy ? c->copy : alias->second.offset)));
      else
        args.push_back(address(varFor(vd, at->getBeginLoc()), intLit(0)));
      continue;
    }
    // A scalar: the copy, the element a reference stands for, or the variable.
    ExprRef place;
    if (c->copy)
      place = varRef(c->copy);
    else if (alias != aliases_.end())
      place = aliasElement(alias->second);
    else if (Var *v = varFor(vd, at->getBeginLoc()); v->isReference && v->isPointer())
      place = index(v, {intLit(0)});
    else
      place = varRef(v);
    if (!param->isPointer()) {
      args.push_back(convert(place, param->elem));
    } else if (place->kind == ExprKind::Index) {
      args.push_back(referenceArgument(elementAddress(place)));
    } else {
      args.push_back(referenceCopy(place->var, f, param, at));
    }
  }
}

void Lowering::checkCaptureAliasing(const Function *f, const std::vector<ExprRef> &args,
                                    size_t captures,
                                    const std::function<const clang::Expr *(size_t)> &argAt,
                                    const std::string &who) {
  // A variable a lambda reads through a capture by reference is passed by
  // value: exact unless the call also lets something change it.
  for (size_t i = captures; i < args.size(); ++i) {
    const Var *param = f->params[i];
    if (!param->isReference || param->isMemory() || !args[i]->var)
      continue;
    bool copiedBack = sideEffects_ && std::count(sideEffects_->copiedBack.begin(),
                                                 sideEffects_->copiedBack.end(), args[i]->var);
    for (size_t j = 0; j < args.size(); ++j)
      if (j != i && f->params[j]->isMemory() && !f->params[j]->isConst &&
          (args[j]->var == args[i]->var || (copiedBack && f->params[j]->isReference)))
        unsupported(argAt(j), "passes '" + args[i]->var->name + "' to " + who +
                                  " could change it through its parameter '" +
                                  f->params[j]->name + "'; this aliasing is not supported");
  }
}

ExprRef Lowering::outerConstant(const clang::DeclRefExpr *e) {
  if (callStack_.empty() || !lambdaNames_.count(callStack_.back()) ||
      e->isNonOdrUse() == clang::NOUR_None)
    return nullptr;
  const auto *vd = llvm::dyn_cast<clang::VarDecl>(e->getDecl());
  if (!vd || !vd->isLocalVarDeclOrParm() || vd->getParentFunctionOrMethod() == callStack_.back())
    return nullptr;
  // Not captured: a constant of the enclosing function, used by its value.
  ScalarType t = scalarType(e->getType(), e->getBeginLoc());
  const clang::APValue *value = vd->evaluateValue();
  if (value && value->isInt())
    return intLit(value->getInt().getExtValue(), t);
  if (value && value->isFloat()) {
    llvm::APFloat x = value->getFloat();
    bool lost = false;
    x.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return floatLit(x.convertToDouble(), t);
  }
  unsupported(e, "uses the constant '" + vd->getNameAsString() + "' of the enclosing function, "
                 "whose value is not known");
}

} // namespace cgp
