//===- KernelFinder.cpp - functions marked CGP_GRAD, CGP_JVP ... ----------===//
//
// An annotation may stand on any declaration of the function; all of them
// are merged on the canonical declaration. The name list is parsed here
// (frontend/Annotations.cpp: the macro stringifies it), so that a typo in a name gets an error at the
// marker instead of a confusing one later. CGP_PULLBACK_OF(g) names g as
// written; it is looked up among the functions the file declares, and the
// pullback's parameters select among overloads.
//
//===----------------------------------------------------------------------===//
#include "frontend/KernelFinder.h"

#include "frontend/Annotations.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <set>

namespace cgp {
namespace {

const char *macroName(Mode mode) { return mode == Mode::Reverse ? "CGP_GRAD" : "CGP_JVP"; }

struct Marked {
  const clang::FunctionDecl *canonical = nullptr;
  Mode mode = Mode::Reverse;
  std::string names; // the stringified list, as written
  clang::SourceLocation marker;
  bool conflicting = false;
};

struct PullbackMark {
  const clang::FunctionDecl *pullback = nullptr;
  std::string of; // g, as written
  clang::SourceLocation marker;
};

class MarkerCollector : public clang::RecursiveASTVisitor<MarkerCollector> {
public:
  bool VisitFunctionDecl(clang::FunctionDecl *fd) {
    functions.push_back(fd);
    for (const auto *attr : fd->specific_attrs<clang::AnnotateAttr>()) {
      Annotation a = classifyAnnotation(attr->getAnnotation());
      if (a.kind == AnnotationKind::PullbackOf) {
        pullbacks.push_back({fd, a.argument, attr->getLocation()});
        continue;
      }
      if (a.kind == AnnotationKind::Other)
        continue;
      Mode mode = a.kind == AnnotationKind::Grad ? Mode::Reverse : Mode::Forward;
      const clang::FunctionDecl *canon = fd->getCanonicalDecl();
      const std::string &names = a.argument;
      auto key = std::make_pair(canon, mode);
      auto it = index_.find(key);
      if (it == index_.end()) {
        index_[key] = found.size();
        found.push_back(Marked{canon, mode, names, attr->getLocation(), false});
      } else if (normaliseNameList(found[it->second].names) != normaliseNameList(names)) {
        found[it->second].conflicting = true;
      }
    }
    return true;
  }

  std::vector<Marked> found;
  std::vector<PullbackMark> pullbacks;
  std::vector<const clang::FunctionDecl *> functions; // every declaration seen

private:
  std::map<std::pair<const clang::FunctionDecl *, Mode>, size_t> index_;
};

bool isFloatingParam(const clang::ParmVarDecl *p, const clang::ASTContext &ctx) {
  clang::QualType record = p->getType().getNonReferenceType();
  if (auto c = containerTypeOf(record, ctx))
    return c->elem.isFloating();
  if (clang::QualType element = vectorOfStructsElement(record, ctx); !element.isNull())
    record = element; // a std::vector of structs, of complex numbers
  else if (record->isPointerType()) // an array of structs too
    record = record->getPointeeType();
  else if (record->isArrayType())
    record = ctx.getBaseElementType(record);
  if (record->isRecordType()) { // a struct with floating members
    std::vector<RecordLeaf> leaves;
    if (!flattenRecord(record, ctx, leaves).empty())
      return false;
    for (const RecordLeaf &leaf : leaves)
      if (leaf.elem.isFloating())
        return true;
    return false;
  }
  Var shape;
  if (!describeVarType(p->getType(), ctx, shape).empty())
    return false;
  return shape.elem.isFloating();
}

/// Whether the file already defines what `mode` generates for `fn`
/// (`f_grad`, `f_jvp` next to `f`): it includes a generated unit
/// (`f.cgp.cpp`), whose copy of the user's code brings the marker along.
bool alreadyGenerated(const clang::FunctionDecl *fn, Mode mode) {
  std::string name = fn->getNameAsString() + (mode == Mode::Reverse ? "_grad" : "_jvp");
  const clang::DeclContext *scope = fn->getDeclContext()->getRedeclContext();
  clang::IdentifierInfo &id = fn->getASTContext().Idents.get(name);
  for (const clang::NamedDecl *d : scope->lookup(clang::DeclarationName(&id))) {
    const auto *other = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (const auto *ftd = llvm::dyn_cast<clang::FunctionTemplateDecl>(d))
      other = ftd->getTemplatedDecl();
    for (const clang::FunctionDecl *r = other; r; r = r->getPreviousDecl())
      if (r->doesThisDeclarationHaveABody())
        return true;
  }
  return false;
}

/// A declaration in the file of what `mode` generates for `fn`, a static
/// function, that is not static itself: C++ refuses a static definition
/// after it (the generated one is static, like its kernel).
const clang::FunctionDecl *externalDeclaration(const clang::FunctionDecl *fn, Mode mode) {
  if (fn->getStorageClass() != clang::SC_Static)
    return nullptr;
  std::string name = fn->getNameAsString() + (mode == Mode::Reverse ? "_grad" : "_jvp");
  const clang::DeclContext *scope = fn->getDeclContext()->getRedeclContext();
  clang::IdentifierInfo &id = fn->getASTContext().Idents.get(name);
  for (const clang::NamedDecl *d : scope->lookup(clang::DeclarationName(&id)))
    if (const auto *other = llvm::dyn_cast<clang::FunctionDecl>(d))
      for (const clang::FunctionDecl *r = other; r; r = r->getPreviousDecl())
        if (r->getStorageClass() != clang::SC_Static)
          return r;
  return nullptr;
}

/// Why `p`, which isFloatingParam refuses, cannot be differentiated.
std::string whyNotDifferentiable(const clang::ParmVarDecl *p, const clang::ASTContext &ctx) {
  clang::QualType record = p->getType().getNonReferenceType();
  if (clang::QualType element = vectorOfStructsElement(record, ctx); !element.isNull())
    record = element;
  else if (record->isPointerType())
    record = record->getPointeeType();
  else if (record->isArrayType())
    record = ctx.getBaseElementType(record);
  if (record->isRecordType() && !containerTypeOf(record, ctx)) {
    std::vector<RecordLeaf> leaves;
    std::string problem = flattenRecord(record, ctx, leaves);
    if (!problem.empty())
      return "which cgp-ad cannot differentiate (" + problem + ")";
  }
  return "which holds no floating-point value";
}

} // namespace

std::vector<KernelRequest> findKernels(clang::ASTContext &ctx, Diagnoser &diag) {
  MarkerCollector collector;
  collector.TraverseDecl(ctx.getTranslationUnitDecl());

  std::vector<KernelRequest> kernels;
  for (const Marked &m : collector.found) {
    std::string name = m.canonical->getNameAsString();
    std::string macro = macroName(m.mode);
    if (m.conflicting) {
      diag.error(m.marker, "declarations of '" + name + "' are marked with different " + macro +
                               " lists");
      continue;
    }
    if (alreadyGenerated(m.canonical, m.mode))
      continue; // its marker came in with an included generated unit
    if (const clang::FunctionDecl *other = externalDeclaration(m.canonical, m.mode)) {
      diag.error(other->getLocation(),
                 "'" + name + "' is static, so its generated '" + other->getNameAsString() +
                     "' is static too, but this declaration of it is not; declare it 'static' "
                     "or drop 'static' from '" + name + "'");
      continue;
    }
    const clang::FunctionDecl *def = m.canonical->getDefinition();
    if (!def || !def->hasBody()) {
      diag.error(m.marker, "'" + name + "' is marked " + macro + " but its body is not in this "
                           "file; cgp-ad needs the definition to differentiate it");
      continue;
    }
    if (llvm::isa<clang::CXXMethodDecl>(def)) {
      diag.error(m.marker, "'" + name + "' is a member function; " + macro + " marks free functions only");
      continue;
    }
    // A function template: each of its instantiations in the file is a
    // kernel of its own.
    std::vector<const clang::FunctionDecl *> definitions{def};
    const clang::FunctionDecl *pattern = nullptr;
    if (const clang::FunctionTemplateDecl *ftd = def->getDescribedFunctionTemplate()) {
      pattern = def;
      definitions.clear();
      for (const clang::FunctionDecl *spec : ftd->specializations())
        if (const clang::FunctionDecl *body = spec->getDefinition(); body && body->hasBody())
          definitions.push_back(body);
      if (definitions.empty()) {
        diag.warning(m.marker, "'" + name + "' is a template that this file does not "
                                            "instantiate where cgp-ad sees it; no " + macro +
                                            " function is generated (an explicit instantiation "
                                            "such as 'template double " + name +
                                            "<double>(...);' makes one)");
        continue;
      }
    } else if (def->isTemplated() || def->isTemplateInstantiation()) {
      diag.error(m.marker, "'" + name + "' belongs to a class template; " + macro +
                               " marks free functions and function templates only");
      continue;
    }
    for (const clang::FunctionDecl *instance : definitions) {
      def = instance;
      KernelRequest request;
      request.pattern = pattern;
      request.definition = def;
      request.marker = m.marker;
      request.mode = m.mode;
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
        std::vector<std::string> parts;
        if (!parseNameList(list, parts)) {
          diag.error(m.marker, "malformed " + macro + " list '" + m.names + "' of '" + name +
                                   "': expected parameter names separated by commas");
          ok = false;
          parts.clear();
        }
        for (const std::string &part : parts) {
          const clang::ParmVarDecl *match = nullptr;
          for (const clang::ParmVarDecl *p : def->parameters())
            if (p->getName() == part)
              match = p;
          if (!match) {
            diag.error(m.marker, "'" + part + "' named in " + macro + " is not a parameter of '" +
                                     name + "'");
            ok = false;
            continue;
          }
          if (!isFloatingParam(match, ctx)) {
            diag.error(m.marker, "parameter '" + part + "' of '" + name + "' has type '" +
                                     match->getType().getAsString() + "', " +
                                     whyNotDifferentiable(match, ctx) + "; " + macro +
                                     " names parameters that carry derivatives (floating "
                                     "scalars, pointers, arrays and containers of them, structs "
                                     "with floating members)");
            ok = false;
            continue;
          }
          if (!chosen.insert(match).second) {
            diag.error(m.marker, "'" + part + "' is named twice in " + macro + " of '" + name + "'");
            ok = false;
          }
        }
      }
      if (!ok)
        break; // the same mistake in every instantiation: reported once
      for (const clang::ParmVarDecl *p : def->parameters())
        if (chosen.count(p))
          request.wrt.push_back(p);
      kernels.push_back(request);
    }
  }
  return kernels;
}

namespace {

/// The name of `fd` as a user may write it: "ns::g", "g" (anonymous
/// namespaces left out).
std::string spelledName(const clang::FunctionDecl *fd) {
  std::string name = fd->getQualifiedNameAsString();
  const std::string anon = "(anonymous namespace)::";
  for (size_t at; (at = name.find(anon)) != std::string::npos;)
    name.erase(at, anon.size());
  return name;
}

/// True if `written` (from CGP_PULLBACK_OF) names `fd`. `std::f` also
/// names the global `f` (the C library functions std:: re-exports).
bool names(llvm::StringRef written, const clang::FunctionDecl *fd) {
  written = written.trim();
  if (written.starts_with("::"))
    written = written.drop_front(2);
  std::string qualified = spelledName(fd);
  if (written == qualified)
    return true;
  if (!written.contains("::"))
    return fd->getNameAsString() == written;
  return written.starts_with("std::") && written.drop_front(5) == qualified;
}

/// The type of the adjoint a pullback takes for a parameter of type `t`: a
/// pointer to the value's own type (`double& a` and `const double* x` get
/// `double*`, `const Cam& cam` gets `Cam*`, `const Particle* ps` gets
/// `Particle*`, `const std::vector<double>& v` gets `std::vector<double>*`),
/// or a null type when the parameter carries no derivative (no floating
/// scalar in it), or nothing when cgp-ad does not support the type.
std::optional<clang::QualType> adjointParamType(clang::QualType t, clang::ASTContext &ctx) {
  clang::QualType value = t.getNonReferenceType();
  if (auto c = containerTypeOf(value, ctx))
    return c->elem.isFloating() ? ctx.getPointerType(value.getUnqualifiedType())
                                : clang::QualType();
  // A struct (its elements for a vector or array of them): the adjoint is
  // of the type itself if some leaf is floating.
  auto ofStructs = [&](clang::QualType record,
                       clang::QualType adjoint) -> std::optional<clang::QualType> {
    std::vector<RecordLeaf> leaves;
    if (!flattenRecord(record, ctx, leaves).empty())
      return std::nullopt;
    for (const RecordLeaf &leaf : leaves)
      if (leaf.elem.isFloating())
        return ctx.getPointerType(adjoint.getUnqualifiedType());
    return clang::QualType();
  };
  if (clang::QualType element = vectorOfStructsElement(value, ctx); !element.isNull())
    return ofStructs(element, value);
  clang::QualType record = value;
  if (value->isPointerType())
    record = value->getPointeeType();
  else if (value->isArrayType())
    record = ctx.getAsArrayType(value)->getElementType();
  if (record->isRecordType())
    return ofStructs(record, record);
  Var shape;
  if (!describeVarType(t, ctx, shape).empty())
    return std::nullopt;
  if (!shape.elem.isFloating())
    return clang::QualType();
  clang::QualType elem = t->isPointerType() ? t->getPointeeType() : value;
  if (elem->isArrayType())
    elem = ctx.getAsArrayType(elem)->getElementType();
  return ctx.getPointerType(elem.getUnqualifiedType());
}

/// The parameter types a pullback of `g` must have, in order (g's own,
/// then `R d_ret` for a floating result, then an adjoint per parameter that
/// carries derivatives, adjointParamType), or an empty optional when g has
/// a parameter type cgp-ad does not support.
std::optional<std::vector<clang::QualType>> pullbackParams(const clang::FunctionDecl *g,
                                                           clang::ASTContext &ctx,
                                                           std::vector<std::string> &spelled) {
  std::vector<clang::QualType> types;
  for (const clang::ParmVarDecl *p : g->parameters()) {
    types.push_back(p->getType().getUnqualifiedType());
    spelled.push_back(p->getType().getAsString() + " " + p->getNameAsString());
  }
  auto ret = scalarTypeOf(g->getReturnType(), ctx);
  if (!ret)
    return std::nullopt;
  if (ret->isFloating()) {
    types.push_back(g->getReturnType().getUnqualifiedType());
    spelled.push_back(g->getReturnType().getUnqualifiedType().getAsString() + " d_ret");
  }
  for (const clang::ParmVarDecl *p : g->parameters()) {
    std::optional<clang::QualType> d = adjointParamType(p->getType(), ctx);
    if (!d)
      return std::nullopt;
    if (d->isNull())
      continue;
    types.push_back(*d);
    spelled.push_back(d->getAsString() + " d_" + p->getNameAsString());
  }
  return types;
}

bool agrees(const clang::FunctionDecl *pullback, const std::vector<clang::QualType> &expected,
            clang::ASTContext &ctx) {
  if (pullback->getNumParams() != expected.size() || !pullback->getReturnType()->isVoidType())
    return false;
  for (unsigned i = 0; i < expected.size(); ++i)
    if (!ctx.hasSameType(pullback->getParamDecl(i)->getType().getUnqualifiedType(), expected[i]))
      return false;
  return true;
}

} // namespace

std::map<const clang::FunctionDecl *, const clang::FunctionDecl *>
findPullbacks(clang::ASTContext &ctx, Diagnoser &diag) {
  MarkerCollector collector;
  collector.TraverseDecl(ctx.getTranslationUnitDecl());
  std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> out;
  std::set<const clang::FunctionDecl *> seenPullbacks;
  for (const PullbackMark &m : collector.pullbacks) {
    const clang::FunctionDecl *pullback = m.pullback->getCanonicalDecl();
    if (!seenPullbacks.insert(pullback).second)
      continue; // one more declaration of a pullback already handled
    std::string pbName = m.pullback->getNameAsString();
    if (llvm::isa<clang::CXXMethodDecl>(m.pullback) || m.pullback->isTemplated()) {
      diag.error(m.marker, "the pullback '" + pbName + "' must be a free, non-template function");
      continue;
    }
    // Every declaration of a function named like g, once.
    std::vector<const clang::FunctionDecl *> named;
    std::set<const clang::FunctionDecl *> seen;
    for (const clang::FunctionDecl *fd : collector.functions)
      if (fd->getCanonicalDecl() != pullback && names(m.of, fd) &&
          seen.insert(fd->getCanonicalDecl()).second)
        named.push_back(fd->getCanonicalDecl());
    if (named.empty()) {
      diag.error(m.marker, "CGP_PULLBACK_OF(" + m.of + ") on '" + pbName + "': no function '" +
                               m.of + "' is declared in this file");
      continue;
    }
    std::vector<const clang::FunctionDecl *> matching;
    std::string expectedText;
    for (const clang::FunctionDecl *g : named) {
      std::vector<std::string> spelled;
      auto expected = pullbackParams(g, ctx, spelled);
      if (!expected)
        continue;
      if (agrees(m.pullback, *expected, ctx)) {
        matching.push_back(g);
        continue;
      }
      std::string list;
      for (const std::string &p : spelled)
        list += (list.empty() ? "" : ", ") + p;
      expectedText += (expectedText.empty() ? "" : "' or '") + std::string("void ") + pbName +
                      "(" + list + ")";
    }
    if (matching.size() > 1) {
      diag.error(m.marker, "CGP_PULLBACK_OF(" + m.of + ") on '" + pbName + "' is ambiguous: " +
                               std::to_string(matching.size()) +
                               " functions of that name take these parameters; qualify the name");
      continue;
    }
    if (matching.empty()) {
      diag.error(m.marker,
                 "the parameters of '" + pbName + "' do not agree with those of '" + m.of +
                     "': " + (expectedText.empty()
                                  ? std::string("'") + m.of + "' has parameter or result types "
                                                              "cgp-ad does not support"
                                  : "a pullback of '" + m.of + "' must be declared '" +
                                        expectedText + "'"));
      continue;
    }
    if (out.count(matching[0])) {
      diag.error(m.marker, "'" + m.of + "' has two pullbacks, '" +
                               out[matching[0]]->getNameAsString() + "' and '" + pbName + "'");
      continue;
    }
    out[matching[0]] = m.pullback;
  }
  return out;
}

} // namespace cgp
