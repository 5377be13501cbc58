//===- KernelFinder.h - functions marked CGP_GRAD ---------------*- C++ -*-===//
//
// Finds every function a translation unit marks with CGP_GRAD (the macro
// becomes `annotate("cgp_grad:<names>")` while cgp-ad parses), checks the
// names it lists against the parameters, and finds the body.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_FRONTEND_KERNELFINDER_H
#define CGP_FRONTEND_KERNELFINDER_H

#include "frontend/Diagnoser.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <string>
#include <vector>

namespace cgp {

struct KernelRequest {
  const clang::FunctionDecl *definition = nullptr;
  std::vector<const clang::ParmVarDecl *> wrt; // in parameter order
  clang::SourceLocation marker;                // where CGP_GRAD stands
};

/// The kernels of the translation unit, in source order. Reports an error
/// (and leaves the kernel out) for a bad name list or a missing body.
std::vector<KernelRequest> findKernels(clang::ASTContext &ctx, Diagnoser &diag);

} // namespace cgp

#endif // CGP_FRONTEND_KERNELFINDER_H
