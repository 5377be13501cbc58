//===- LowerClosureArgs.cpp - lambdas passed to functions -----------------===//
//
// A lambda passed to a function template (`sum_map(x, n, [&](double v) {
// return w * v; })`) gives the template an instantiation of its own: Clang
// makes one per closure type. That instantiation is lowered as a helper
// without the closure parameter, taking instead one parameter per variable
// the lambda captures, made as the lambda's own helper makes them
// (captureParams); inside it, the closure parameter is the lambda again,
// its captures meaning those parameters, so that `f(v)` calls the lambda's
// helper and a further `g(f)` passes them on:
//
//   auto f = [&](double v) { return w * v; };
//   double s = sum_map(x, n, f);        s = sum_map(x, n, w);
//
// The helper has no counterpart the generated code could call (the user's
// function takes the closure), so an undifferentiated call goes through a
// copy, as for a lambda (transform/PrimalCopies.h).
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclTemplate.h"

namespace cgp {
namespace {

/// The bodies of the call operators of the closure type `t`: one, or each
/// instantiation of a generic lambda's.
std::vector<const clang::Stmt *> callOperatorBodies(clang::QualType t) {
  std::vector<const clang::Stmt *> bodies;
  const clang::CXXRecordDecl *rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (const clang::FunctionTemplateDecl *generic = rd->getDependentLambdaCallOperator()) {
    for (const clang::FunctionDecl *op : generic->specializations())
      if (const clang::Stmt *body = op->getBody())
        bodies.push_back(body);
  } else if (const clang::CXXMethodDecl *op = rd->getLambdaCallOperator()) {
    if (const clang::Stmt *body = op->getBody())
      bodies.push_back(body);
  }
  return bodies;
}

} // namespace

void Lowering::prepareClosureArgs(const clang::CallExpr *e, const clang::FunctionDecl *def) {
  for (unsigned i = 0; i < e->getNumArgs() && i < def->getNumParams(); ++i) {
    if (!isLambdaType(e->getArg(i)->getType()))
      continue;
    std::optional<Lambda> l = lambdaOf(e->getArg(i), e, "passes");
    if (!l)
      unsupported(e->getArg(i), "only a lambda held in a local variable, written at the call, "
                                "or received as a parameter can be passed to a function");
    pendingClosures_[def->getParamDecl(i)] = *l;
  }
}

void Lowering::lowerClosureParams(const clang::FunctionDecl *fd,
                                  const std::vector<const clang::ParmVarDecl *> &closures,
                                  Function *f) {
  for (const clang::ParmVarDecl *p : closures) {
    std::string name = "'" + p->getNameAsString() + "'";
    if (fd->getCanonicalDecl() == kernelDecl_)
      unsupported(p->getLocation(), "the kernel's parameter " + name + " is a lambda; a kernel "
                                    "cannot take one (make the lambda a local of the kernel)");
    auto pending = pendingClosures_.find(p);
    if (pending == pendingClosures_.end())
      unsupported(p->getLocation(), "parameter " + name + " is a lambda; lambdas can be passed "
                                    "to functions and methods, not to constructors or operators");
    const Lambda &l = pending->second;
    closureParams_[p] = captureParams(l, callOperatorBodies(p->getType()), f);
    // Inside `fd`, the parameter is the lambda, its captures the parameters
    // just made (bound by lowerFunction around the body).
    Lambda passed = l;
    passed.definedIn = fd;
    for (LambdaCapture &c : passed.captures)
      c.copy = nullptr;
    lambdas_[p] = passed;
  }
  f->templateArgs.clear(); // one helper per lambda type
  f->splitParams = true;
}

std::vector<Lowering::CaptureParam>
Lowering::closureCaptures(const clang::FunctionDecl *fd) const {
  std::vector<CaptureParam> all;
  for (const clang::ParmVarDecl *p : fd->parameters())
    if (auto it = closureParams_.find(p); it != closureParams_.end())
      all.insert(all.end(), it->second.begin(), it->second.end());
  return all;
}

} // namespace cgp
