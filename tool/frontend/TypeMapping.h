//===- TypeMapping.h - Clang types to IR types ------------------*- C++ -*-===//
//
// The IR knows scalars (bool, integers, enumerations, float, double),
// pointers to scalars and fixed-size arrays of scalars (1-D and 2-D). This
// maps a Clang type to that shape, or says why it cannot. A reference to a
// scalar is a pointer of extent one (non-const) or a scalar (const), marked
// Var::isReference so that it is still declared as a reference.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_FRONTEND_TYPEMAPPING_H
#define CGP_FRONTEND_TYPEMAPPING_H

#include "ir/IR.h"

#include "clang/AST/ASTContext.h"

#include <optional>
#include <string>

namespace cgp {

/// The scalar type of a builtin Clang type, or nothing if it is not one the
/// IR handles (long double, vectors, class types...).
std::optional<ScalarType> scalarTypeOf(clang::QualType t, const clang::ASTContext &ctx);

/// The shape of a variable of type `t`: fills elem, shape, dims and isConst
/// of `out`. Returns an empty string on success, else what is unsupported.
std::string describeVarType(clang::QualType t, const clang::ASTContext &ctx, Var &out);

/// A standard container that cgp-ad lowers to what the IR has: a
/// `std::array<T, N>` is an array of N scalars (nested ones a 2-D array), a
/// `std::vector<T>` a buffer with its size next to it.
struct ContainerType {
  bool isVector = false;       // std::vector (else std::array)
  ScalarType elem;             // T
  std::vector<int64_t> dims;   // std::array's extents (one or two)
  std::string spelling;        // "std::vector<double>", "std::array<double, 4>"
};

/// The container `t` (references and const looked through) is, or nothing
/// for other types. Containers of other element types (structs, vectors of
/// vectors) are nothing too; `problem` then says why, if `t` is a container.
std::optional<ContainerType> containerTypeOf(clang::QualType t, const clang::ASTContext &ctx,
                                             std::string *problem = nullptr);

/// The number type of `std::complex<float>` or `std::complex<double>`
/// (references and const looked through), or nothing for other types. A
/// complex number is a struct of two leaves, `re` and `im`, in that order:
/// the layout the standard guarantees (an array of two numbers).
std::optional<ScalarType> complexElement(clang::QualType t, const clang::ASTContext &ctx);

/// Whether `d` is declared in namespace Eigen or one nested in it.
bool inEigenNamespace(const clang::Decl *d);

/// An Eigen dense type of fixed size, `Eigen::Matrix<T, R, C>` or
/// `Eigen::Array<T, R, C>` (references and const looked through).
struct EigenShape {
  ScalarType elem;
  int rows = 0, cols = 0;
  bool isArray = false; // Eigen::Array: `*` and `/` are element-wise
  int size() const { return rows * cols; }
};
/// The shape of `t` if it is such a type with floating elements; nothing
/// for other types. `problem`, where given, says why an Eigen matrix or
/// array of `t`'s kind is refused (dynamic sizes, row-major storage).
std::optional<EigenShape> eigenShapeOf(clang::QualType t, const clang::ASTContext &ctx,
                                       std::string *problem = nullptr);

/// The shape of the matrix an `Eigen::Map<M>` of a fixed-size M (with the
/// default strides) views; nothing for other types.
std::optional<EigenShape> eigenMapShapeOf(clang::QualType t, const clang::ASTContext &ctx);

/// The element type of `t` (references and const looked through) when it is
/// a std::vector of structs (of complex numbers too), else a null type.
clang::QualType vectorOfStructsElement(clang::QualType t, const clang::ASTContext &ctx);

/// The type of `v.size()`: std::size_t, as the platform spells it.
ScalarType sizeType(const clang::ASTContext &ctx);

/// A leaf member of a struct (a scalar or an array of scalars), reached from
/// the struct through `fields` (nested structs first).
struct RecordLeaf {
  std::vector<const clang::FieldDecl *> fields;
  std::string path;            // "pos_x": the field names joined by '_'
  ScalarType elem;
  std::vector<int64_t> dims;   // empty for a scalar
  /// A std::vector member: a buffer of `elem` with its size, like a vector
  /// local (dims empty).
  bool isVector = false;
  /// A part of a std::complex: 0 the real part, 1 the imaginary part
  /// (`fields` ends at the complex member itself, or is empty for a complex
  /// value on its own); -1 for other leaves.
  int complexPart = -1;
  /// An Eigen matrix (`fields` ends at it, or is empty for a matrix on its
  /// own): one array leaf of its coefficients in the order of `data()`.
  bool eigen = false;
};

/// The name of the variable that holds `leaf` of a struct named `base`
/// (`p_pos_x`; an Eigen matrix on its own keeps `base`).
std::string leafVarName(const std::string &base, const RecordLeaf &leaf);

/// A class of the standard library, its own (std::) or its implementation's
/// (libstdc++'s __gnu_cxx::, where vector's iterators live).
bool isStandardLibraryRecord(const clang::CXXRecordDecl *rd);

/// How the source spells leaf `leaf` of struct `base` (`st.pos.x`,
/// `z.real()`); `base` may be empty (a helper's struct parameter, unnamed).
std::string leafSpelling(const std::string &base, const RecordLeaf &leaf);

/// The leaves of struct type `t`, in declaration order. Returns an empty
/// string on success, else why the struct cannot be split into leaves.
/// With `vectors`, members that are std::vectors of numbers are leaves too
/// (a struct holding them is not trivially copyable, but copies as its
/// members do unless it defines its own copies or destructor).
std::string flattenRecord(clang::QualType t, const clang::ASTContext &ctx,
                          std::vector<RecordLeaf> &out, bool vectors = false);

/// True for a lambda's closure type (references and const looked through).
bool isLambdaType(clang::QualType t);

/// The name that reaches `d` from anywhere in the translation unit:
/// "::ns::name", leaving out anonymous namespaces.
std::string globalName(const clang::NamedDecl *d);
/// A type as any scope of the translation unit names it, template arguments
/// included: "::ns::Params<double>".
std::string globalTypeName(clang::QualType t, const clang::ASTContext &ctx);

/// The template arguments of an instantiated function template as a call
/// spells them ("<double, 4>"); empty for other functions.
std::string templateArguments(const clang::FunctionDecl *fd, const clang::ASTContext &ctx);

/// The generic declaration of a marked function template (`pattern`), from
/// which its entry points' primary templates are declared.
std::shared_ptr<const TemplateKernel> describeTemplateKernel(const clang::FunctionDecl *pattern,
                                                             const clang::ASTContext &ctx);

} // namespace cgp

#endif // CGP_FRONTEND_TYPEMAPPING_H
