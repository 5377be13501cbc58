//===- Lowering.h - Clang AST to the kernel IR ------------------*- C++ -*-===//
//
// Lowers a marked kernel, and every helper it calls whose body is visible,
// from Clang's AST into the IR. This is the only place that sees the AST.
// Anything outside the supported language gets a Clang-style error naming
// the kernel and the construct, and no IR.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_FRONTEND_LOWERING_H
#define CGP_FRONTEND_LOWERING_H

#include "frontend/Diagnoser.h"
#include "frontend/KernelFinder.h"
#include "frontend/TypeMapping.h"
#include "ir/IR.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cgp {

/// True for memory the function may not write: a global, or a const
/// parameter's elements (a const local is set where it is declared).
inline bool isReadOnly(const Var *v) {
  return v->origin == Var::Global || (v->isConst && v->origin != Var::Local);
}

/// Why a write to `v`, read-only, is refused. A parameter C++ lets the
/// function write is one taken by value (a struct holding an array, an
/// Eigen matrix, a container) whose elements are read in the caller's
/// argument.
inline std::string readOnlyWrite(const Var *v) {
  std::string name = v->spelling.empty() ? v->name : v->spelling;
  if (v->origin == Var::Param)
    return "assigns to '" + name + "', a parameter taken by value whose elements cgp-ad reads "
           "in the caller's argument; copy it into a local and change the copy";
  return "assigns to the constant '" + name + "'";
}

/// `e` without what C++ wraps around a value it copies or keeps alive:
/// parentheses, temporaries (materialised, bound, cleaned up) and copy or
/// move constructions (LowerExpr.cpp).
const clang::Expr *withoutTemporaries(const clang::Expr *e);

/// `e` without the nodes that only carry a value along: withoutTemporaries',
/// no-op and derived-to-base conversions (Eigen takes `const MatrixBase<D>&`)
/// and constructor conversions, `T(x)` included (LowerExpr.cpp).
const clang::Expr *withoutValueCarriers(const clang::Expr *e);

/// The function a call or a construction calls; null for other expressions.
const clang::FunctionDecl *calleeOf(const clang::Expr *e);

/// The function of Eigen a call or construction calls; null for others.
const clang::FunctionDecl *eigenCallee(const clang::Expr *e);

class Lowering {
public:
  Lowering(clang::ASTContext &ctx, Diagnoser &diag, Module &module)
      : ctx_(ctx), diag_(diag), module_(module) {}

  /// Lowers the kernel of `request` and the helpers it calls. Returns null
  /// after reporting an error.
  Function *lowerKernel(const KernelRequest &request);

  /// Functions with a custom pullback (CGP_PULLBACK_OF): a call of one of
  /// them calls that pullback in the reverse sweep.
  void setPullbacks(std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> pullbacks) {
    pullbacks_ = std::move(pullbacks);
  }

private:
  /// Thrown (and caught in lowerKernel) when the source uses something the
  /// IR cannot express.
  struct Unsupported {
    clang::SourceLocation loc;
    std::string message;
  };
  [[noreturn]] void unsupported(clang::SourceLocation loc, const std::string &what);
  [[noreturn]] void unsupported(const clang::Stmt *s, const std::string &what);

  /// How deeply expressions and statements may nest. Lowering and every pass
  /// after it recurse over the tree, so a deeper one (a sum of 3000 terms
  /// written in one expression) could exhaust the stack; Clang itself stops
  /// parentheses at 256 levels.
  static constexpr int kMaxNesting = 256;
  int nesting_ = 0;
  /// Counts one level down for the life of the object; past kMaxNesting,
  /// `s` is unsupported.
  struct NestingLevel {
    NestingLevel(Lowering &l, const clang::Stmt *s);
    ~NestingLevel() { --lowering.nesting_; }
    Lowering &lowering;
  };

  Function *lowerFunction(const clang::FunctionDecl *fd);
  /// A Function with `fd`'s name, namespaces, result and parameters.
  Function *lowerSignature(const clang::FunctionDecl *fd);
  /// The Function of a function with a custom pullback (with its body when
  /// that is visible and supported).
  Function *lowerCustom(const clang::FunctionDecl *fd, const clang::FunctionDecl *pullback);

  // Statements (Lowering.cpp).
  StmtRef lowerStmt(const clang::Stmt *s);
  /// True if `s` holds a `return` statement.
  static bool hasReturn(const clang::Stmt *s);
  StmtRef lowerDecl(const clang::VarDecl *vd);
  StmtRef lowerExprStmt(const clang::Expr *e);
  StmtRef lowerExprStmtAlone(const clang::Expr *e);
  StmtRef lowerThrow(const clang::CXXThrowExpr *e);
  StmtRef lowerSwitch(const clang::SwitchStmt *s);
  /// The condition of an `if` or a `switch`, with the statements it needs
  /// appended to `before`.
  ExprRef lowerCondition(const clang::Expr *c, std::vector<StmtRef> &before);
  /// `s` (at `loc`) with the statements its condition needs before it.
  StmtRef afterCondition(std::vector<StmtRef> before, StmtRef s, clang::SourceLocation loc);
  /// A `while` or `for` loop whose condition `cond` needs the statements
  /// `before`: its condition becomes `true`, its body `{ before; if
  /// (!cond) break; body }`.
  std::pair<ExprRef, StmtRef> conditionInBody(std::vector<StmtRef> before, ExprRef cond,
                                              StmtRef body);
  /// True when `body` holds a `continue` of the loop whose body it is.
  static bool continuesLoop(const clang::Stmt *body);
  StmtRef lowerArrayInit(Var *array, const clang::Expr *init);
  /// A std::array's braced list is a list holding the list of its elements:
  /// that inner list (`l` itself for other lists).
  const clang::InitListExpr *stdArrayElements(const clang::InitListExpr *l);
  /// A std::array local initialised other than by a braced list (a copy,
  /// `std::array<double, 4> h;`): its statements, or null for a list.
  StmtRef lowerStdArrayInit(Var *array, const clang::Expr *init);
  /// `std::vector<double> v(n);` and the other ways to make a vector local.
  StmtRef lowerVectorDecl(const clang::VarDecl *vd, const ContainerType &c);
  /// What a std::vector starts with: its count, and its elements (listed
  /// ones, or a value at each index: a constant, a copy's element).
  struct VectorInit {
    ExprRef count;
    std::optional<int64_t> constantCount; // where C++ knows it at compile time
    std::function<ExprRef(ExprRef)> valueAt;
    std::vector<const clang::Expr *> listed;
  };
  VectorInit vectorInit(const clang::Expr *init, const ContainerType &c, const std::string &name,
                        clang::SourceLocation loc);
  /// The braced items of a std::initializer_list argument (`v{a, b}`,
  /// `v = {a, b}`), or null when `arg` is none.
  const clang::InitListExpr *initializerListItems(const clang::Expr *arg);
  /// The same from the arguments of a constructor or of `assign`: (n),
  /// (n, value), (first, last), (other), an initialiser list, or none.
  VectorInit vectorContents(const std::vector<const clang::Expr *> &args, const ContainerType &c,
                            const std::string &name, clang::SourceLocation loc);
  /// Sets the elements of `data` (`length` of them) as `init` says.
  void fillVector(Var *data, ExprRef length, const VectorInit &init, SourcePos pos,
                  std::vector<StmtRef> &out);
  /// A vector's size parameter `name_size` (read-only, std::size_t),
  /// appended to `f`'s parameters.
  Var *addSizeParam(const std::string &name, const SourcePos &pos, Function *f);
  /// Sizes and fills the buffer of vector `v` (a struct's member) from the
  /// std::vector expression `init` (`d(n, 0.0)` in a constructor).
  void initVector(Var *v, const clang::Expr *init, std::vector<StmtRef> &out);
  /// Gives the buffer `v` owns the size in its size variable.
  void resizeBuffer(Var *v, std::vector<StmtRef> &out);
  /// `to = from` on two vectors: `from`'s size (`fromSize`) and elements.
  void copyVector(Var *to, Var *from, ExprRef fromSize, clang::SourceLocation loc,
                  std::vector<StmtRef> &out);
  /// The size of the vector local `vd` if it can be a plain array: sized
  /// once by a compile-time `count`, small, and never resized.
  std::optional<int64_t> fixedVectorSize(const clang::VarDecl *vd, std::optional<int64_t> count);

  // Expressions (LowerExpr.cpp).
  ExprRef lowerExpr(const clang::Expr *e);
  ExprRef lowerCast(const clang::CastExpr *e);
  ExprRef lowerDeclRef(const clang::DeclRefExpr *e);
  ExprRef lowerSubscript(const clang::ArraySubscriptExpr *e);
  ExprRef lowerUnary(const clang::UnaryOperator *e);
  ExprRef lowerBinary(const clang::BinaryOperator *e);
  ExprRef lowerCall(const clang::CallExpr *e);
  ExprRef lowerMathCall(const clang::CallExpr *e, const clang::FunctionDecl *callee);
  /// `sincos(x, &s, &c);` and the other calls of ir/MathTable.h's MathPair:
  /// `s = sin(x); c = cos(x);`. Null for other calls.
  StmtRef lowerMathPairCall(const clang::CallExpr *e);
  ExprRef lowerAddress(const clang::Expr *e);
  /// The element `pointer` points to (`&a[i]`, `&s`, `p`, `p + k`, a local
  /// pointer); null where the frontend cannot tell.
  ExprRef lowerPointee(const clang::Expr *pointer);
  ExprRef lowerLValue(const clang::Expr *e);
  /// The variable or element `e` names, as lowerLValue, but also a constant
  /// one (what a const reference is bound to).
  ExprRef lowerPlace(const clang::Expr *e);
  ExprRef convert(ExprRef e, const ScalarType &to);

  // Local pointers and references (LowerAliases.cpp).
  /// What a local pointer or reference stands for: an element of `base`
  /// (a pointer or array; a scalar for a reference to a scalar) at the
  /// indices `at`. A pointer's single index is its offset variable `offset`,
  /// which its moves (`++p`, `p += k`, `p = q`) update; a reference's
  /// indices are fixed when it is bound.
  struct Alias {
    Var *base = nullptr;
    std::vector<ExprRef> at;
    Var *offset = nullptr; // pointers only
    std::string name;
  };
  StmtRef lowerPointerDecl(const clang::VarDecl *vd);
  /// A local pointer or iterator `vd` pointing at `where` (an Address): its
  /// offset variable `vd_at`, declared by the statement returned, and its alias.
  StmtRef declareMovingAlias(const clang::VarDecl *vd, const ExprRef &where);
  StmtRef lowerReferenceDecl(const clang::VarDecl *vd);
  StmtRef lowerRangeFor(const clang::CXXForRangeStmt *s);
  /// The local pointer `e` names (through parentheses and conversions), or null.
  const Alias *pointerAlias(const clang::Expr *e);
  /// The element an alias stands for, as an lvalue (Index or VarRef).
  ExprRef aliasElement(const Alias &a);
  /// `p = q + k;`, `p += k;`, `++p;` on a local pointer: the statement that
  /// moves its offset; null when `e` does not move a local pointer.
  StmtRef lowerPointerMove(const clang::Expr *e);
  /// `p < q`, `p != end`, `q - p` on two pointers into one buffer.
  ExprRef lowerPointerCompare(const clang::BinaryOperator *e);
  /// The arguments of a call of `f`: an Address for a pointer parameter, the
  /// element's address for a non-const reference (a scalar variable goes
  /// through a one-element copy), a value otherwise.
  /// `skip` skips the first arguments (the object of an operator call).
  std::vector<ExprRef> lowerArgs(const clang::CallExpr *e, Function *f,
                                 std::vector<ExprRef> args = {}, unsigned skip = 0);
  /// Refuses a variable passed by const reference (by value in the IR) that
  /// the callee could change through another argument.
  void checkConstReferenceArgs(clang::SourceLocation loc, const Function *f,
                               const std::vector<ExprRef> &args);
  /// `v.norm()`: a call of the method's helper, the object's members first.
  ExprRef lowerMemberCall(const clang::CXXMemberCallExpr *e);
  /// The argument of reference parameter `param` of `f` for the scalar
  /// variable `x`: a one-element copy (`f_param`), copied back after the
  /// statement.
  ExprRef referenceCopy(Var *x, const Function *f, const Var *param, const clang::Expr *arg);
  /// Binds the non-constant indices of `element` to fresh integer locals
  /// (declared in `out`), so the element stays the same when they change.
  ExprRef bindIndices(ExprRef element, const std::string &name, std::vector<StmtRef> &out);

  // Struct locals (LowerRecords.cpp): one variable per leaf member.
  /// Where one leaf of a struct lives: the variable `var` itself (a scalar,
  /// a member array, a reference parameter) when `offset` is null, else the
  /// element of the 1-D buffer `var` at `offset` (a scalar filled by a call,
  /// `d_x[0]`; a member of an array of structs, `ps[i * 4 + 1]`; for a member
  /// array, its first element).
  struct LeafPlace {
    Var *var = nullptr;
    ExprRef offset;
    /// A std::vector member: the vector itself (a buffer and its size).
    bool isVector() const { return var->sizeVar && !offset; }
  };
  struct RecordLocal {
    std::vector<RecordLeaf> leaves;
    std::vector<LeafPlace> places; // one per leaf
    /// The variables of a split parameter's leaves (offsets are null there).
    std::vector<Var *> vars() const;
  };
  /// The leaves below a struct (a local, a parameter, an element of an
  /// array of structs, a temporary) or one of its nested struct members:
  /// where they live and the fields from there to each.
  struct RecordView {
    std::vector<LeafPlace> places;
    std::vector<std::vector<const clang::FieldDecl *>> fields;
    std::vector<std::vector<int64_t>> dims; // of each leaf (empty: a scalar)
  };
  const RecordLocal *recordLocal(const clang::Expr *e);
  RecordView recordView(const clang::Expr *e);
  /// The leaves of `record` below the fields `path`.
  static RecordView subView(const RecordView &whole, const std::vector<const clang::FieldDecl *> &path);
  static RecordView viewOf(const RecordLocal &record);

  // std::complex (LowerComplex.cpp): a struct of its two parts.
  struct ComplexValue {
    ExprRef re, im;
  };
  /// Whether `e` has type std::complex<float|double>.
  bool isComplex(const clang::Expr *e) const;
  /// Whether `e` makes a new complex number with the standard library's
  /// operations (a constructor, an operator, conj, polar, exp...).
  bool isComplexOperation(const clang::Expr *e);
  ScalarType complexType(const clang::Expr *e);
  void refuseComplexOnDevice(const clang::Expr *e);
  /// The parts of `e`, a complex number or a real one (imaginary part 0),
  /// in type `t`.
  ComplexValue complexValue(const clang::Expr *e, const ScalarType &t);
  /// The parts of the value a complex operation makes.
  ComplexValue complexResult(const clang::Expr *e);
  /// Sets the complex place `to` to `v`, the real part staged when the
  /// imaginary part reads it.
  void setComplex(const RecordView &to, const ComplexValue &v, std::vector<StmtRef> &out);
  /// Sets `to` to the value of the complex operation `value`.
  void fillComplex(const RecordView &to, const clang::Expr *value, std::vector<StmtRef> &out);
  /// real, imag, abs, arg, norm, == and != of complex numbers; null for
  /// other calls.
  ExprRef lowerComplexScalar(const clang::Expr *e);
  /// `z op= w`, `z = x`, `z.real(x)` as statements; null for other
  /// statements.
  StmtRef lowerComplexStmt(const clang::Expr *e);

  // Eigen's fixed-size matrices (LowerEigen.cpp): a struct of one array
  // leaf, its coefficients in the order of data().
  /// The coefficients of an Eigen value, column by column.
  struct EigenValue {
    int rows = 0, cols = 0;
    bool isArray = false; // an Eigen::Array expression: `*` is element-wise
    ScalarType elem;
    std::vector<ExprRef> at; // (r, c) at r + c * rows
    ExprRef coeff(int r, int c) const { return at[r + c * rows]; }
  };
  /// A matrix in memory, or a block of one: coefficient (r, c) is
  /// `var[offset + r * rowStride + c * colStride]`.
  struct EigenView {
    Var *var = nullptr;
    ExprRef offset;
    int rows = 0, cols = 0;
    int64_t rowStride = 1, colStride = 1;
    bool isArray = false;
    ScalarType elem;
    ExprRef at(const ExprRef &r, const ExprRef &c) const;
    EigenValue value() const;
    /// A whole rows x cols matrix, column by column from `var[offset]`.
    static EigenView contiguous(Var *var, ExprRef offset, int rows, int cols, bool isArray,
                                const ScalarType &elem);
  };
  /// Whether `e` has a type of Eigen (a matrix, an array, an expression).
  bool isEigen(const clang::Expr *e) const;
  /// `Eigen::Map<const Eigen::Vector3d> p(x + 3 * i);`: `p` stands for the
  /// coefficients in the buffer from there on, a view kept in eigenMaps_.
  StmtRef lowerEigenMapDecl(const clang::VarDecl *vd);
  /// The view a Map of a fixed-size matrix gives (`Map<const Vector3d>(x)`).
  EigenView eigenMapView(const clang::Expr *pointer, const EigenShape &shape,
                         const clang::Expr *at);
  std::map<const clang::VarDecl *, EigenView> eigenMaps_;
  /// Whether `e` is made by Eigen's own functions (an operator, a method, a
  /// constructor), as opposed to a helper of the user returning a matrix.
  bool isEigenOperation(const clang::Expr *e);
  /// The matrix in memory `e` names (a variable, a member, a block of one);
  /// nothing for a value Eigen computes.
  std::optional<EigenView> eigenView(const clang::Expr *e);
  /// transpose, col, row, block, head, tail, segment, array, matrix, ...:
  /// the methods that view part of a matrix.
  static bool isBlockOperation(const clang::FunctionDecl *fd);
  EigenView blockOf(const EigenView &whole, const clang::CXXMemberCallExpr *call);
  EigenValue eigenValue(const clang::Expr *e);
  EigenValue eigenConstruct(const clang::CXXConstructExpr *e);
  EigenValue eigenCall(const clang::CallExpr *call, const clang::FunctionDecl *fd);
  EigenValue eigenProduct(const EigenValue &a, const EigenValue &b, const clang::Expr *at);
  EigenValue eigenInverse(const EigenValue &m, const clang::Expr *at);
  ExprRef eigenDeterminant(const EigenValue &m, const clang::Expr *at);
  /// The terms combined by `op`, split in halves as Eigen's reductions are.
  static ExprRef eigenSum(const std::vector<ExprRef> &terms, size_t first, size_t count,
                          BinaryOp op);
  static ExprRef eigenTree(const std::vector<ExprRef> &terms, size_t first, size_t count,
                           const std::function<ExprRef(ExprRef, ExprRef)> &combine);
  /// The coefficients of `v` (their squares) combined by `op`.
  static ExprRef eigenReduce(const EigenValue &v, BinaryOp op, bool squares);
  /// `value` in a fresh local declared before the statement.
  ExprRef eigenTemporary(const ExprRef &value, const std::string &name, const clang::Expr *at);
  /// `v` in a fresh local array declared and filled before the statement.
  EigenView eigenMaterialised(const EigenValue &v, const std::string &name, const clang::Expr *at);
  /// `v`, or `v` held in a temporary when its coefficients are computed and
  /// will be read more than once.
  EigenValue eigenShared(const EigenValue &v, const std::string &name, const clang::Expr *at);
  /// dot, norm, squaredNorm, sum, prod, mean, trace, determinant, value,
  /// coefficients; null for other expressions.
  ExprRef lowerEigenScalar(const clang::Expr *e);
  /// `v(i)`, `m(i, j)`, `v[i]`, `v.x()`, `coeffRef(i)`: the coefficient, an
  /// lvalue where the matrix is in memory; null for other calls.
  ExprRef lowerEigenCoefficient(const clang::CallExpr *call);
  /// Sets the coefficients of `to` to `value` (combined with their old
  /// values by `op` when `combine`).
  void setEigen(const EigenView &to, const EigenValue &value, BinaryOp op, bool combine,
                const clang::Expr *at, std::vector<StmtRef> &out);
  /// Sets the matrix `to` (a struct of one array leaf) to `init`.
  void fillEigen(const RecordView &to, const clang::Expr *init, std::vector<StmtRef> &out);
  /// `m = e`, `m += e`, `m *= s`, `m << a, b, c`, `setZero()`, `normalize()`
  /// as statements; null for other statements.
  StmtRef lowerEigenStmt(const clang::Expr *e);
  StmtRef lowerEigenCommaInit(const clang::CallExpr *call);

  // Calls lowered where they are made (LowerInlined.cpp).
  /// Calls being lowered where they are made (LowerInlined.cpp), innermost
  /// last: the object `this` names in each, and what its parameters stand
  /// for (a value or place, or a variable: a local copy, the caller's
  /// buffer). Valid while no helper called inside is being lowered
  /// (`depth`, the call stack's size).
  struct Inlined {
    const clang::FunctionDecl *fn = nullptr;
    size_t depth = 0;
    std::optional<RecordView> self;
    std::vector<std::pair<const clang::ParmVarDecl *, ExprRef>> values;
    std::vector<std::pair<const clang::ParmVarDecl *, Var *>> vars;
  };
  /// The expression an accessor returns (its body is one `return E;`, E an
  /// lvalue of a number without side effects); null for other functions.
  const clang::Expr *accessorResult(const clang::FunctionDecl *callee);
  /// A call of an accessor: the element it returns, with `this` and the
  /// parameters standing for the call's object and arguments. Null when
  /// the callee is no accessor or an argument cannot be bound.
  ExprRef lowerAccessorCall(const clang::CallExpr *e);
  /// Inside an accessor being lowered at a call: what parameter `vd` stands
  /// for (null for other variables), and the object `this` names.
  ExprRef inlinedParam(const clang::VarDecl *vd);
  /// Whether a call of `def` is being lowered where it is made.
  bool beingInlined(const clang::FunctionDecl *def) const;
  const RecordView *inlinedObject();
  /// Lowers `lower()` inside the call frame `frame` (its variables bound).
  template <class Lower> auto insideInlined(Inlined frame, Lower lower);
  /// The leaf member `e` (s.a.b) names: a view of one leaf.
  RecordView memberLeaf(const clang::Expr *e);
  StmtRef lowerRecordDecl(const clang::VarDecl *vd);
  /// The leaves of the struct local `vd` (a reference's referent too), as
  /// new locals named after it; `what` names it in a refusal.
  RecordLocal newRecordLocal(const clang::VarDecl *vd, const std::string &what);
  /// Declares leaf `v` of a struct local: a vector member empty.
  void declareLeaf(Var *v, std::vector<StmtRef> &out);
  /// Whether struct type `t` holds a std::vector (nested structs too).
  bool holdsVectors(clang::QualType t);
  /// `S s(args)` with the constructor the user wrote, for a struct holding
  /// vectors: the constructor's member initialisers and body, lowered where
  /// the object is built (they size its vectors, which only the function
  /// owning them may), its parameters locals set from the arguments.
  void inlineConstructor(const RecordView &to, const clang::CXXConstructExpr *construct,
                         std::vector<StmtRef> &out);
  /// Sets `to` from a braced list, an implicit constructor or another struct
  /// (`declared`: at its declaration, where default member values apply;
  /// `zeroRest`: without `init`, members without one are zero, as for an
  /// element a std::vector adds).
  void initRecord(const RecordView &to, const clang::Expr *init, bool declared,
                  std::vector<StmtRef> &out, bool zeroRest = false);
  void copyRecord(const RecordView &to, const RecordView &from, std::vector<StmtRef> &out);
  StmtRef lowerRecordAssign(const clang::CXXOperatorCallExpr *e);
  /// A struct parameter of a helper: one parameter per leaf member (a scalar
  /// by value for `S` and `const S&`, a reference for `S&`, a pointer for a
  /// member array), appended to `f`'s parameters.
  void lowerRecordParam(const clang::ParmVarDecl *p, Function *f);
  /// Appends to `f` one parameter per leaf of a parameter `name` of type `t`.
  RecordLocal splitRecordParam(const std::string &name, clang::QualType t,
                               clang::SourceLocation loc, Function *f);
  /// For a kernel: how the struct parameter `p` (the index-th) was split.
  void describeSplitParam(const clang::ParmVarDecl *p, int index, Function *f);
  /// `*this` of a method, split like a `const S&` (const method) or `S&`
  /// parameter into one parameter per member, named after the members.
  void lowerThisParam(const clang::CXXMethodDecl *md, Function *f);
  /// The value or place of a scalar leaf (`s_x`, the referent of a
  /// reference leaf, `d_x[0]`, `ps[i * 4 + 1]`).
  static ExprRef leafRef(const LeafPlace &p);
  static ExprRef leafRef(Var *v) { return leafRef(LeafPlace{v, nullptr}); }
  /// The k-th element (row-major) of an array leaf.
  static ExprRef leafElement(const LeafPlace &p, int64_t k);
  /// The address of an array leaf's first element.
  static ExprRef leafAddress(const LeafPlace &p);
  /// The arguments a struct argument gives the leaf parameters `params`.
  void lowerRecordArgs(const clang::Expr *arg, const Function *f, const std::vector<Var *> &params,
                       std::vector<ExprRef> &args);
  void viewArgs(const RecordView &view, const clang::Expr *arg, const Function *f,
                const std::vector<Var *> &params, std::vector<ExprRef> &args);
  static std::vector<ExprRef> elementAt(const Var *v, int64_t k); // k-th element, row-major (a pointer: k)
  /// A member of struct `t` (nested ones too) whose type has a default
  /// constructor the user wrote, which default initialisation would call.
  const clang::FieldDecl *memberWithConstructor(clang::QualType t);
  /// `e + k`, folded where `e` ends in a constant.
  static ExprRef plusConstant(ExprRef e, int64_t k);
  /// Sets the elements of the 1-D member array at `place` from the braced
  /// list `list` (missing ones zero).
  void initElements(const LeafPlace &place, const std::vector<int64_t> &dims,
                    const clang::Expr *list, std::vector<StmtRef> &out);

  // Struct values made by calls, operators and constructors
  // (LowerStructValues.cpp).
  /// The expression that makes the struct `e` stands for when it is a
  /// temporary (a call returning a struct, a constructor, a braced list),
  /// through parentheses, conversions and copies; null for an lvalue.
  static const clang::Expr *structRValue(const clang::Expr *e);
  /// True when `value` (a structRValue) is made by a call: of a function
  /// returning a struct, or of a constructor the user wrote.
  bool filledByCall(const clang::Expr *value);
  /// The struct `e` gives as a value: a variable's or member's leaves, or a
  /// temporary holding the value of a struct rvalue, made by statements run
  /// before the current statement.
  RecordView structValue(const clang::Expr *e);
  /// The view of a struct argument or initialiser (a copy made for a
  /// by-value parameter stands for what it copies).
  RecordView valueView(const clang::Expr *e);
  /// A fresh struct local of type `t`; `boxed`: its scalar leaves are
  /// one-element arrays (`d_x[1]`), so that a call can write them.
  RecordLocal newTemporary(clang::QualType t, const std::string &name, clang::SourceLocation loc,
                           bool boxed, std::vector<StmtRef> &out);
  /// The statements that fill the fresh struct `to` by the call `value`.
  void fillByCall(const RecordView &to, const clang::Expr *value, std::vector<StmtRef> &out);
  /// `Vec3 d = a - b;`, `Vec3 v(1, 2, 3);`: `d`'s leaves are filled by the call.
  StmtRef lowerFilledDecl(const clang::VarDecl *vd, const clang::Expr *value);
  /// A call of a helper the user wrote: a free function, a method (the
  /// object's members first), an operator, a constructor (the object being
  /// built first); `result`: the struct the call fills, passed last.
  ExprRef lowerUserCall(const clang::Expr *e, ScalarType type, const RecordView *result);
  /// `a[i]`, `a * b`: a call of an operator the user wrote, of scalar value.
  ExprRef lowerOperatorCall(const clang::CXXOperatorCallExpr *e);
  /// A call as a statement whose struct value is dropped (`acc += f;`).
  StmtRef lowerStructCallStmt(const clang::CallExpr *e);
  /// The return of a function returning a struct: its value into the result.
  StmtRef lowerStructReturn(const clang::ReturnStmt *s);
  /// A constructor's member initialisers, default member values included.
  void lowerMemberInits(const clang::CXXConstructorDecl *ctor, const RecordView &self,
                        std::vector<StmtRef> &out);
  /// The name of the function a call calls, for messages.
  static std::string calleeName(const clang::CallExpr *c);
  /// The arguments of `callee` from `cxxArgs` (see lowerArgs).
  std::vector<ExprRef> lowerArgList(const clang::FunctionDecl *callee,
                                    llvm::ArrayRef<const clang::Expr *> cxxArgs,
                                    clang::SourceLocation loc, Function *f,
                                    std::vector<ExprRef> args);

  // Arrays of structs (LowerStructArrays.cpp).
  /// An array of structs, seen as a flat buffer of their one floating type:
  /// element i's leaf l is `buffer[i * stride + offsets[l]]`.
  struct StructArray {
    Var *buffer = nullptr;
    std::vector<RecordLeaf> leaves;
    std::vector<int64_t> offsets; // of each leaf inside an element
    int64_t stride = 0;           // scalars per element
    /// A local std::vector of structs instead: one column per leaf (a
    /// buffer the function owns, as a vector local), element i's leaf l at
    /// `columns[l][i * w]` (w: 1, or a member array's extent), and the
    /// number of elements in `count`.
    std::vector<Var *> columns;
    Var *count = nullptr;
    bool owned = false; // a local, which may change its size (else a parameter)
  };
  /// The layout of struct `t` as an element of an array (`what` names the
  /// variable in messages); refuses structs with members of several types.
  StructArray structArrayLayout(clang::QualType t, const std::string &what,
                                clang::SourceLocation loc);
  /// Refuses a vector of structs parameter taken by value.
  void refuseVectorByValue(const clang::ParmVarDecl *p);
  /// A kernel's differentiated `std::vector<S>` parameter (S of one
  /// floating type, std::complex included): its elements as one flat
  /// buffer, as an array of structs, and its size.
  void lowerStructVectorKernelParam(const clang::ParmVarDecl *p, Function *f);
  /// For its entry points: the vector's data() seen as numbers, and size().
  void describeStructVectorParam(const clang::ParmVarDecl *p, int index, Function *f);
  /// A parameter holding structs of type `element` as one flat buffer: its
  /// pointer, appended to `f`'s parameters.
  StructArray flatStructParam(const clang::ParmVarDecl *p, clang::QualType element, bool isConst,
                              Function *f);
  /// `const S* ps`, `S* ps`, `S ps[]`: one pointer to the flat buffer.
  void lowerStructArrayParam(const clang::ParmVarDecl *p, Function *f);
  /// `S ps[N];`: a flat local array, initialised element by element.
  StmtRef lowerStructArrayDecl(const clang::VarDecl *vd);
  /// The array of structs `e` names (a parameter or local), or null.
  const StructArray *structArrayOf(const clang::Expr *e);
  /// The view of element `index` of `a`.
  RecordView elementView(const StructArray &a, ExprRef index);
  /// `ps[i]` on an array of structs: the view of that element.
  std::optional<RecordView> structElement(const clang::Expr *e);
  /// The array or vector of structs `e` indexes (`ps[i]`, `v[i]`, `v.at(i)`,
  /// `v.front()`, `v.back()`, `*ps`) and the index; null when it is none.
  const StructArray *indexedStructArray(const clang::Expr *e, ExprRef &index);
  /// The struct type of the elements of `t` if it is a std::vector of
  /// structs; null otherwise.
  const clang::CXXRecordDecl *structVectorElement(clang::QualType t);
  /// `std::vector<S> v(n);`, `(n, s)`, `(other)`, `{s1, s2}`, or empty.
  StmtRef lowerStructVectorDecl(const clang::VarDecl *vd);
  /// The leaves of struct `element` as columns of a vector of structs
  /// (`what` names the variable in messages); refuses 2-D member arrays.
  StructArray columnLayout(clang::QualType element, const std::string &what,
                           clang::SourceLocation loc);
  /// A fresh, empty local vector of structs `element` named `name`: its
  /// columns and count, declared in `out`.
  StructArray newStructVector(const std::string &name, clang::QualType element,
                              clang::SourceLocation loc, std::vector<StmtRef> &out);
  /// A helper's `const std::vector<S>& v` or `std::vector<S>& v`: one
  /// pointer parameter per column, then the count.
  void lowerStructVectorParam(const clang::ParmVarDecl *p, Function *f);
  /// The arguments for such a parameter: the columns of the vector of
  /// structs `arg` names, then its count. False if `param` is none.
  bool lowerStructVectorArg(const clang::Expr *arg, const clang::ParmVarDecl *param,
                            std::vector<ExprRef> &args);
  /// Sizes every column of `a` for its count.
  void resizeColumns(const StructArray &a, std::vector<StmtRef> &out);
  /// `v.push_back(s)`, `resize`, `clear`, `pop_back`, `reserve` on a vector
  /// of structs; null for other statements.
  StmtRef lowerStructVectorStmt(const clang::CXXMemberCallExpr *e);
  /// `v.size()`, `v.empty()` on a vector of structs; null otherwise.
  ExprRef lowerStructVectorValue(const clang::CXXMemberCallExpr *e);
  /// `for (S& p : ps)` and `for (S p : ps)` over an array or vector of structs.
  StmtRef lowerStructRangeFor(const clang::CXXForRangeStmt *s, const StructArray &a);
  /// `const S& p = ps[i];`, `S& b = c;`: `p` stands for that struct, its
  /// index bound once.
  StmtRef lowerRecordReference(const clang::VarDecl *vd);
  /// Scalars per element of the flat buffer `v` (0: not an array of structs).
  int64_t strideOf(const Var *v) const;

  // CUDA (LowerCuda.cpp).
  /// `threadIdx.x`, `blockDim.y`, ...: read as they are.
  ExprRef lowerCudaBuiltin(const clang::PseudoObjectExpr *e);
  /// `atomicAdd(&y[i], v);` as a statement: an atomic `y[i] += v`. Null for
  /// other statements.
  StmtRef lowerCudaCallStmt(const clang::CallExpr *e);
  /// Refuses the device intrinsics that are not supported yet (barriers,
  /// warp votes, atomics other than atomicAdd as a statement).
  void refuseCudaCall(const clang::CallExpr *e);
  /// A warp shuffle of a floating value: a call of a function whose pullback
  /// is in include/cgp/device.h. Null for other calls.
  ExprRef lowerShuffle(const clang::CallExpr *e);
  /// `__ldg(&x[i])` and the other loads through a cache: the element. Null
  /// for other calls.
  ExprRef lowerCachedLoad(const clang::CallExpr *e);
  /// A `__shared__` array of a `__global__` kernel: one per block.
  StmtRef lowerSharedDecl(const clang::VarDecl *vd);
  /// True while lowering the body of a `__global__` kernel itself (not a
  /// helper it calls).
  bool inGlobalKernel() const;

  // std::array and std::vector (LowerContainers.cpp).
  /// A container parameter: a pointer to its elements (const unless `&`),
  /// then, for a std::vector, its size `x_size`.
  void lowerContainerParam(const clang::ParmVarDecl *p, const ContainerType &c, Function *f);
  /// For a kernel: how its entry points pass the container parameter `p` on.
  void describeContainerParam(const clang::ParmVarDecl *p, const ContainerType &c, int index,
                              Function *f);
  /// The number of elements of the container `e` names.
  ExprRef containerSize(const clang::Expr *e);
  /// The element `at` of the container `base` (a row of a nested std::array
  /// too), as an lvalue; `whole` is the expression, for messages.
  ExprRef containerElement(const clang::Expr *base, ExprRef at, const clang::Expr *whole);
  /// The index of `v[i]` or `v.at(i)`, without the conversion to size_t.
  ExprRef lowerIndex(const clang::Expr *at);
  /// `v[i]` on a container, or null for other operator calls.
  ExprRef lowerContainerSubscript(const clang::CXXOperatorCallExpr *e);
  /// `v.size()`, `v.at(i)`, ...: null when `e` is not a container's method.
  /// With `address`, the address of the element (or `data()`).
  ExprRef lowerContainerMethod(const clang::CXXMemberCallExpr *e, bool wantAddress = false);
  /// The element `offset` past `base` when `base` is `v.data()` of a
  /// container (`v.data()[i]`, `*v.data()`); null otherwise.
  ExprRef containerDataElement(const clang::Expr *base, ExprRef offset);
  /// `a.fill(x);`, `a = b;` on containers: null for other statements.
  StmtRef lowerContainerStmt(const clang::Expr *e);
  /// `v.push_back(x)`, `pop_back()`, `clear()`, `resize(n)`, `reserve(n)` on
  /// a std::vector local: its size changes, its Buffer follows.
  StmtRef lowerVectorResize(const clang::CXXMemberCallExpr *e, const std::string &name);
  /// for (k = from; k < to; ++k) body, its bounds as ints.
  StmtRef rangeLoop(Var *k, ExprRef from, ExprRef to, std::vector<StmtRef> body,
                    SourcePos pos = {});
  /// The same with a counter of its own, `<name>_k`, that `body` is given.
  StmtRef rangeLoop(const std::string &name, ExprRef from, ExprRef to,
                    const std::function<std::vector<StmtRef>(ExprRef)> &body, SourcePos pos);
  /// for (k = first; k < count; ++k) v[k] = valueAt(k); (first: 0 when null)
  StmtRef elementLoop(Var *v, ExprRef count, const std::function<ExprRef(ExprRef)> &valueAt,
                      SourcePos pos, ExprRef first = nullptr);
  // Constants of types cgp-ad does not model (LowerForeign.cpp).
  /// Whether `p`, whose type cgp-ad cannot take apart, may stay whole: a
  /// const object (by value, `const T&`, `const T*`).
  bool mayBeForeign(const clang::ParmVarDecl *p) const;
  /// `v` (its type and shape set) as the parameter `p` of `f`, the
  /// `cxxIndex`-th in C++: named, numbered and registered.
  Var *addParam(const clang::ParmVarDecl *p, unsigned cxxIndex, Function *f, Var v);
  /// `p` as a foreign parameter of `f`, declared with the type written.
  void lowerForeignParam(const clang::ParmVarDecl *p, unsigned position, Function *f);
  /// The foreign variable `e` reads through members, elements, const
  /// methods and operators; null when `e` reads none.
  const Var *foreignRoot(const clang::Expr *e);
  /// `e` as text with `$k` holes for the values of `operands` appended.
  std::string foreignPattern(const clang::Expr *e, std::vector<ExprRef> &operands);
  /// A number read from a foreign variable (`charges[k].x`).
  ExprRef lowerForeign(const clang::Expr *e);
  /// A foreign value passed whole to the foreign parameter `param`.
  ExprRef lowerForeignObject(const clang::Expr *e, const Var *param);
  /// Sets the leaves of `to` from the struct of type `type` that `pattern`
  /// reads (a copy).
  void copyForeignRecord(const RecordView &to, clang::QualType type, const std::string &pattern,
                         const std::vector<ExprRef> &operands, std::vector<StmtRef> &out);
  /// `for (auto p : range)` over a foreign container: counted with size(),
  /// its elements read with [].
  StmtRef lowerForeignRangeFor(const clang::CXXForRangeStmt *s);
  /// The scalar variable of a range-based `for` (a copy of each element),
  /// of type `t` (LowerAliases.cpp).
  Var *scalarLoopVariable(const clang::VarDecl *loopVar, clang::QualType t);

  // The standard algorithms (LowerAlgorithms.cpp).
  /// `std::fill(...);`, `fill_n`, `copy`, `copy_n`, `iota` over a range: the
  /// loop they stand for; null for other statements.
  StmtRef lowerAlgorithmStmt(const clang::CallExpr *e);
  /// `std::accumulate(first, last, init)`, `std::inner_product(first1,
  /// last1, first2, init)`, `std::reduce` and kin: a local summed by a loop
  /// placed before the statement; null for other calls.
  ExprRef lowerAlgorithmValue(const clang::CallExpr *e);
  /// `*std::max_element(first, last)` (or min_element), given the iterator
  /// dereferenced: a local set by a loop placed before the statement to the
  /// element libstdc++ finds; with `from`, `std::distance(from, iterator)`:
  /// that element's position from `from`. Null for other iterators.
  ExprRef lowerExtremeElement(const clang::Expr *iterator, const clang::Expr *from = nullptr);
  /// `std::max({a, b, c})` or `std::min`: the elements into locals, then a
  /// local set to the one libstdc++ finds (the first of equal ones); null
  /// when the argument is not an initializer list.
  ExprRef lowerListExtreme(const clang::CallExpr *e, bool largest, const ScalarType &type);
  /// The place an iterator or pointer of a range points to (an Address).
  ExprRef iteratorAddress(const clang::Expr *e, const std::string &algorithm);
  // Iterators held in variables (LowerAlgorithms.cpp): a local pointer's
  // alias (the buffer and an offset variable).
  /// Whether `t` is an iterator class of the standard library.
  static bool isIteratorType(clang::QualType t);
  /// The place begin()/end() of a container, an iterator local, std::next/prev of an iterator, or
  /// lower_bound/upper_bound/min_element/max_element of a range points to
  /// (an Address); null for other expressions.
  ExprRef iteratorPosition(const clang::Expr *e);
  /// lower_bound (upper_bound) as libstdc++'s binary search, placed before
  /// the statement: the place it finds.
  ExprRef binarySearch(const clang::CallExpr *call, bool upper);
  /// `auto it = v.begin();` and any iterator local initialised so.
  StmtRef lowerIteratorDecl(const clang::VarDecl *vd);
  [[noreturn]] void refuseIteratorMoveInExpression(const clang::Expr *op);
  /// `++it`, `--it`, `it += k`, `it -= k`, `it = other` on an iterator local:
  /// the statement moving its offset; null for other statements.
  StmtRef lowerIteratorMove(const clang::Expr *e);
  /// `*it`, `it[k]`, comparisons and `it - other` of iterators; null for
  /// other operator calls.
  ExprRef lowerIteratorOperation(const clang::CXXOperatorCallExpr *op);
  /// `std::distance(a, b)` of two iterators of one container; null for
  /// iterators of a constant kept whole.
  ExprRef lowerDistance(const clang::CallExpr *e, const ScalarType &type);
  /// A range of one buffer given by two iterators: the place the first
  /// points to (an Address) and the offset where the range ends.
  struct IteratorRange {
    ExprRef first, end;
  };
  IteratorRange iteratorRange(const clang::Expr *firstArg, const clang::Expr *lastArg,
                              const std::string &algorithm);
  /// Stops with an error naming `what` (a call that becomes a loop) where
  /// no statement can go before the expression being lowered: a condition,
  /// or a side of `&&`, `||` or `?:`.
  void requireStatementsBefore(const clang::Expr *e, const std::string &what);
  /// A scalar local of the function being lowered (LowerContainers.cpp).
  Var *newLocal(const std::string &name, const ScalarType &type, const SourcePos &pos);
  /// The arguments a container argument gives a container parameter `param`
  /// of a helper (its elements' address, then its size); false when `param`
  /// is not a container.
  bool lowerContainerArg(const clang::Expr *arg, const clang::ParmVarDecl *param,
                         std::vector<ExprRef> &args);
  // Lambdas (LowerLambdas.cpp): a helper whose captures are parameters.
  /// A captured variable: how the helper takes it, and the copy made when
  /// the lambda is created, for a by-value capture that may change later.
  struct LambdaCapture {
    const clang::VarDecl *var = nullptr;
    bool byReference = false;
    Var *copy = nullptr;   // a scalar's copy (or a pointer's offset copy)
  };
  struct Lambda {
    const clang::LambdaExpr *expr = nullptr;
    std::string name;                        // "kernel_f"
    const clang::FunctionDecl *definedIn = nullptr;
    std::vector<LambdaCapture> captures;
  };
  StmtRef lowerLambdaDecl(const clang::VarDecl *vd);
  /// Makes the Lambda of `le`, held in `varName` (its helper is named
  /// after it), appending to `out` the statements its creation runs
  /// (init-captures and copies).
  Lambda makeLambda(const clang::LambdaExpr *le, const std::string &varName,
                    std::vector<StmtRef> &out);
  /// How a lambda's helper takes one captured variable: one parameter (a
  /// scalar, reference or pointer), or a struct's leaves.
  struct CaptureParam {
    const clang::VarDecl *var = nullptr;
    std::vector<Var *> params;
    bool record = false;
    RecordLocal leaves; // a struct's
  };
  ExprRef lowerLambdaCall(const clang::CXXOperatorCallExpr *e);
  /// The call of the lambda `opArg` that an algorithm (`use`) applies to
  /// `arity` elements at a time, its first operands left for the elements
  /// (applyOperation); what creating the lambda needs goes to `out`.
  ExprRef lambdaOperation(const clang::Expr *opArg, const clang::Expr *use, unsigned arity,
                          std::vector<StmtRef> &out);
  /// `operation` applied to `elements` (each converted to its parameter's type).
  ExprRef applyOperation(const ExprRef &operation, const std::vector<ExprRef> &elements);
  /// The lambda `object` is (a local, one written there, a closure
  /// parameter), its creation statements placed before `use`, which `verb`s
  /// it ("calls", "passes"); nothing for any other expression.
  std::optional<Lambda> lambdaOf(const clang::Expr *object, const clang::Expr *use,
                                 const std::string &verb);
  Function *lowerLambdaFunction(const Lambda &l, const clang::CXXMethodDecl *op);
  /// The parameters of `f` that stand for the variables `l` captures, made
  /// for the call operators whose bodies are `bodies` (a variable any of
  /// them writes is taken by reference), appended to `f`'s.
  std::vector<CaptureParam> captureParams(const Lambda &l,
                                          const std::vector<const clang::Stmt *> &bodies,
                                          Function *f);
  /// What a captured variable meant before bindCaptures rebound it.
  struct SavedBinding {
    const clang::VarDecl *var;
    std::optional<Var *> var_;
    std::optional<Alias> alias;
    std::optional<RecordLocal> record;
  };
  /// Makes each captured variable of `params` mean its parameter, for the
  /// body of the function that has them; returns what to restore after.
  std::vector<SavedBinding> bindCaptures(const std::vector<CaptureParam> &params);
  void restoreBindings(const std::vector<SavedBinding> &saved);
  /// bindCaptures for the life of the object.
  struct CapturesBound {
    CapturesBound(Lowering &l, const std::vector<CaptureParam> &params)
        : l(l), saved(l.bindCaptures(params)) {}
    ~CapturesBound() { l.restoreBindings(saved); }
    Lowering &l;
    std::vector<SavedBinding> saved;
  };
  /// Appends to `args` what a call at `at` passes for the capture
  /// parameters `params` of `f`: the variables `l` captures, as the caller
  /// sees them (their copies, the elements references stand for).
  void captureArgs(const Lambda &l, const std::vector<CaptureParam> &params,
                   const clang::Expr *at, const Function *f, std::vector<ExprRef> &args);
  /// Refuses a call of `f` whose capture arguments (`args` from `captures`
  /// on) pass by value a variable that another argument lets `f` change;
  /// `argAt(j)` is where the j-th argument is written, `who` names `f`.
  void checkCaptureAliasing(const Function *f, const std::vector<ExprRef> &args,
                            size_t captures,
                            const std::function<const clang::Expr *(size_t)> &argAt,
                            const std::string &who);

  // Lambdas passed to functions (LowerClosureArgs.cpp): the callee's
  // instantiation is a helper without the closure parameter, taking the
  // lambda's captures instead, and calling the lambda's helper.
  /// For a call of the visible function `def`: the lambdas its closure
  /// parameters receive, for lowerSignature and lowerArgList.
  void prepareClosureArgs(const clang::CallExpr *e, const clang::FunctionDecl *def);
  /// lowerSignature's part for the closure parameters `closures` of `fd`.
  void lowerClosureParams(const clang::FunctionDecl *fd,
                          const std::vector<const clang::ParmVarDecl *> &closures, Function *f);
  /// The capture parameters of all of `fd`'s closure parameters.
  std::vector<CaptureParam> closureCaptures(const clang::FunctionDecl *fd) const;
  /// The lambdas the pending call passes, by the callee's parameter.
  std::map<const clang::ParmVarDecl *, Lambda> pendingClosures_;
  /// A closure parameter's capture parameters (its function's, appended).
  std::map<const clang::ParmVarDecl *, std::vector<CaptureParam>> closureParams_;
  /// The name of `fd` in messages (a lambda's helper name).
  std::string displayName(const clang::FunctionDecl *fd) const;
  /// A use, inside a lambda, of a constant of the enclosing function that
  /// the lambda does not capture; null for any other variable.
  ExprRef outerConstant(const clang::DeclRefExpr *e);
  /// Refuses a lambda among the arguments of a call.
  void refuseLambdaArgs(const clang::CallExpr *e);

  Var *varFor(const clang::VarDecl *vd, clang::SourceLocation use);
  Var *memoryVar(const clang::Expr *e); // the array/pointer a base names
  ScalarType scalarType(clang::QualType t, clang::SourceLocation loc);
  SourcePos position(clang::SourceLocation loc);

  /// `++`/`--` inside the expression of a statement: the increments of
  /// prefix ones run before the statement, those of postfix ones after it.
  struct SideEffects {
    std::vector<StmtRef> before, after;
    /// Variables copied back after a call that took them by reference: the
    /// statement itself must not assign them.
    std::vector<Var *> copiedBack;
    std::vector<const Function *> copiedFor; // the callee that changes each
    std::vector<Var *> copyBoxes;            // the copy each call takes
    std::vector<StmtRef> copyBacks;          // the statement (in `after`) copying it back
    clang::SourceLocation copiedAt;
  };
  /// Orders the reads, in `e` (a statement's value or a condition), of the
  /// variables `effects` copies back after a call: a read that runs after
  /// such a call makes it run before the statement (its value in a
  /// temporary, the copy back right after it); a read in an order C++
  /// leaves open is refused. Returns `e`, rewritten.
  ExprRef sequenceCopies(ExprRef e, SideEffects &effects);
  /// Refuses any read, in `e` (the place a statement assigns), of a variable
  /// `effects` copies back.
  void refuseReadsOfCopies(const ExprRef &e, const SideEffects &effects);
  SideEffects *sideEffects_ = nullptr;
  /// For the life of the object, statements lowered are those of another
  /// function (a helper's, a lambda's): nothing they need runs around the
  /// caller's statement that made the call, and no operand of it is lazy.
  struct OwnStatements {
    explicit OwnStatements(Lowering &l) : l(l), effects(l.sideEffects_), lazy(l.lazy_) {
      l.sideEffects_ = nullptr;
      l.lazy_ = 0;
    }
    ~OwnStatements() {
      l.sideEffects_ = effects;
      l.lazy_ = lazy;
    }
    Lowering &l;
    SideEffects *effects;
    int lazy;
  };
  /// Lowers one statement built by `make`, with the increments that its
  /// expressions hold placed around it.
  template <class Make> StmtRef withSideEffects(Make make);

  clang::ASTContext &ctx_;
  Diagnoser &diag_;
  Module &module_;

  std::map<const clang::FunctionDecl *, Function *> lowered_;
  std::vector<const clang::FunctionDecl *> callStack_; // to refuse recursion
  std::map<const clang::VarDecl *, Var *> vars_;
  std::map<const clang::VarDecl *, Alias> aliases_; // local pointers and references
  std::map<const clang::VarDecl *, RecordLocal> records_; // struct locals and parameters
  std::map<const clang::VarDecl *, StructArray> structArrays_;
  /// std::vector locals lowered to arrays, and their sizes.
  std::map<const clang::VarDecl *, int64_t> fixedVectorSizes_;
  /// Per function, the vector variables some statement resizes; nothing
  /// where one resizes a vector reached through a reference or pointer.
  std::map<const clang::FunctionDecl *, std::optional<std::set<const clang::VarDecl *>>>
      resizedVectors_;
  std::map<const clang::FunctionDecl *, RecordLocal> thisRecords_; // `*this` of methods
  std::vector<Inlined> inlined_;
  /// The call that is about to lower a helper for the first time: a
  /// vector of structs it passes from a constant kept whole makes the
  /// helper's parameter a constant kept whole too (else its columns).
  struct FirstCall {
    const clang::FunctionDecl *callee = nullptr;
    const clang::CallExpr *call = nullptr;
  } firstCall_;
  std::map<const clang::VarDecl *, Lambda> lambdas_; // lambda locals
  std::map<const clang::FunctionDecl *, std::string> lambdaNames_; // call operators lowered
  std::map<std::string, int> lambdaNameCount_;
  std::map<const clang::FunctionDecl *, std::vector<CaptureParam>> captureParams_;
  /// Functions returning a struct: their result, out parameters last.
  std::map<const clang::FunctionDecl *, RecordLocal> resultRecords_;
  /// Methods returning a reference to their object (`operator+=`).
  std::set<const clang::FunctionDecl *> returnThis_;
  /// Inside an operand that C++ may not evaluate (the right of `&&`, `||`,
  /// an arm of `?:`): no statement can run before it.
  int lazy_ = 0;
  std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> pullbacks_;
  std::map<const clang::FunctionDecl *, Function *> custom_;
  std::set<const clang::FunctionDecl *> failed_; // kernels whose lowering failed
  const clang::FunctionDecl *kernelDecl_ = nullptr; // the kernel being lowered
  std::set<const clang::ParmVarDecl *> kernelWrt_;  // its parameters named in the mark
  std::map<const clang::FunctionDecl *, std::shared_ptr<const TemplateKernel>> templateKernels_;
};

// Defined here: LowerAliases.cpp uses it too.
template <class Make> StmtRef Lowering::withSideEffects(Make make) {
  SideEffects effects;
  SideEffects *outer = sideEffects_;
  sideEffects_ = &effects;
  StmtRef s = make();
  sideEffects_ = outer;
  if (effects.before.empty() && effects.after.empty())
    return s;
  if (s->kind == StmtKind::Assign)
    for (Var *v : effects.copiedBack)
      if (lvalueVar(s->lhs) == v)
        unsupported(effects.copiedAt, "assigns to '" + v->name +
                                          "' the result of a call that also changes it "
                                          "through a reference; assign to another variable");
  if (!effects.copiedBack.empty()) {
    refuseReadsOfCopies(s->lhs, effects);
    if (s->value)
      s->value = sequenceCopies(s->value, effects);
  }
  if (s->kind == StmtKind::Return)
    effects.after.clear(); // nothing runs after a return
  std::vector<StmtRef> all = effects.before;
  all.push_back(s);
  all.insert(all.end(), effects.after.begin(), effects.after.end());
  StmtRef b = block(all);
  b->pos = s->pos;
  return b;
}

} // namespace cgp

#endif // CGP_FRONTEND_LOWERING_H
