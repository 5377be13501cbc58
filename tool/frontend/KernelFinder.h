//===- KernelFinder.h - functions marked CGP_GRAD, CGP_JVP ... --*- C++ -*-===//
//
// Finds every function a translation unit marks with CGP_GRAD or CGP_JVP
// (the macros become `annotate("cgp_grad:<names>")` and
// `annotate("cgp_jvp:<names>")` while cgp-ad parses), checks the names they
// list against the parameters, and finds the body. Also finds the custom
// pullbacks (CGP_PULLBACK_OF(g)) and checks that their types agree with g.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_FRONTEND_KERNELFINDER_H
#define CGP_FRONTEND_KERNELFINDER_H

#include "frontend/Diagnoser.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <map>
#include <string>
#include <vector>

namespace cgp {

enum class Mode { Reverse, Forward };

struct KernelRequest {
  const clang::FunctionDecl *definition = nullptr;
  Mode mode = Mode::Reverse;                   // CGP_GRAD or CGP_JVP
  std::vector<const clang::ParmVarDecl *> wrt; // in parameter order
  clang::SourceLocation marker;                // where the macro stands
  /// For an instantiation of a marked function template: the template's
  /// own declaration (its generic parameter types).
  const clang::FunctionDecl *pattern = nullptr;
};

/// The kernels of the translation unit, in source order (a function marked
/// both ways gives two requests). Reports an error (and leaves the kernel
/// out) for a bad name list or a missing body.
std::vector<KernelRequest> findKernels(clang::ASTContext &ctx, Diagnoser &diag);

/// The custom pullbacks of the translation unit: for each function g (its
/// canonical declaration) the function marked CGP_PULLBACK_OF(g). Reports
/// an error (and leaves the pair out) when g cannot be found or the
/// pullback's parameters do not agree with g's.
std::map<const clang::FunctionDecl *, const clang::FunctionDecl *>
findPullbacks(clang::ASTContext &ctx, Diagnoser &diag);

} // namespace cgp

#endif // CGP_FRONTEND_KERNELFINDER_H
