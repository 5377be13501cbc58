//===- TypeMapping.cpp - Clang types to IR types --------------------------===//
//
// Integer types keep their canonical C++ spelling so generated code declares
// exactly what the user's code declares; float and double are the only
// floating types (long double is refused: its derivative code would need
// its own math functions).
//
//===----------------------------------------------------------------------===//
#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/TemplateBase.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace cgp {

std::optional<ScalarType> scalarTypeOf(clang::QualType t, const clang::ASTContext &ctx) {
  clang::QualType canon = t.getCanonicalType().getUnqualifiedType();
  const auto *builtin = canon->getAs<clang::BuiltinType>();
  if (!builtin) {
    // Enumerations are integers; named ones keep their name.
    if (const auto *et = canon->getAs<clang::EnumType>()) {
      const clang::EnumDecl *ed = et->getDecl();
      // Named ones (enum class too) keep their name: their values are
      // spelled static_cast<::E>(k), which both kinds accept.
      if (ed->getIdentifier())
        return ScalarType{ScalarType::Integer, globalName(ed)};
      return scalarTypeOf(ed->getIntegerType(), ctx);
    }
    return std::nullopt;
  }
  switch (builtin->getKind()) {
  case clang::BuiltinType::Void:
    return ScalarType::voidType();
  case clang::BuiltinType::Bool:
    return ScalarType::boolType();
  case clang::BuiltinType::Float:
    return ScalarType::floatType();
  case clang::BuiltinType::Double:
    return ScalarType::doubleType();
  default:
    break;
  }
  if (builtin->isInteger()) {
    clang::PrintingPolicy policy(ctx.getLangOpts());
    return ScalarType{ScalarType::Integer, canon.getAsString(policy)};
  }
  return std::nullopt;
}

std::string describeVarType(clang::QualType t, const clang::ASTContext &ctx, Var &out) {
  std::string spelled = t.getAsString();
  if (const auto *record = t->getAsCXXRecordDecl(); record && record->isLambda())
    return "lambdas are not supported";
  if (t->isRValueReferenceType())
    return "rvalue references are not supported";
  if (t->isReferenceType()) {
    clang::QualType referred = t.getNonReferenceType();
    auto elem = scalarTypeOf(referred, ctx);
    if (!elem || elem->isVoid())
      return "references to '" + referred.getAsString() + "' are not supported";
    out.elem = *elem;
    out.isReference = true;
    out.isConst = referred.isConstQualified();
    out.shape = out.isConst ? Var::Scalar : Var::Pointer;
    return "";
  }
  if (const auto *ptr = t->getAs<clang::PointerType>()) {
    clang::QualType pointee = ptr->getPointeeType();
    auto elem = scalarTypeOf(pointee, ctx);
    if (!elem || elem->isVoid() || pointee->isPointerType() || pointee->isArrayType())
      return "pointers to '" + pointee.getAsString() + "' are not supported";
    out.shape = Var::Pointer;
    out.elem = *elem;
    out.isConst = pointee.isConstQualified();
    return "";
  }
  if (const auto *arr = ctx.getAsConstantArrayType(t)) {
    std::vector<int64_t> dims{static_cast<int64_t>(arr->getSize().getZExtValue())};
    clang::QualType elemType = arr->getElementType();
    if (const auto *inner = ctx.getAsConstantArrayType(elemType)) {
      dims.push_back(static_cast<int64_t>(inner->getSize().getZExtValue()));
      elemType = inner->getElementType();
      if (elemType->isArrayType())
        return "arrays of more than two dimensions are not supported";
    }
    auto elem = scalarTypeOf(elemType, ctx);
    if (!elem || elem->isVoid())
      return "arrays of '" + elemType.getAsString() + "' are not supported";
    out.shape = Var::Array;
    out.elem = *elem;
    out.dims = dims;
    out.isConst = elemType.isConstQualified() || t.isConstQualified();
    return "";
  }
  if (t->isArrayType())
    return "arrays whose size is not a constant are not supported";
  std::string containerProblem;
  if (auto c = containerTypeOf(t, ctx, &containerProblem)) {
    if (c->isVector)
      return "std::vector variables are supported only as parameters and locals";
    out.shape = Var::Array; // std::array<T, N>: T[N]
    out.elem = c->elem;
    out.dims = c->dims;
    out.isConst = t.isConstQualified();
    return "";
  }
  if (!containerProblem.empty())
    return containerProblem;
  auto elem = scalarTypeOf(t, ctx);
  if (t->isRecordType() && !t->getAsCXXRecordDecl()->isLambda())
    return "structs and classes ('" + spelled + "') are supported only as local variables";
  if (!elem || elem->isVoid())
    return "variables of type '" + spelled + "' are not supported";
  out.shape = Var::Scalar;
  out.elem = *elem;
  out.isConst = t.isConstQualified();
  return "";
}

std::optional<ContainerType> containerTypeOf(clang::QualType t, const clang::ASTContext &ctx,
                                             std::string *problem) {
  clang::QualType bare = t.getNonReferenceType().getCanonicalType();
  const auto *spec =
      llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(bare->getAsCXXRecordDecl());
  if (!spec || !spec->isInStdNamespace() || !spec->getIdentifier())
    return std::nullopt;
  llvm::StringRef name = spec->getName();
  if (name != "vector" && name != "array")
    return std::nullopt;
  const clang::TemplateArgumentList &args = spec->getTemplateArgs();
  clang::QualType elemType = args[0].getAsType();
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressTagKeyword = true;
  std::string what = "std::" + name.str() + " of '" + elemType.getAsString(policy) + "'";
  auto refuse = [&](const std::string &why) -> std::optional<ContainerType> {
    if (problem)
      *problem = why;
    return std::nullopt;
  };
  ContainerType c;
  c.isVector = name == "vector";
  if (c.isVector) {
    const auto *alloc = args[1].getAsType()->getAsCXXRecordDecl();
    if (!alloc || alloc->getName() != "allocator")
      return refuse(what + " with an allocator of its own is not supported");
  } else {
    int64_t n = args[1].getAsIntegral().getExtValue();
    c.dims.push_back(n);
    // std::array<std::array<T, M>, N> is T[N][M].
    if (auto inner = containerTypeOf(elemType, ctx); inner && !inner->isVector &&
                                                     inner->dims.size() == 1) {
      c.elem = inner->elem;
      c.dims.push_back(inner->dims[0]);
      c.spelling = "std::array<" + inner->spelling + ", " + std::to_string(n) + ">";
      return c;
    }
  }
  auto elem = scalarTypeOf(elemType, ctx);
  if (!elem || elem->isVoid() || elem->kind == ScalarType::Bool)
    return refuse(what + " is not supported; containers may hold numbers (float, double, "
                         "integers) or, for std::array, arrays of them");
  c.elem = *elem;
  c.spelling = "std::" + name.str() + "<" + elem->spelling +
               (c.isVector ? ">" : ", " + std::to_string(c.dims[0]) + ">");
  return c;
}

std::optional<ScalarType> complexElement(clang::QualType t, const clang::ASTContext &ctx) {
  clang::QualType bare = t.getNonReferenceType().getCanonicalType();
  const auto *spec =
      llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(bare->getAsCXXRecordDecl());
  if (!spec || !spec->isInStdNamespace() || !spec->getIdentifier() || spec->getName() != "complex")
    return std::nullopt;
  auto elem = scalarTypeOf(spec->getTemplateArgs()[0].getAsType(), ctx);
  if (!elem || !elem->isFloating())
    return std::nullopt;
  return elem;
}

bool inEigenNamespace(const clang::Decl *d) {
  const clang::DeclContext *dc = d ? d->getDeclContext() : nullptr;
  const clang::NamespaceDecl *top = nullptr;
  for (; dc; dc = dc->getParent())
    if (const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(dc))
      top = ns;
  return top && top->getName() == "Eigen";
}

/// Why a type of Eigen other than a fixed-size Matrix or Array (an
/// expression template, a Map, a Quaternion) is refused; empty for others.
static std::string otherEigenType(clang::QualType t, const clang::ASTContext &ctx) {
  const clang::CXXRecordDecl *rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  if (!rd || !inEigenNamespace(rd))
    return "";
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressTagKeyword = true;
  std::string name = rd->getName().str();
  if (name == "Matrix" || name == "Array")
    return ""; // eigenShapeOf's
  if (name == "Map")
    return "this 'Eigen::Map' is not supported; a Map of a fixed-size matrix with the default "
           "strides may be a local made from a pointer (Eigen::Map<const Eigen::Vector3d> "
           "v(x)); elsewhere copy the coefficients into a fixed-size matrix";
  if (name == "Ref" || name == "Block")
    return "'Eigen::" + name + "' is not supported; copy the coefficients into a fixed-size "
           "matrix (Eigen::Vector3d v = ...)";
  if (name.find("Op") != std::string::npos || name == "Product" || name == "Transpose" ||
      name.find("Wrapper") != std::string::npos || name == "Diagonal" || name == "Replicate" ||
      name == "Reverse" || name == "Select")
    return "a variable holding an Eigen expression ('auto x = a + b') is not supported; give "
           "it a matrix type (Eigen::Vector3d x = a + b)";
  return "'" + t.getUnqualifiedType().getAsString(policy) + "' is not supported; of Eigen's "
         "types, cgp-ad differentiates the fixed-size Eigen::Matrix and Eigen::Array";
}

std::optional<EigenShape> eigenShapeOf(clang::QualType t, const clang::ASTContext &ctx,
                                       std::string *problem) {
  clang::QualType bare = t.getNonReferenceType().getCanonicalType();
  const auto *spec =
      llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(bare->getAsCXXRecordDecl());
  if (!spec || !spec->getIdentifier() ||
      (spec->getName() != "Matrix" && spec->getName() != "Array"))
    return std::nullopt;
  const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(spec->getDeclContext());
  if (!ns || ns->getName() != "Eigen" || !ns->getParent()->isTranslationUnit())
    return std::nullopt;
  const clang::TemplateArgumentList &args = spec->getTemplateArgs();
  if (args.size() < 4 || args[1].getKind() != clang::TemplateArgument::Integral ||
      args[2].getKind() != clang::TemplateArgument::Integral ||
      args[3].getKind() != clang::TemplateArgument::Integral)
    return std::nullopt;
  auto elem = scalarTypeOf(args[0].getAsType(), ctx);
  if (!elem || !elem->isFloating())
    return std::nullopt;
  EigenShape shape;
  shape.elem = *elem;
  shape.rows = static_cast<int>(args[1].getAsIntegral().getExtValue());
  shape.cols = static_cast<int>(args[2].getAsIntegral().getExtValue());
  shape.isArray = spec->getName() == "Array";
  bool rowMajor = (args[3].getAsIntegral().getExtValue() & 1) != 0; // Eigen::RowMajor
  std::string why;
  if (shape.rows <= 0 || shape.cols <= 0)
    why = "Eigen matrices of dynamic size are not supported; use fixed sizes "
          "(Eigen::Matrix<T, R, C>, Vector3d, Matrix4d)";
  else if (shape.size() > 64)
    why = "Eigen matrices of more than 64 coefficients are not supported";
  else if (rowMajor && shape.rows > 1 && shape.cols > 1)
    why = "row-major Eigen matrices are not supported; use the default column-major storage";
  if (!why.empty()) {
    if (problem)
      *problem = why;
    return std::nullopt;
  }
  return shape;
}

std::optional<EigenShape> eigenMapShapeOf(clang::QualType t, const clang::ASTContext &ctx) {
  clang::QualType bare = t.getNonReferenceType().getCanonicalType();
  const auto *spec =
      llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(bare->getAsCXXRecordDecl());
  if (!spec || !spec->getIdentifier() || spec->getName() != "Map" || !inEigenNamespace(spec))
    return std::nullopt;
  const clang::TemplateArgumentList &args = spec->getTemplateArgs();
  if (args.size() < 1 || args[0].getKind() != clang::TemplateArgument::Type)
    return std::nullopt;
  // Map<M, Options, Stride>: only the default (unaligned, contiguous) strides.
  if (args.size() >= 3 && args[2].getKind() == clang::TemplateArgument::Type) {
    const auto *stride = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
        args[2].getAsType()->getAsCXXRecordDecl());
    if (!stride || stride->getTemplateArgs().size() != 2 ||
        stride->getTemplateArgs()[0].getAsIntegral() != 0 ||
        stride->getTemplateArgs()[1].getAsIntegral() != 0)
      return std::nullopt;
  }
  return eigenShapeOf(args[0].getAsType(), ctx);
}

clang::QualType vectorOfStructsElement(clang::QualType t, const clang::ASTContext &ctx) {
  const auto *spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(
      t.getNonReferenceType()->getAsCXXRecordDecl());
  if (!spec || !spec->isInStdNamespace() || spec->getName() != "vector" ||
      spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != clang::TemplateArgument::Type)
    return {};
  clang::QualType element = spec->getTemplateArgs()[0].getAsType();
  const clang::CXXRecordDecl *rd = element->getAsCXXRecordDecl();
  if (!rd || rd->isLambda() || (rd->isInStdNamespace() && !complexElement(element, ctx)))
    return {};
  return element;
}

ScalarType sizeType(const clang::ASTContext &ctx) {
  return *scalarTypeOf(ctx.getSizeType(), ctx);
}

namespace {
/// `name` without the anonymous namespaces it names, which no code can spell.
std::string withoutAnonymousNamespaces(std::string name) {
  const std::string anon = "(anonymous namespace)::";
  for (size_t at; (at = name.find(anon)) != std::string::npos;)
    name.erase(at, anon.size());
  return name;
}
} // namespace

bool isLambdaType(clang::QualType t) {
  const auto *rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  return rd && rd->isLambda();
}

std::string globalName(const clang::NamedDecl *d) {
  return withoutAnonymousNamespaces("::" + d->getQualifiedNameAsString());
}

std::string globalTypeName(clang::QualType t, const clang::ASTContext &ctx) {
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressTagKeyword = true;
  return withoutAnonymousNamespaces(clang::TypeName::getFullyQualifiedName(
      t.getUnqualifiedType(), ctx, policy, /*WithGlobalNsPrefix=*/true));
}

std::string templateArguments(const clang::FunctionDecl *fd, const clang::ASTContext &ctx) {
  const clang::TemplateArgumentList *args = fd->getTemplateSpecializationArgs();
  if (!args)
    return "";
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressTagKeyword = true;
  policy.FullyQualifiedName = true;
  std::string text;
  llvm::raw_string_ostream os(text);
  clang::printTemplateArgumentList(os, args->asArray(), policy);
  return os.str();
}

std::shared_ptr<const TemplateKernel> describeTemplateKernel(const clang::FunctionDecl *pattern,
                                                             const clang::ASTContext &ctx) {
  clang::PrintingPolicy policy(ctx.getLangOpts());
  policy.SuppressTagKeyword = true;
  auto t = std::make_shared<TemplateKernel>();
  const clang::FunctionTemplateDecl *ftd = pattern->getDescribedFunctionTemplate();
  {
    llvm::raw_string_ostream os(t->head);
    ftd->getTemplateParameters()->print(os, ctx, policy);
  }
  while (!t->head.empty() && t->head.back() == ' ')
    t->head.pop_back();
  t->returnType = pattern->getReturnType().getAsString(policy);
  for (const clang::ParmVarDecl *p : pattern->parameters()) {
    clang::QualType type = p->getType();
    t->paramNames.push_back(p->getName().empty() ? "arg" + std::to_string(t->paramNames.size())
                                                 : p->getNameAsString());
    t->paramTypes.push_back(type.getAsString(policy));
    // d_p: a pointer to the value's own type; t_p: what a by-value scalar,
    // a pointer or a reference gets in forward mode (interface section 3).
    clang::QualType value = type;
    if (type->isReferenceType())
      value = type.getNonReferenceType();
    else if (type->isPointerType())
      value = type->getPointeeType();
    std::string bare = value.getUnqualifiedType().getAsString(policy);
    t->adjointTypes.push_back(bare + " *");
    if (type->isPointerType())
      t->tangentTypes.push_back(type.getAsString(policy));
    else if (type->isReferenceType() && !value.isConstQualified())
      t->tangentTypes.push_back(bare + " *");
    else
      t->tangentTypes.push_back(bare);
  }
  return t;
}

namespace {

/// Why copying a struct of type `rd` member by member is not what its own
/// code does: a copy constructor, an assignment or a destructor it defines
/// (a class that owns memory). Empty when it copies as its members do.
std::string ownCopyProblem(const clang::CXXRecordDecl *rd, clang::QualType t) {
  std::string what;
  for (const clang::CXXConstructorDecl *ctor : rd->ctors())
    if (what.empty() && ctor->isUserProvided() && ctor->isCopyOrMoveConstructor())
      what = "defines its own copy or move constructor";
  for (const clang::CXXMethodDecl *m : rd->methods())
    if (what.empty() && m->isUserProvided() &&
        (m->isCopyAssignmentOperator() || m->isMoveAssignmentOperator()))
      what = "defines its own assignment";
  if (const clang::CXXDestructorDecl *dtor = rd->getDestructor();
      what.empty() && dtor && dtor->isUserProvided()) {
    const auto *body = llvm::dyn_cast_or_null<clang::CompoundStmt>(dtor->getBody());
    if (!body || !body->body_empty())
      what = "has a destructor that does something";
  }
  if (what.empty())
    return "";
  return "'" + t.getUnqualifiedType().getAsString() + "' " + what + "; classes that manage "
         "their own memory are not supported yet (hold the elements in a std::vector member "
         "instead)";
}

} // namespace

bool isStandardLibraryRecord(const clang::CXXRecordDecl *rd) {
  return rd && (rd->isInStdNamespace() ||
                llvm::StringRef(rd->getQualifiedNameAsString()).starts_with("__gnu_cxx::"));
}

std::string leafVarName(const std::string &base, const RecordLeaf &leaf) {
  if (leaf.path.empty())
    return base;
  return base.empty() ? leaf.path : base + "_" + leaf.path;
}

std::string leafSpelling(const std::string &base, const RecordLeaf &leaf) {
  std::string out = base;
  for (const clang::FieldDecl *field : leaf.fields)
    out += (out.empty() ? "" : ".") + field->getNameAsString();
  if (leaf.complexPart >= 0)
    out += leaf.complexPart == 0 ? ".real()" : ".imag()";
  return out;
}

std::string flattenRecord(clang::QualType t, const clang::ASTContext &ctx,
                          std::vector<RecordLeaf> &out, bool vectors) {
  auto complexLeaves = [&](const std::vector<const clang::FieldDecl *> &fields,
                           const std::string &path, const ScalarType &elem) {
    for (int part = 0; part < 2; ++part) {
      RecordLeaf leaf;
      leaf.fields = fields;
      leaf.path = (path.empty() ? "" : path + "_") + (part == 0 ? "re" : "im");
      leaf.elem = elem;
      leaf.complexPart = part;
      out.push_back(leaf);
    }
  };
  auto eigenLeaf = [&](const std::vector<const clang::FieldDecl *> &fields,
                       const std::string &path, const EigenShape &shape) {
    RecordLeaf leaf;
    leaf.fields = fields;
    leaf.path = path;
    leaf.elem = shape.elem;
    leaf.dims = {shape.size()};
    leaf.eigen = true;
    out.push_back(leaf);
  };
  if (std::optional<ScalarType> elem = complexElement(t, ctx)) {
    complexLeaves({}, "", *elem);
    return "";
  }
  std::string eigenProblem;
  if (std::optional<EigenShape> shape = eigenShapeOf(t, ctx, &eigenProblem)) {
    eigenLeaf({}, "", *shape);
    return "";
  }
  if (!eigenProblem.empty())
    return eigenProblem;
  if (std::string problem = otherEigenType(t, ctx); !problem.empty())
    return problem;
  const clang::CXXRecordDecl *rd = t->getAsCXXRecordDecl();
  if (!rd || !rd->hasDefinition())
    return "variables of type '" + t.getAsString() + "' are not supported";
  if (rd->isLambda())
    return "lambdas are not supported";
  if (isStandardLibraryRecord(rd)) {
    // Said in the user's words: the library's own members (an iterator's
    // `_M_current`) mean nothing to them.
    clang::PrintingPolicy policy(ctx.getLangOpts());
    policy.SuppressTagKeyword = true;
    std::string spelled = t.getUnqualifiedType().getAsString(policy);
    if (rd->getName().contains("iterator"))
      return "an iterator of the standard library held in a variable ('" + spelled +
             "') is not supported; index the container (v[i]) or loop with a range-based for";
    return "'" + spelled +
           "' is not supported; of the standard library's types, cgp-ad differentiates "
           "std::vector and std::array of numbers, and std::complex<float|double>";
  }
  if (rd->isUnion())
    return "unions are not supported";
  if (rd->isPolymorphic() || rd->getNumBases() > 0)
    return "structs with base classes or virtual functions are not supported";
  if (!rd->isTriviallyCopyable()) {
    std::string problem = ownCopyProblem(rd, t);
    if (!problem.empty())
      return problem;
  }
  std::vector<const clang::FieldDecl *> prefix;
  auto visit = [&](const clang::CXXRecordDecl *record, const std::string &path,
                   auto &self) -> std::string {
    for (const clang::FieldDecl *field : record->fields()) {
      std::string name = path.empty() ? field->getNameAsString()
                                      : path + "_" + field->getNameAsString();
      prefix.push_back(field);
      clang::QualType ft = field->getType();
      const clang::CXXRecordDecl *inner = ft->getAsCXXRecordDecl();
      std::optional<ContainerType> container = containerTypeOf(ft, ctx);
      if (inner && container)
        inner = nullptr; // a std::array member is an array leaf
      std::optional<EigenShape> eigen = eigenShapeOf(ft, ctx, &eigenProblem);
      if (!eigenProblem.empty())
        return "member '" + field->getNameAsString() + "': " + eigenProblem;
      if (std::string other = otherEigenType(ft, ctx); !other.empty())
        return "member '" + field->getNameAsString() + "': " + other;
      if (std::optional<ScalarType> elem = complexElement(ft, ctx)) {
        complexLeaves(prefix, name, *elem);
      } else if (eigen) {
        eigenLeaf(prefix, name, *eigen);
      } else if (container && container->isVector) {
        if (!vectors)
          return "member '" + field->getNameAsString() + "' is a std::vector; structs holding "
                 "vectors are supported as locals and helper parameters only";
        RecordLeaf leaf;
        leaf.fields = prefix;
        leaf.path = name;
        leaf.elem = container->elem;
        leaf.isVector = true;
        out.push_back(leaf);
      } else if (inner) {
        if (!inner->isTriviallyCopyable() && inner->isInStdNamespace())
          return "member '" + field->getNameAsString() + "' of type '" + ft.getAsString() +
                 "' is not supported";
        if (!inner->isTriviallyCopyable()) {
          std::string problem = ownCopyProblem(inner, ft);
          if (!problem.empty())
            return problem;
        }
        if (inner->isLambda())
          return "member '" + field->getNameAsString() +
                 "' is a lambda; storing a lambda in a struct is not supported";
        if (inner->isUnion() || inner->isPolymorphic() || inner->getNumBases() > 0)
          return "member '" + field->getNameAsString() + "' has a type that is not supported";
        std::string problem = self(inner, name, self);
        if (!problem.empty())
          return problem;
      } else {
        Var shape;
        std::string problem = describeVarType(ft, ctx, shape);
        if (!problem.empty() || shape.isPointer() || shape.isReference)
          return "member '" + field->getNameAsString() + "' of type '" + ft.getAsString() +
                 "' is not supported";
        if (field->isBitField())
          return "bit-field members are not supported";
        RecordLeaf leaf;
        leaf.fields = prefix;
        leaf.path = name;
        leaf.elem = shape.elem;
        leaf.dims = shape.dims;
        out.push_back(leaf);
      }
      prefix.pop_back();
    }
    return "";
  };
  std::string problem = visit(rd, "", visit);
  // Eigen's matrices define their copies, which copy the coefficients.
  bool eigenMembers =
      std::any_of(out.begin(), out.end(), [](const RecordLeaf &l) { return l.eigen; });
  if (problem.empty() && !vectors && !rd->isTriviallyCopyable() && !eigenMembers)
    return "structs that are not trivially copyable (such as '" + t.getAsString() +
           "') are not supported here";
  return problem;
}

} // namespace cgp
