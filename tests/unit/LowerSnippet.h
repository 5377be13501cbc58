// LowerSnippet.h - parses a C++ snippet with Clang and lowers its marked
// kernels, so that unit tests of the passes start from real source code
// instead of hand-built IR. Diagnostics are collected as text.
#ifndef CGP_TESTS_LOWERSNIPPET_H
#define CGP_TESTS_LOWERSNIPPET_H

#include "frontend/Diagnoser.h"
#include "frontend/KernelFinder.h"
#include "frontend/Lowering.h"
#include "ir/IR.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace cgp_test {

struct Lowered {
  std::unique_ptr<clang::ASTUnit> ast;
  cgp::Module module;
  std::vector<cgp::Function *> kernels;
  std::string diagnostics; // everything cgp-ad reported, as text
  bool hasErrors = false;
};

/// Parses `code` (which may include <cgp/cgp.h> and <cmath>) and lowers
/// every kernel it marks.
inline std::unique_ptr<Lowered> lowerSnippet(const std::string &code) {
  auto out = std::make_unique<Lowered>();
  std::vector<std::string> args = {"-std=c++17", "-D__CGP_AD__=1",
                                   "-I" CGP_AD_SOURCE_INCLUDE_DIR,
                                   "-resource-dir=" CGP_AD_CLANG_RESOURCE_DIR};
  out->ast = clang::tooling::buildASTFromCodeWithArgs(code, args, "snippet.cpp");
  if (!out->ast)
    return out;
  clang::ASTContext &ctx = out->ast->getASTContext();
  clang::DiagnosticsEngine &engine = out->ast->getDiagnostics();
  llvm::raw_string_ostream os(out->diagnostics);
  auto printer = std::make_unique<clang::TextDiagnosticPrinter>(os, &engine.getDiagnosticOptions());
  printer->BeginSourceFile(ctx.getLangOpts(), nullptr);
  engine.setClient(printer.get(), /*ShouldOwnClient=*/false);
  {
    cgp::Diagnoser diag(engine);
    cgp::Lowering lowering(ctx, diag, out->module);
    for (const cgp::KernelRequest &request : cgp::findKernels(ctx, diag))
      if (cgp::Function *f = lowering.lowerKernel(request))
        out->kernels.push_back(f);
    out->hasErrors = diag.hasErrors();
  }
  printer->EndSourceFile();
  engine.setClient(new clang::IgnoringDiagConsumer(), /*ShouldOwnClient=*/true);
  os.flush();
  return out;
}

/// The first statement of `f`'s body (recursively) for which `pred` holds.
template <class Pred> cgp::StmtRef findStmt(const cgp::StmtRef &root, Pred pred) {
  cgp::StmtRef found;
  cgp::forEachStmt(root, [&](const cgp::StmtRef &s) {
    if (!found && pred(s))
      found = s;
  });
  return found;
}

} // namespace cgp_test

#endif // CGP_TESTS_LOWERSNIPPET_H
