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
    return declareMovingAlias(vd, where);
  });
}

StmtRef Lowering::declareMovingAlias(const clang::VarDecl *vd, const ExprRef &where) {
  std::string name = vd->getNameAsString();
  const ExprRef &at = where->operands[0];
  Var off;
  off.name = name + "_at";
  off.elem = at->type.kind == ScalarType::Integer ? at->type : ScalarType::intType();
  off.origin = Var::Local;
  off.pos = position(vd->getLocation());
  Var *offset = module_.newVar(off);
  aliases_[vd] = Alias{where->var, {varRef(offset)}, offset, name};
  StmtRef d = decl(offset, convert(at, offset->elem));
  d->pos = offset->pos;
  return d;
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
  if (StmtRef move = lowerIteratorMove(e))
    return move;
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
  // `p != nullptr` (an assert's favourite): whether the buffer is there,
  // read as written; a pointer into a buffer is null only with it.
  for (int k = 0; k < 2; ++k) {
    const clang::Expr *side = k ? e->getRHS() : e->getLHS();
    if (!side->isNullPointerConstant(ctx_, clang::Expr::NPC_ValueDependentIsNotNull))
      continue;
    if (e->getOpcode() != clang::BO_EQ && e->getOpcode() != clang::BO_NE)
      unsupported(e, "this comparison of a pointer with a null pointer is not supported");
    ExprRef other = lowerAddress(k ? e->getLHS() : e->getRHS());
    return foreign(std::string("$0 ") + (e->getOpcode() == clang::BO_EQ ? "==" : "!=") + " nullptr",
                   ScalarType::boolType(), {varRef(other->var)});
  }
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
  sideEffects_->copyBoxes.push_back(copy);
  sideEffects_->copyBacks.push_back(sideEffects_->after.back());
  sideEffects_->copiedBack.push_back(x);
  sideEffects_->copiedFor.push_back(f);
  sideEffects_->copiedAt = arg->getBeginLoc();
  return referenceArgument(address(copy, intLit(0)));
}

namespace {

/// A path from an expression's root down to one node: each node and the
/// index of the operand taken below it.
using Path = std::vector<std::pair<const ExprNode *, size_t>>;

/// Finds the first node of `e` (parents first) for which `match` holds,
/// leaving the way to it in `path`.
template <class Match> bool findPath(const ExprRef &e, Match &&match, Path &path) {
  if (!e)
    return false;
  if (match(*e))
    return true;
  for (size_t i = 0; i < e->operands.size(); ++i) {
    path.push_back({e.get(), i});
    if (findPath(e->operands[i], match, path))
      return true;
    path.pop_back();
  }
  return false;
}

/// Every node of `e` for which `match` holds (not looking inside `skip`),
/// each with its path.
template <class Match>
void findAll(const ExprRef &e, Match &&match, const ExprNode *skip, Path &path,
             std::vector<Path> &out) {
  if (!e || e.get() == skip)
    return;
  if (match(*e))
    out.push_back(path);
  for (size_t i = 0; i < e->operands.size(); ++i) {
    path.push_back({e.get(), i});
    findAll(e->operands[i], match, skip, path, out);
    path.pop_back();
  }
}

enum class Order { Before, After, Unsequenced };

/// When a read at `read` runs with respect to the call at `call` (paths
/// from the same root): where the two part, `&&`, `||` and `?:` order their
/// first operand before the others (and run one arm of `?:` only).
Order orderOf(const Path &call, const Path &read) {
  size_t k = 0;
  while (k < call.size() && k < read.size() && call[k] == read[k])
    ++k;
  if (k == call.size() || k == read.size() || call[k].first != read[k].first ||
      !ordersOperands(*call[k].first))
    return Order::Unsequenced;
  size_t c = call[k].second, r = read[k].second;
  if (c == 0)
    return Order::After;
  if (r == 0)
    return Order::Before;
  return Order::Before; // the two arms of `?:`: the read runs when the call did not
}

/// `e` with the node at the end of `path` replaced by `by`.
ExprRef replaceAt(const ExprRef &e, const Path &path, size_t depth, const ExprRef &by) {
  if (depth == path.size())
    return by;
  auto copy = std::make_shared<ExprNode>(*e);
  size_t i = path[depth].second;
  copy->operands[i] = replaceAt(e->operands[i], path, depth + 1, by);
  return copy;
}

} // namespace

ExprRef Lowering::sequenceCopies(ExprRef e, SideEffects &effects) {
  // A scalar passed by reference goes to the call in a one-element copy,
  // copied back after the whole statement (or condition). Reads of the
  // variable elsewhere in the expression must run before the call (`x > 0
  // && f(x)`: left as it is), or after it (`f(x) > 0 && x < 1`: the call
  // then runs before the statement, its value in a temporary, and the copy
  // goes back right after it), never in an order C++ leaves open.
  for (size_t i = 0; i < effects.copiedBack.size(); ++i) {
    const Var *v = effects.copiedBack[i];
    const Var *box = effects.copyBoxes[i];
    Path call;
    auto isCall = [&](const ExprNode &n) {
      if (n.kind != ExprKind::Call)
        return false;
      for (const ExprRef &op : n.operands)
        if (op->var == box)
          return true;
      return false;
    };
    if (!findPath(e, isCall, call))
      continue; // in another expression of the statement
    const ExprNode *callNode = call.empty() ? e.get() : call.back().first->operands[call.back().second].get();
    bool lazy = false;
    for (const auto &[node, operand] : call)
      lazy |= ordersOperands(*node) && operand > 0;
    std::vector<Path> reads;
    Path at;
    findAll(
        e,
        [&](const ExprNode &n) {
          return (n.kind == ExprKind::VarRef || n.kind == ExprKind::Index) && n.var == v;
        },
        callNode, at, reads);
    bool before = false, after = false;
    std::string callee = effects.copiedFor[i]->name;
    for (const Path &read : reads) {
      Order o = orderOf(call, read);
      if (o == Order::Unsequenced)
        unsupported(effects.copiedAt,
                    "reads '" + v->name + "' in the expression that passes it by reference to '" +
                        callee + "', which changes it, in an order C++ leaves open; make that "
                        "call a statement of its own");
      (o == Order::After ? after : before) = true;
    }
    if (!after)
      continue;
    if (lazy || before)
      unsupported(effects.copiedAt,
                  "reads '" + v->name + "' after '" + callee + "' changes it through a "
                      "reference, in an expression where that call may not run; make that "
                      "call a statement of its own");
    Var *value = newLocal(callee + "_value", callNode->type, position(effects.copiedAt));
    auto found = std::find(effects.after.begin(), effects.after.end(), effects.copyBacks[i]);
    effects.after.erase(found);
    StmtRef d = decl(value, std::make_shared<ExprNode>(*callNode));
    d->pos = value->pos;
    effects.before.push_back(d);
    effects.before.push_back(effects.copyBacks[i]);
    e = replaceAt(e, call, 0, varRef(value));
  }
  return e;
}

void Lowering::refuseReadsOfCopies(const ExprRef &e, const SideEffects &effects) {
  for (const Var *v : effects.copiedBack)
    forEachExpr(e, [&](const ExprRef &x) {
      if ((x->kind == ExprKind::VarRef || x->kind == ExprKind::Index) && x->var == v)
        unsupported(effects.copiedAt, "reads '" + v->name + "' where it is assigned, in a "
                                      "statement that passes it by reference to a call that "
                                      "changes it; make that call a statement of its own");
    });
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
    if (cxxParam && lowerStructVectorArg(arg, cxxParam, args))
      continue; // a std::vector of structs: its columns and count
    if (auto record = cxxParam ? records_.find(cxxParam) : records_.end(); record != records_.end()) {
      lowerRecordArgs(arg, f, record->second.vars(), args); // one argument per leaf member
      continue;
    }
    Var *param = f->params[args.size()];
    if (param->elem.kind == ScalarType::Foreign) {
      args.push_back(lowerForeignObject(arg, param)); // passed on whole
      continue;
    }
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

Var *Lowering::scalarLoopVariable(const clang::VarDecl *loopVar, clang::QualType t) {
  Var v;
  std::string problem = describeVarType(t, ctx_, v);
  if (!problem.empty() || !v.isScalar())
    unsupported(loopVar->getLocation(), "the loop variable '" + loopVar->getNameAsString() +
                                            "': " + (problem.empty() ? "must be a scalar" : problem));
  v.name = loopVar->getNameAsString();
  v.origin = Var::Local;
  v.pos = position(loopVar->getLocation());
  Var *var = module_.newVar(v);
  vars_[loopVar] = var;
  return var;
}

StmtRef Lowering::lowerRangeFor(const clang::CXXForRangeStmt *s) {
  if (foreignRoot(s->getRangeInit()))
    return lowerForeignRangeFor(s);
  if (const StructArray *a = structArrayOf(s->getRangeInit()))
    return lowerStructRangeFor(s, *a);
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
    Var *var = scalarLoopVariable(loopVar, t);
    StmtRef d = decl(var, convert(element, var->elem));
    d->pos = var->pos;
    body.push_back(d);
  }
  appendFlat(body, lowerStmt(s->getBody()));
  return rangeLoop(at, intLit(0), extent, std::move(body));
}

} // namespace cgp
