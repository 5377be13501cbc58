//===- KernelFinder.cpp - functions marked CGP_GRAD -----------------------===//
//
// The annotation may stand on any declaration of the function; all of them
// are merged on the canonical declaration. The name list is parsed here
// (the macro stringifies it), so that a typo in a name gets an error at the
// marker instead of a confusing one later.
//
//===----------------------------------------------------------------------===//
#include "frontend/KernelFinder.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>

namespace cgp {
namespace {

constexpr llvm::StringLiteral kGradPrefix = "cgp_grad:";

struct Marked {
  const clang::FunctionDecl *canonical = nullptr;
  std::string names; // the stringified list, as written
  clang::SourceLocation marker;
  bool conflicting = false;
};

class MarkerCollector : public clang::RecursiveASTVisitor<MarkerCollector> {
public:
  bool VisitFunctionDecl(clang::FunctionDecl *fd) {
    for (const auto *attr : fd->specific_attrs<clang::AnnotateAttr>()) {
      llvm::StringRef text = attr->getAnnotation();
      if (text.starts_with("cgp_jvp:") || text.starts_with("cgp_pullback_of:"))
        planned.push_back({attr->getLocation(), text.starts_with("cgp_jvp:")
                                                    ? "CGP_JVP (forward mode)"
                                                    : "CGP_PULLBACK_OF (custom derivatives)"});
      if (!text.starts_with(kGradPrefix))
        continue;
      const clang::FunctionDecl *canon = fd->getCanonicalDecl();
      std::string names = text.drop_front(kGradPrefix.size()).str();
      auto it = index_.find(canon);
      if (it == index_.end()) {
        index_[canon] = found.size();
        found.push_back(Marked{canon, names, attr->getLocation(), false});
      } else if (normalise(found[it->second].names) != normalise(names)) {
        found[it->second].conflicting = true;
      }
    }
    return true;
  }

  std::vector<Marked> found;
  std::vector<std::pair<clang::SourceLocation, std::string>> planned;

private:
  static std::string normalise(const std::string &s) {
    std::string out;
    for (char c : s)
      if (c != ' ' && c != '\t' && c != '\n')
        out += c;
    return out;
  }
  std::map<const clang::FunctionDecl *, size_t> index_;
};

bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

bool isFloatingParam(const clang::ParmVarDecl *p, const clang::ASTContext &ctx) {
  Var shape;
  if (!describeVarType(p->getType(), ctx, shape).empty())
    return false;
  return shape.elem.isFloating();
}

} // namespace

std::vector<KernelRequest> findKernels(clang::ASTContext &ctx, Diagnoser &diag) {
  MarkerCollector collector;
  collector.TraverseDecl(ctx.getTranslationUnitDecl());

  std::vector<KernelRequest> kernels;
  for (const auto &[where, what] : collector.planned)
    diag.error(where, what + " is not supported yet in this version of cgp-ad; only CGP_GRAD "
                             "(reverse mode) is");
  for (const Marked &m : collector.found) {
    std::string name = m.canonical->getNameAsString();
    if (m.conflicting) {
      diag.error(m.marker, "declarations of '" + name + "' are marked with different CGP_GRAD lists");
      continue;
    }
    const clang::FunctionDecl *def = m.canonical->getDefinition();
    if (!def || !def->hasBody()) {
      diag.error(m.marker, "'" + name + "' is marked CGP_GRAD but its body is not in this file; "
                           "cgp-ad needs the definition to differentiate it");
      continue;
    }
    if (llvm::isa<clang::CXXMethodDecl>(def)) {
      diag.error(m.marker, "'" + name + "' is a member function; CGP_GRAD marks free functions only");
      continue;
    }
    if (def->isTemplated() || def->isTemplateInstantiation()) {
      diag.error(m.marker, "'" + name + "' is a template; CGP_GRAD marks non-template functions only");
      continue;
    }

    KernelRequest request;
    request.definition = def;
    request.marker = m.marker;
    bool ok = true;
    std::set<const clang::ParmVarDecl *> chosen;
    llvm::StringRef list = m.names;
    if (list.trim().empty()) {
      for (const clang::ParmVarDecl *p : def->parameters())
        if (isFloatingParam(p, ctx))
          chosen.insert(p);
      if (chosen.empty()) {
        diag.error(m.marker, "'" + name + "' has no floating-point parameter to differentiate "
                             "with respect to");
        ok = false;
      }
    } else {
      llvm::SmallVector<llvm::StringRef, 8> parts;
      list.split(parts, ',');
      for (llvm::StringRef raw : parts) {
        llvm::StringRef part = raw.trim();
        if (!isIdentifier(part)) {
          diag.error(m.marker, "malformed CGP_GRAD list '" + m.names + "' of '" + name +
                                   "': expected parameter names separated by commas");
          ok = false;
          break;
        }
        const clang::ParmVarDecl *match = nullptr;
        for (const clang::ParmVarDecl *p : def->parameters())
          if (p->getName() == part)
            match = p;
        if (!match) {
          diag.error(m.marker, "'" + part.str() + "' named in CGP_GRAD is not a parameter of '" +
                                   name + "'");
          ok = false;
          continue;
        }
        if (!isFloatingParam(match, ctx)) {
          diag.error(m.marker, "parameter '" + part.str() + "' of '" + name + "' has type '" +
                                   match->getType().getAsString() +
                                   "': CGP_GRAD names only floating-point parameters (float, "
                                   "double, or pointers and arrays of them)");
          ok = false;
          continue;
        }
        if (!chosen.insert(match).second) {
          diag.error(m.marker, "'" + part.str() + "' is named twice in CGP_GRAD of '" + name + "'");
          ok = false;
        }
      }
    }
    if (!ok)
      continue;
    for (const clang::ParmVarDecl *p : def->parameters())
      if (chosen.count(p))
        request.wrt.push_back(p);
    kernels.push_back(request);
  }
  return kernels;
}

} // namespace cgp
