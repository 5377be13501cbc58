//===- Lowering.cpp - kernels and functions to the IR ---------------------===//
//
// The entry of the frontend: a kernel marked CGP_GRAD or CGP_JVP becomes an
// IR Function, and so does every helper it calls (once per instantiation,
// with struct, container and closure parameters split into the members the
// IR has), a function with a custom pullback, whose body serves the
// analyses when it is visible, and the errors that stop the lowering of a
// kernel. Statements are lowered in LowerStmt.cpp, expressions in
// LowerExpr.cpp.
//
//===----------------------------------------------------------------------===
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"

#include <tuple>

namespace cgp {
namespace {

/// An overloaded operator's name in words, as generated code can spell it
/// (`operator_minus`); empty for one that is not supported.
std::string operatorName(const clang::FunctionDecl *fd) {
  const auto *md = llvm::dyn_cast<clang::CXXMethodDecl>(fd);
  bool unary = fd->getNumParams() == (md && !md->isStatic() ? 0u : 1u);
  const char *word = nullptr;
  switch (fd->getOverloadedOperator()) {
  case clang::OO_Plus: word = unary ? "pos" : "plus"; break;
  case clang::OO_Minus: word = unary ? "neg" : "minus"; break;
  case clang::OO_Star: word = unary ? nullptr : "times"; break;
  case clang::OO_Slash: word = "divide"; break;
  case clang::OO_Percent: word = "mod"; break;
  case clang::OO_PlusEqual: word = "plus_assign"; break;
  case clang::OO_MinusEqual: word = "minus_assign"; break;
  case clang::OO_StarEqual: word = "times_assign"; break;
  case clang::OO_SlashEqual: word = "divide_assign"; break;
  case clang::OO_Subscript: word = "index"; break;
  case clang::OO_Call: word = "call"; break;
  case clang::OO_EqualEqual: word = "equal"; break;
  case clang::OO_ExclaimEqual: word = "not_equal"; break;
  case clang::OO_Less: word = "less"; break;
  case clang::OO_Greater: word = "greater"; break;
  case clang::OO_LessEqual: word = "less_equal"; break;
  case clang::OO_GreaterEqual: word = "greater_equal"; break;
  default: break;
  }
  if (!word)
    return "";
  std::string name = std::string("operator_") + word;
  // A free operator is named after the struct it works on, as a member
  // operator is after its class: Vec3_operator_minus.
  if (!md)
    for (const clang::ParmVarDecl *p : fd->parameters())
      if (const auto *rd = p->getType().getNonReferenceType()->getAsCXXRecordDecl())
        return rd->getNameAsString() + "_" + name;
  return name;
}

/// Removes a `return;` that ends `body` (nested blocks followed), which
/// changes nothing in a void function.
void dropFinalReturn(const StmtRef &body) {
  StmtRef s = body;
  while (s && s->kind == StmtKind::Block && !s->stmts.empty()) {
    const StmtRef &last = s->stmts.back();
    if (last->kind == StmtKind::Return && !last->value) {
      s->stmts.pop_back();
      return;
    }
    s = last;
  }
}

} // namespace

void Lowering::unsupported(clang::SourceLocation loc, const std::string &what) {
  std::string where;
  if (callStack_.size() > 1)
    where = "in '" + displayName(callStack_.back()) + "' (called from '" +
            displayName(callStack_.front()) + "'): ";
  throw Unsupported{loc, where + what};
}

void Lowering::unsupported(const clang::Stmt *s, const std::string &what) {
  unsupported(s->getBeginLoc(), what);
}

SourcePos Lowering::position(clang::SourceLocation loc) {
  SourcePos pos;
  clang::SourceManager &sm = ctx_.getSourceManager();
  clang::PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(loc));
  if (p.isValid()) {
    pos.file = p.getFilename();
    pos.line = p.getLine();
    pos.column = p.getColumn();
  }
  return pos;
}

ScalarType Lowering::scalarType(clang::QualType t, clang::SourceLocation loc) {
  auto s = scalarTypeOf(t, ctx_);
  if (!s)
    unsupported(loc, "values of type '" + t.getAsString() + "' are not supported");
  return *s;
}

Function *Lowering::lowerKernel(const KernelRequest &request) {
  Function *kernel = nullptr;
  if (failed_.count(request.definition->getCanonicalDecl()))
    return nullptr; // marked twice (CGP_GRAD and CGP_JVP): reported once
  auto before = lowered_;
  auto customBefore = custom_;
  kernelDecl_ = request.definition->getCanonicalDecl();
  kernelWrt_ = std::set<const clang::ParmVarDecl *>(request.wrt.begin(), request.wrt.end());
  try {
    kernel = lowerFunction(request.definition);
  } catch (const Unsupported &u) {
    diag_.error(u.loc, "cannot differentiate '" + request.definition->getNameAsString() +
                           "': " + u.message);
    callStack_.clear();
    sideEffects_ = nullptr;
    lazy_ = 0;
    // Functions lowered halfway must not serve later kernels.
    lowered_ = before;
    custom_ = customBefore;
    failed_.insert(request.definition->getCanonicalDecl());
    return nullptr;
  }
  kernel->isKernel = true;
  if (request.pattern) {
    // One description per template, shared by its instantiations.
    auto &known = templateKernels_[request.pattern];
    if (!known)
      known = describeTemplateKernel(request.pattern, ctx_);
    kernel->templateKernel = known;
  }
  std::vector<Var *> &listed = request.mode == Mode::Reverse ? kernel->wrt : kernel->tangents;
  listed.clear();
  for (const clang::ParmVarDecl *p : request.wrt) {
    if (auto record = records_.find(p); record != records_.end()) {
      for (Var *leaf : record->second.vars()) // a struct: its floating members
        if (leaf->isFloating())
          listed.push_back(leaf);
      continue;
    }
    Var *v = vars_.at(p);
    if (v->elem.kind == ScalarType::Foreign) { // kept whole when another mark lowered it
      diag_.error(p->getLocation(), "cannot differentiate '" +
                                        request.definition->getNameAsString() + "': parameter '" +
                                        p->getNameAsString() + "' has a type cgp-ad does not " +
                                        "take apart, so it can only be a constant; mark the " +
                                        "function once, or leave '" + p->getNameAsString() +
                                        "' out of the list");
      return nullptr;
    }
    listed.push_back(v);
  }
  return kernel;
}

Var *Lowering::addParam(const clang::ParmVarDecl *p, unsigned cxxIndex, Function *f, Var v) {
  v.name = p->getName().empty() ? "arg" + std::to_string(cxxIndex) : p->getNameAsString();
  v.origin = Var::Param;
  v.paramIndex = static_cast<int>(f->params.size());
  v.pos = position(p->getLocation());
  Var *var = module_.newVar(v);
  vars_[p] = var;
  f->params.push_back(var);
  return var;
}

Function *Lowering::lowerSignature(const clang::FunctionDecl *fd) {
  Function *f = module_.newFunction();
  f->name = fd->getNameAsString();
  if (fd->isOverloadedOperator()) {
    f->name = operatorName(fd);
    if (f->name.empty())
      unsupported(fd->getLocation(), "the operator '" + fd->getNameAsString() +
                                         "' is not supported");
  }
  f->pos = position(fd->getLocation());
  f->isStatic = fd->getStorageClass() == clang::SC_Static;
  f->isInline = fd->isInlineSpecified() || fd->isConstexpr();
  if (fd->hasAttr<clang::CUDAGlobalAttr>())
    f->cuda = CudaSpace::Global;
  else if (fd->hasAttr<clang::CUDADeviceAttr>())
    f->cuda = fd->hasAttr<clang::CUDAHostAttr>() ? CudaSpace::HostDevice : CudaSpace::Device;
  const auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(fd);
  for (const clang::DeclContext *dc = fd->getDeclContext(); dc; dc = dc->getParent()) {
    if (const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(dc))
      f->namespaces.insert(f->namespaces.begin(), ns->isAnonymousNamespace() ? "" : ns->getNameAsString());
    else if (const auto *rd = llvm::dyn_cast<clang::RecordDecl>(dc); rd && !method)
      unsupported(fd->getLocation(), "functions inside classes are not supported");
    else if (rd)
      f->name = rd->getNameAsString() + "_" + f->name; // Vec3::norm is Vec3_norm
  }
  if (method && !method->isStatic() && !method->getParent()->isLambda())
    lowerThisParam(method, f); // *this: one parameter per member, first
  f->templateArgs = templateArguments(fd, ctx_);
  clang::QualType ret = fd->getReturnType();
  bool structResult = ret->isRecordType();
  if (structResult || (ret->isReferenceType() && ret.getNonReferenceType()->isRecordType())) {
    if (fd->getCanonicalDecl() == kernelDecl_)
      unsupported(fd->getLocation(), "kernels that return a struct are not supported; return a "
                                     "scalar, or write the struct into an 'S&' parameter");
    if (!structResult && (!method || method->isStatic()))
      unsupported(fd->getLocation(), "functions that return a reference to a struct are "
                                     "supported only when they return '*this'");
    if (!structResult)
      returnThis_.insert(fd); // Vec3& operator+=(...): a void helper
    f->returnType = ScalarType::voidType();
  } else {
    f->returnType = scalarType(ret, fd->getLocation());
  }

  // Code that holds the structs themselves needs to know how they were
  // split: a kernel's entry points, and the adapters that call a function
  // with a custom pullback (and the pullback) with its parameters as the
  // user wrote them.
  bool describeSplits = fd->getCanonicalDecl() == kernelDecl_ ||
                        pullbacks_.count(fd->getCanonicalDecl());
  std::vector<const clang::ParmVarDecl *> closures; // lambdas passed in
  for (unsigned i = 0; i < fd->getNumParams(); ++i) {
    const clang::ParmVarDecl *p = fd->getParamDecl(i);
    if (isLambdaType(p->getType())) {
      closures.push_back(p);
      continue;
    }
    auto lowerParam = [&] {
      if (structVectorElement(p->getType()) && fd->getCanonicalDecl() == kernelDecl_ &&
          kernelWrt_.count(p)) {
        lowerStructVectorKernelParam(p, f); // std::vector<std::complex<double>>& v
        if (describeSplits)
          describeStructVectorParam(p, static_cast<int>(i), f);
        return;
      }
      if (structVectorElement(p->getType()) && fd->getCanonicalDecl() != kernelDecl_) {
        bool fromConstant = firstCall_.callee == fd && i < firstCall_.call->getNumArgs() &&
                            foreignRoot(firstCall_.call->getArg(i)) && mayBeForeign(p);
        if (fromConstant)
          lowerForeignParam(p, i, f); // passed on whole, as the caller has it
        else
          lowerStructVectorParam(p, f); // const std::vector<Obs>& obs: its columns
        return;
      }
      std::string containerProblem;
      if (auto c = containerTypeOf(p->getType(), ctx_, &containerProblem)) {
        lowerContainerParam(p, *c, f);
        if (describeSplits)
          describeContainerParam(p, *c, static_cast<int>(i), f);
        return;
      }
      if (!containerProblem.empty())
        unsupported(p->getLocation(), "parameter '" + p->getNameAsString() + "': " + containerProblem);
      clang::QualType pt = p->getType();
      if ((pt->isPointerType() && pt->getPointeeType()->isRecordType()) ||
          (pt->isArrayType() && ctx_.getAsArrayType(pt)->getElementType()->isRecordType())) {
        lowerStructArrayParam(p, f); // const Particle* ps
        if (describeSplits)
          describeSplitParam(p, static_cast<int>(i), f);
        return;
      }
      if (p->getType().getNonReferenceType()->isRecordType()) {
        lowerRecordParam(p, f);
        if (describeSplits)
          describeSplitParam(p, static_cast<int>(i), f);
        return;
      }
      Var v;
      std::string problem = describeVarType(p->getType(), ctx_, v);
      if (!problem.empty())
        unsupported(p->getLocation(), "parameter '" + p->getNameAsString() + "': " + problem);
      addParam(p, i, f, std::move(v));
    };
    // A constant of a type cgp-ad cannot take apart stays whole (foreign):
    // what was made of it before the refusal is dropped.
    size_t paramsBefore = f->params.size();
    try {
      lowerParam();
    } catch (const Unsupported &) {
      bool wrt = fd->getCanonicalDecl() == kernelDecl_ && kernelWrt_.count(p);
      if (wrt || !mayBeForeign(p))
        throw;
      f->params.resize(paramsBefore);
      vars_.erase(p);
      records_.erase(p);
      structArrays_.erase(p);
      lowerForeignParam(p, i, f);
    }
  }
  if (!closures.empty()) // what the lambdas capture
    lowerClosureParams(fd, closures, f);
  if (structResult) // the result's members, by reference, last
    resultRecords_[fd] = splitRecordParam("ret", ctx_.getLValueReferenceType(ret.getUnqualifiedType()),
                                          fd->getLocation(), f);
  return f;
}

Function *Lowering::lowerCustom(const clang::FunctionDecl *fd, const clang::FunctionDecl *pullback) {
  auto known = custom_.find(fd->getCanonicalDecl());
  if (known != custom_.end())
    return known->second;
  if (fd->getReturnType().getNonReferenceType()->isRecordType())
    unsupported(fd->getLocation(), "custom pullbacks of functions that return a struct are not "
                                   "supported");
  Function *f = nullptr;
  // The body, when it is visible and in the supported language, still serves
  // the analyses (what the function reads and writes) and forward mode.
  const clang::FunctionDecl *def = fd->getDefinition();
  if (def && def->hasBody() && !ctx_.getSourceManager().isInSystemHeader(def->getLocation())) {
    size_t depth = callStack_.size();
    try {
      f = lowerFunction(def);
    } catch (const Unsupported &) {
      callStack_.resize(depth);
      lowered_.erase(def);
      f = nullptr;
    }
  }
  if (!f)
    f = lowerSignature(fd);
  f->pullback = globalName(pullback);
  if (f->splitParams) {
    for (const clang::ParmVarDecl *p : fd->parameters()) {
      clang::QualType t = p->getType().getNonReferenceType();
      const auto *rd = t->getAsCXXRecordDecl();
      if (rd && !rd->hasDefaultConstructor() && !rd->needsImplicitDefaultConstructor() &&
          !containerTypeOf(t, ctx_))
        unsupported(p->getLocation(), "the struct '" + rd->getNameAsString() + "' of parameter '" +
                                          p->getNameAsString() + "' has no default constructor; "
                                          "the pullback of '" + fd->getNameAsString() +
                                          "' needs one to receive it and its adjoint");
    }
    // Its struct or container parameters were split into their members:
    // generated code calls the user's pullback through an adapter that puts
    // them together again, named after it, next to the function.
    Function adapter;
    adapter.namespaces = f->namespaces;
    adapter.name = pullback->getNameAsString() + "_unsplit";
    f->userPullback = f->pullback;
    f->pullback = adapter.qualifiedName();
  }
  custom_[fd->getCanonicalDecl()] = f;
  return f;
}

Function *Lowering::lowerFunction(const clang::FunctionDecl *fd) {
  fd = fd->getDefinition();
  auto known = lowered_.find(fd);
  if (known != lowered_.end())
    return known->second;
  if (const auto *md = llvm::dyn_cast<clang::CXXMethodDecl>(fd)) {
    if (md->isVirtual())
      unsupported(fd->getLocation(), "virtual functions such as '" + fd->getNameAsString() +
                                         "' are not supported");
    const auto *ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(md);
    if ((ctor && ctor->isCopyOrMoveConstructor()) || llvm::isa<clang::CXXDestructorDecl>(md) ||
        md->getOverloadedOperator() == clang::OO_Equal || llvm::isa<clang::CXXConversionDecl>(md))
      unsupported(fd->getLocation(), "copy constructors, destructors, conversions and assignment "
                                     "operators such as '" + fd->getNameAsString() +
                                     "' are not supported");
  }
  // An instantiation of a function template (what a call names) is lowered
  // like any function; its pattern, with types still unknown, cannot be.
  if (fd->isTemplated())
    unsupported(fd->getLocation(), "templates whose arguments are not known, such as '" +
                                       fd->getNameAsString() + "', are not supported");
  if (fd->isVariadic())
    unsupported(fd->getLocation(), "variadic functions are not supported");

  OwnStatements own(*this);
  callStack_.push_back(fd);
  Function *f = lowerSignature(fd);
  // Registered before the body so that a recursive call (direct or through
  // other functions) and repeated calls reuse this function.
  lowered_[fd] = f;
  // Inside the body, what the lambdas passed in capture means the
  // parameters that stand for it.
  CapturesBound bound(*this, closureCaptures(fd));
  if (const auto *ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(fd)) {
    std::vector<StmtRef> stmts;
    lowerMemberInits(ctor, viewOf(thisRecords_.at(ctor)), stmts); // then its body
    appendFlat(stmts, lowerStmt(fd->getBody()));
    f->body = block(stmts);
  } else {
    f->body = lowerStmt(fd->getBody());
  }
  if (resultRecords_.count(fd) || returnThis_.count(fd))
    dropFinalReturn(f->body); // `return {x, y, z};` at the end: a straight line
  callStack_.pop_back();
  return f;
}

} // namespace cgp
