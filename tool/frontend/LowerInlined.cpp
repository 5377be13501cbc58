//===- LowerInlined.cpp - calls lowered where they are made ---------------===//
//
// Two kinds of calls are lowered in the caller, as if their body were
// written at the call, with `this` the object the call is made on and each
// parameter standing for its argument:
//
// - Accessors: functions (methods or not) that return a reference to a
//   number and whose body is one `return E;`, E an lvalue without side
//   effects. Classes give their elements out this way:
//
//     double& operator()(int i, int j) { return a[i * 3 + j]; }
//
//   The call is the element E names: `m(i, 1) = v` is `m_a[i * 3 + 1] = v`,
//   `m.at(4) *= 2` is `m_a[4] *= 2`, `&m(i, j)` the element's address, and a
//   read reads the element, so the analyses see it as they see an array's.
//   A parameter stands for the argument's value (a temporary when computing
//   it twice would call a function twice), place (a non-const reference) or
//   buffer (a pointer). Other functions returning references are called as
//   helpers where they are read, and refused where they are written to.
//
// - Constructors the user wrote for a struct that holds std::vectors
//   (`Mat(int r, int c) : d(r * c, 0.0) {}`): they size the vectors, which
//   only the function that owns them may do (a helper gets a vector's
//   elements and size, not the vector). The member initialisers, then the
//   body, are lowered where the object is built; each parameter is a local
//   set from its argument first (a pointer or container parameter stands
//   for the caller's buffer).
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace cgp {

template <class Lower> auto Lowering::insideInlined(Inlined frame, Lower lower) {
  std::vector<std::pair<const clang::VarDecl *, Var *>> saved;
  for (const auto &[p, v] : frame.vars) {
    auto it = vars_.find(p);
    saved.push_back({p, it == vars_.end() ? nullptr : it->second});
    vars_[p] = v;
  }
  inlined_.push_back(std::move(frame));
  struct Restore {
    Lowering &l;
    std::vector<std::pair<const clang::VarDecl *, Var *>> &saved;
    ~Restore() {
      l.inlined_.pop_back();
      for (const auto &[p, v] : saved) {
        if (v)
          l.vars_[p] = v;
        else
          l.vars_.erase(p);
      }
    }
  } restore{*this, saved};
  return lower();
}

namespace {

/// The definition of `callee` if cgp-ad sees its body in the user's code.
const clang::FunctionDecl *visibleDefinition(const clang::FunctionDecl *callee,
                                             const clang::SourceManager &sm) {
  const clang::FunctionDecl *def = callee->getDefinition();
  if (!def || !def->hasBody() || sm.isInSystemHeader(def->getLocation()))
    return nullptr;
  return def;
}

/// Whether evaluating `e` changes nothing: no assignment, no `++`/`--`,
/// and calls only of functions that take nothing by non-const reference or
/// pointer (container element access included).
bool changesNothing(const clang::Stmt *e) {
  if (!e)
    return true;
  if (const auto *bo = llvm::dyn_cast<clang::BinaryOperator>(e); bo && bo->isAssignmentOp())
    return false;
  if (const auto *uo = llvm::dyn_cast<clang::UnaryOperator>(e); uo && uo->isIncrementDecrementOp())
    return false;
  if (const auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
    const clang::FunctionDecl *callee = call->getDirectCallee();
    if (!callee)
      return false;
    if (const auto *oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(call);
        oc && (oc->isAssignmentOp() || oc->getOperator() == clang::OO_PlusPlus ||
               oc->getOperator() == clang::OO_MinusMinus))
      return false;
    for (const clang::ParmVarDecl *p : callee->parameters()) {
      clang::QualType t = p->getType();
      if ((t->isReferenceType() || t->isPointerType()) &&
          !t->getPointeeType().isNull() && !t->getPointeeType().isConstQualified())
        return false;
    }
  }
  for (const clang::Stmt *child : e->children())
    if (!changesNothing(child))
      return false;
  return true;
}

} // namespace

bool Lowering::beingInlined(const clang::FunctionDecl *def) const {
  for (const Inlined &a : inlined_)
    if (a.fn == def)
      return true;
  return false;
}

const clang::Expr *Lowering::accessorResult(const clang::FunctionDecl *callee) {
  clang::QualType ret = callee->getReturnType();
  if (!ret->isLValueReferenceType() || !ret.getNonReferenceType()->isArithmeticType())
    return nullptr;
  const clang::FunctionDecl *def = visibleDefinition(callee, ctx_.getSourceManager());
  if (!def || beingInlined(def))
    return nullptr;
  const auto *body = llvm::dyn_cast<clang::CompoundStmt>(def->getBody());
  if (!body || body->size() != 1)
    return nullptr;
  const auto *only = llvm::dyn_cast<clang::ReturnStmt>(body->body_front());
  if (!only || !only->getRetValue())
    return nullptr;
  const clang::Expr *result = only->getRetValue()->IgnoreParens();
  if (!result->isGLValue() || !changesNothing(result))
    return nullptr;
  return result;
}

ExprRef Lowering::lowerAccessorCall(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  const clang::Expr *result = callee ? accessorResult(callee) : nullptr;
  if (!result)
    return nullptr;
  const clang::FunctionDecl *def = callee->getDefinition();
  Inlined frame;
  frame.fn = def;
  frame.depth = callStack_.size();

  // `this`: the object the method is called on.
  unsigned skip = 0;
  const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(def);
  if (method && !method->isStatic()) {
    const clang::Expr *object = nullptr;
    if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(e))
      object = mc->getImplicitObjectArgument();
    else if (const auto *oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
      object = oc->getArg(0);
      skip = 1;
    }
    if (!object || !object->getType()->isRecordType())
      return nullptr;
    frame.self = recordView(object);
  } else if (method && llvm::isa<clang::CXXOperatorCallExpr>(e)) {
    skip = 1; // a static operator's object is not an argument
  }

  if (e->getNumArgs() - skip != def->getNumParams())
    return nullptr;
  for (unsigned i = 0; i < def->getNumParams(); ++i) {
    const clang::ParmVarDecl *p = def->getParamDecl(i);
    const clang::Expr *arg = e->getArg(i + skip);
    clang::QualType t = p->getType();
    if (t->isPointerType() || t->isArrayType()) {
      Var *buffer = memoryVar(arg);
      if (!buffer)
        return nullptr;
      frame.vars.push_back({p, buffer});
      continue;
    }
    clang::QualType value = t.getNonReferenceType();
    if (!value->isArithmeticType() && !value->isEnumeralType())
      return nullptr;
    if (t->isLValueReferenceType() && !value.isConstQualified()) {
      frame.values.push_back({p, lowerLValue(arg)});
      continue;
    }
    ExprRef x = convert(lowerExpr(arg), scalarType(value, p->getLocation()));
    bool calls = false;
    forEachExpr(x, [&](const ExprRef &at) {
      calls |= at->kind == ExprKind::Call || at->kind == ExprKind::Opaque;
    });
    if (calls) {
      if (!sideEffects_ || lazy_)
        return nullptr;
      Var *temp = newLocal(callee->getNameAsString() + "_" + p->getNameAsString(), x->type,
                           position(arg->getBeginLoc()));
      sideEffects_->before.push_back(decl(temp, x));
      x = varRef(temp);
    }
    frame.values.push_back({p, x});
  }
  return insideInlined(std::move(frame), [&] { return lowerPlace(result); });
}

bool Lowering::holdsVectors(clang::QualType t) {
  std::vector<RecordLeaf> leaves;
  if (!flattenRecord(t.getNonReferenceType(), ctx_, leaves, /*vectors=*/true).empty())
    return false;
  for (const RecordLeaf &leaf : leaves)
    if (leaf.isVector)
      return true;
  return false;
}

void Lowering::inlineConstructor(const RecordView &to, const clang::CXXConstructExpr *construct,
                                 std::vector<StmtRef> &out) {
  const auto *def = llvm::dyn_cast_or_null<clang::CXXConstructorDecl>(
      visibleDefinition(construct->getConstructor(), ctx_.getSourceManager()));
  std::string type = construct->getType().getUnqualifiedType().getAsString();
  if (!def)
    unsupported(construct, "the constructor of '" + type + "' is not supported: cgp-ad does not "
                           "see its body in your code");
  if (beingInlined(def))
    unsupported(construct, "the constructor of '" + type + "' builds another '" + type +
                               "'; constructors of structs holding vectors cannot recurse");
  if (hasReturn(def->getBody()))
    unsupported(def->getBody(), "the constructor of '" + type + "' holds a 'return'; "
                                "constructors of structs holding vectors must run to their end");
  Inlined frame;
  frame.fn = def;
  frame.depth = callStack_.size();
  frame.self = to;
  for (unsigned i = 0; i < def->getNumParams(); ++i) {
    const clang::ParmVarDecl *p = def->getParamDecl(i);
    const clang::Expr *arg = construct->getArg(i);
    clang::QualType t = p->getType();
    std::string what = "parameter '" + p->getNameAsString() + "' of the constructor of '" +
                       type + "'";
    if (t->isPointerType() || t->isArrayType() || containerTypeOf(t, ctx_)) {
      // The caller's buffer, which the body must not move or resize.
      const clang::Expr *source = arg->IgnoreImplicit();
      if (const auto *copy = llvm::dyn_cast<clang::CXXConstructExpr>(source);
          copy && copy->getNumArgs() == 1)
        source = copy->getArg(0)->IgnoreImplicit(); // the copy made for a by-value vector
      Var *buffer = memoryVar(source);
      if (!buffer)
        unsupported(arg, what + ": pass an array, a pointer or a container variable");
      frame.vars.push_back({p, buffer});
      continue;
    }
    clang::QualType value = t.getNonReferenceType();
    if (!value->isArithmeticType() && !value->isEnumeralType())
      unsupported(p->getLocation(), what + ": constructors of structs holding vectors may take "
                                           "numbers, pointers and containers");
    if (t->isLValueReferenceType() && !value.isConstQualified()) {
      frame.values.push_back({p, lowerLValue(arg)});
      continue;
    }
    Var *local = newLocal(p->getNameAsString(), scalarType(value, p->getLocation()),
                          position(p->getLocation()));
    out.push_back(decl(local, convert(lowerExpr(arg), local->elem)));
    frame.vars.push_back({p, local});
  }
  insideInlined(std::move(frame), [&] {
    OwnStatements own(*this); // the body's statements are statements of their own
    lowerMemberInits(def, to, out);
    appendFlat(out, lowerStmt(def->getBody()));
    return 0;
  });
}

ExprRef Lowering::inlinedParam(const clang::VarDecl *vd) {
  if (inlined_.empty() || inlined_.back().depth != callStack_.size())
    return nullptr;
  for (const auto &[p, value] : inlined_.back().values)
    if (p == vd)
      return value;
  return nullptr;
}

const Lowering::RecordView *Lowering::inlinedObject() {
  if (inlined_.empty() || inlined_.back().depth != callStack_.size() || !inlined_.back().self)
    return nullptr;
  return &*inlined_.back().self;
}

} // namespace cgp
