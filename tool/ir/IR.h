//===- IR.h - the kernel IR of cgp-ad ---------------------------*- C++ -*-===//
//
// The frontend lowers Clang's AST of a kernel and of every helper it calls
// into this small IR; the analyses, the reverse-mode transform and the emitter
// work on it alone. It is structured like the source (blocks, ifs, loops), so
// that generated code reads like the user's, and small enough to analyse.
//
// Expressions are immutable and shared (ExprRef); statements are built by
// passes that return new trees (StmtRef). Variables (Var) are owned by the
// Module and referred to by pointer, so a variable keeps its identity across
// passes. Types are scalars (bool, integers, float, double); a variable is a
// scalar, a pointer to scalars or a fixed-size array of scalars.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_IR_IR_H
#define CGP_IR_IR_H

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cgp {

/// A place in the user's source, for comments, #line markers and messages.
struct SourcePos {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
};

/// The type of a scalar value.
struct ScalarType {
  /// Foreign: a value of a C++ type cgp-ad does not model (a constant
  /// parameter of any type), spelled as the user wrote it; never active.
  enum Kind : uint8_t { Void, Bool, Integer, Float, Double, Foreign };
  Kind kind = Void;
  std::string spelling = "void"; // C++ spelling ("int", "unsigned long", ...)

  bool isFloating() const { return kind == Float || kind == Double; }
  bool isIntegral() const { return kind == Integer || kind == Bool; }
  bool isVoid() const { return kind == Void; }
  bool operator==(const ScalarType &other) const {
    return kind == other.kind && spelling == other.spelling;
  }
  bool operator!=(const ScalarType &other) const { return !(*this == other); }

  static ScalarType voidType() { return {Void, "void"}; }
  static ScalarType boolType() { return {Bool, "bool"}; }
  static ScalarType intType() { return {Integer, "int"}; }
  static ScalarType int64Type() { return {Integer, "std::int64_t"}; }
  static ScalarType floatType() { return {Float, "float"}; }
  static ScalarType doubleType() { return {Double, "double"}; }
};

struct Function;

/// A variable: a parameter, a local, a constant global, or a temporary made
/// by a pass.
struct Var {
  enum Shape : uint8_t { Scalar, Pointer, Array };
  enum Origin : uint8_t { Param, Local, Global, Temp };

  std::string name;           // the user's name (made unique when emitted)
  /// How the source spells what it stands for, where `name` does not: a
  /// struct's member `st.x`, an element `a[2]` split into a scalar, a
  /// helper's result `speed2(...)`, a helper's parameter inlined; empty
  /// otherwise. For people (--explain, the report), never printed in code.
  std::string spelling;
  ScalarType elem;            // the scalar type, or the element type
  Shape shape = Scalar;
  Origin origin = Local;
  bool isConst = false;       // const scalar, or pointer/array to const
  std::vector<int64_t> dims;  // extents of an Array (1 or 2 of them)
  std::string qualifiedName;  // for globals: the name to print
  int paramIndex = -1;        // position among the parameters
  unsigned id = 0;            // creation order in the Module (for stable order)
  bool hasKnownValue = false; // an integer constant whose value is known
  int64_t knownValue = 0;
  /// Declared in the body of this many nested loops (0: outside loops): its
  /// values do not outlive one iteration of the innermost of them.
  int loopDepth = 0;
  /// Declared as a C++ reference (`double& a`, `const double& s`): a Pointer
  /// of extent 1 that is spelled `a` instead of `*a` (a non-const reference),
  /// or a Scalar whose declaration says `const double &s`. Printing only: the
  /// analyses see a pointer or a scalar.
  bool isReference = false;
  /// A std::vector local (a Pointer): its elements live in a
  /// cgp::rt::Buffer that the function owns, sized by a statement
  /// `cgp::rt::allocate(v, n)` where the vector is declared.
  bool ownsStorage = false;
  /// A std::vector parameter's or local's size: the integer that `v.size()`
  /// reads (`x_size`).
  Var *sizeVar = nullptr;
  /// CUDA: a `__shared__` array, one per block, which the block's threads
  /// share (so is its adjoint). Declared without a value.
  bool blockShared = false;
  /// The adjoint or tangent of such a local: a cgp::rt::Shadow of it,
  /// declared after it and sized with it.
  Var *shadowOf = nullptr;
  /// A scalar held in a one-element array so that a call can write it
  /// through a reference parameter (a member of a struct that a call
  /// fills, `d_x[0]`); split back into scalars, it keeps its name.
  bool isBox = false;
  /// A pointer parameter that reaches a known number of elements (a
  /// struct's member array, passed on): that number; 0 when unknown.
  int64_t extent = 0;
  /// A math call's value given a variable so that the reverse sweep reads
  /// it instead of calling again (transform/NameMathFactors.h).
  bool namedFactor = false;
  /// A loop's snapshots hold the elements of this caller's buffer that the
  /// loop overwrites in place (analysis/WrittenSpans.h): this variable, a
  /// cgp::rt::ElementSpan of generated code, says which ones; its `extent`
  /// is how many when that is known when compiling (0 otherwise).
  Var *spanOf = nullptr;
  SourcePos pos;

  bool isScalar() const { return shape == Scalar; }
  bool isPointer() const { return shape == Pointer; }
  bool isArray() const { return shape == Array; }
  bool isMemory() const { return shape != Scalar; }
  bool isFloating() const { return elem.isFloating(); }
  int64_t elementCount() const {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    return n;
  }
};

/// What people call `v`: its spelling in the source, else its name.
inline const std::string &sourceName(const Var &v) { return v.spelling.empty() ? v.name : v.spelling; }

/// Orders variables by creation, so that sets of variables iterate the same
/// way in every run (generated code must not depend on addresses).
struct VarLess {
  bool operator()(const Var *a, const Var *b) const { return a->id < b->id; }
};

/// Variables in creation order: what is said of the first of them does not
/// depend on where they lie in memory.
using ConstVarSet = std::set<const Var *, VarLess>;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind : uint8_t {
  FloatLit,  // 1.5, 2.0f
  IntLit,    // 3, true
  VarRef,    // a scalar variable
  Index,     // an element: p[i], a[i][j], *p
  Unary,     // -a, !a, ~a
  Binary,    // a + b, a < b, a && b, ...
  Select,    // c ? a : b
  Cast,      // (double)a
  Math,      // sqrt(a), atan2(a, b), ...
  Call,      // a call of a helper whose body cgp-ad sees
  Opaque,    // a call of a function without body (only with inactive values)
  Address,   // base + offset: a pointer passed to a call
  TapePop,   // the value on top of the tape (generated code only)
  Member,    // var.name: a field of a runtime object (generated code only)
  Foreign,   // a read of a constant of a type cgp-ad does not model, printed
             // as written: `$0[$1].x` with $k its operands (`spelling`)
};

enum class UnaryOp : uint8_t { Neg, Plus, Not, BitNot };
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, Rem,
  Lt, Le, Gt, Ge, Eq, Ne,
  LAnd, LOr,
  BitAnd, BitOr, BitXor, Shl, Shr,
};
/// A math function; ir/MathTable.h holds one row for each.
enum class MathFn : uint8_t {
  // <cmath>
  Sqrt, Exp, Log, Log1p, Expm1, Sin, Cos, Tan, Tanh, Atan, Atan2, Pow, Hypot,
  Cbrt, Fabs, Fmin, Fmax,
  Asin, Acos, Sinh, Cosh, Asinh, Acosh, Atanh, Exp2, Log2, Log10, Erf, Erfc,
  Tgamma, Lgamma, Fma, Fmod, Remainder, Copysign, Fdim, Ldexp, Scalbn, Hypot3,
  Floor, Ceil, Round, Trunc, Nearbyint, Rint,
  // CUDA's (and GNU's) functions outside std
  Rsqrt, Rcbrt, Exp10, Sinpi, Cospi,
  // CUDA's fast single-precision intrinsics
  FastExp, FastExp10, FastLog, FastLog2, FastLog10, FastSin, FastCos, FastTan,
  FastTanh, FastPow, FastDivide, Saturate,
  // CUDA's arithmetic rounded to nearest, towards zero, up, down
  FaddRn, FaddRz, FaddRu, FaddRd, FsubRn, FsubRz, FsubRu, FsubRd,
  FmulRn, FmulRz, FmulRu, FmulRd, FdivRn, FdivRz, FdivRu, FdivRd,
  FmafRn, FmafRz, FmafRu, FmafRd, FmafIeeeRn, FmafIeeeRz, FmafIeeeRu, FmafIeeeRd,
  FrcpRn, FrcpRz, FrcpRu, FrcpRd, FsqrtRn, FsqrtRz, FsqrtRu, FsqrtRd,
  DaddRn, DaddRz, DaddRu, DaddRd, DsubRn, DsubRz, DsubRu, DsubRd,
  DmulRn, DmulRz, DmulRu, DmulRd, DdivRn, DdivRz, DdivRu, DdivRd,
  FmaRn, FmaRz, FmaRu, FmaRd, DrcpRn, DrcpRz, DrcpRu, DrcpRd,
  DsqrtRn, DsqrtRz, DsqrtRu, DsqrtRd, FrsqrtRn,
  // generated code only: the derivative of lgamma (include/cgp/digamma.h)
  Digamma,
  // generated code only: std::complex's division and functions (exp, log,
  // sqrt, pow, log10, the trigonometric and hyperbolic ones),
  // one function per part of the value, each the real or imaginary part of
  // the standard library's own result (include/cgp/complex.h)
  ComplexDivRe, ComplexDivIm, ComplexExpRe, ComplexExpIm, ComplexLogRe, ComplexLogIm,
  ComplexSqrtRe, ComplexSqrtIm, ComplexPowRe, ComplexPowIm, ComplexPowRealRe,
  ComplexPowRealIm, RealPowComplexRe, RealPowComplexIm, ComplexPowIntRe, ComplexPowIntIm,
  ComplexLog10Re, ComplexLog10Im, ComplexSinRe, ComplexSinIm, ComplexCosRe, ComplexCosIm,
  ComplexTanRe, ComplexTanIm, ComplexSinhRe, ComplexSinhIm, ComplexCoshRe, ComplexCoshIm,
  ComplexTanhRe, ComplexTanhIm,
  NumFunctions // not a function: how many there are
};

struct ExprNode;
using ExprRef = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind;
  ScalarType type; // the value's type (for Address: the element type)

  // Payload; which fields are used depends on `kind`.
  double floatValue = 0;            // FloatLit
  int64_t intValue = 0;             // IntLit
  std::string spelling;             // FloatLit: the source spelling if any;
                                    // Opaque: a runtime constant's name (no call)
  Var *var = nullptr;               // VarRef, Index, Address
  UnaryOp unaryOp = UnaryOp::Neg;   // Unary
  BinaryOp binaryOp = BinaryOp::Add;// Binary
  MathFn mathFn = MathFn::Sqrt;     // Math
  bool implicitCast = false;        // Cast: inserted by C++, not written
  bool byReference = false;         // Address: the argument of a reference
                                    // parameter, printed as the element
  bool reservedTape = false;        // TapePop: from room its loop reserved
                                    // (transform/ReservedTape.h)
  Function *callee = nullptr;       // Call; Opaque: a helper's generated sweep, if one
  std::string calleeName;           // Opaque: qualified name to print (a method name
                                    // when `var` is the object it is called on);
                                    // Member: the field's name
  std::vector<ExprRef> operands;    // Index: indices; Address: offset;
                                    // others: their operands in order

  ExprNode(ExprKind k, ScalarType t) : kind(k), type(std::move(t)) {}
};

// Constructors of expressions.
ExprRef floatLit(double value, ScalarType type, std::string spelling = "");
ExprRef intLit(int64_t value, ScalarType type = ScalarType::intType());
ExprRef boolLit(bool value);
ExprRef varRef(Var *var);
/// The whole of `var`, an array too (pushed, popped or kept at once): `h`.
ExprRef wholeVarRef(Var *var);
ExprRef index(Var *base, std::vector<ExprRef> indices);
ExprRef unary(UnaryOp op, ExprRef a);
ExprRef binary(BinaryOp op, ExprRef a, ExprRef b);
ExprRef select(ExprRef c, ExprRef a, ExprRef b);
ExprRef cast(ScalarType to, ExprRef a, bool implicit = false);
/// `e` without the casts around it.
ExprRef withoutCasts(ExprRef e);
ExprRef math(MathFn fn, ScalarType type, std::vector<ExprRef> args);
ExprRef call(Function *callee, ScalarType type, std::vector<ExprRef> args);
ExprRef opaque(std::string name, ScalarType type, std::vector<ExprRef> args);
/// A named constant of the runtime, printed as is: `cgp::rt::IterationTapes::Unevenly`.
ExprRef runtimeConstant(std::string name, ScalarType type);
ExprRef address(Var *base, ExprRef offset);
/// The address of an element (an Index), a 2-D one flattened: &a[i][j] is
/// address(a, i * n + j).
ExprRef elementAddress(const ExprRef &element);
/// An Address passed to a reference parameter (byReference): printed as the
/// element itself, `y[k]`.
ExprRef referenceArgument(const ExprRef &address);
ExprRef tapePop(ScalarType type);
/// `object.method(args)` on a runtime object of generated code.
ExprRef method(Var *object, std::string name, ScalarType type, std::vector<ExprRef> args = {});
/// `object.field`.
ExprRef member(Var *object, std::string name, ScalarType type);
/// A read of a foreign constant, printed as `pattern` with `$k` replaced by
/// the k-th operand (`$0.size()`, `$0[$1].x`).
ExprRef foreign(std::string pattern, ScalarType type, std::vector<ExprRef> operands);

/// True for comparisons and logical operators (their value is a bool).
bool isPredicate(BinaryOp op);
/// The C++ spelling of an operator.
const char *spelling(UnaryOp op);
const char *spelling(BinaryOp op);

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind : uint8_t {
  Block,
  Decl,     // declaration of a variable, with an optional initial value
  Assign,   // lhs = rhs, lhs += rhs, ...
  Eval,     // a call whose value is not used
  If,
  For,      // for (init; cond; step) body
  While,
  DoWhile,
  Break,
  Continue,
  Return,
  Switch,
  Comment,  // a line of comment in generated code
  Push,     // push a value on the tape (generated code only)
  Raw,      // a line of C++ text (generated code only)
};

enum class AssignOp : uint8_t { Set, Add, Sub, Mul, Div };

struct StmtNode;
using StmtRef = std::shared_ptr<StmtNode>;

/// One group of `case` labels (or `default`) of a switch, with its body.
struct SwitchCase {
  std::vector<int64_t> values;
  bool isDefault = false;
  std::vector<StmtRef> body;
};

/// What the reverse transform knows about a counted `for` loop: an integer
/// index that only the loop's step changes, by a constant.
struct CountedLoop {
  Var *index = nullptr;
  int64_t step = 0;
};

struct StmtNode {
  StmtKind kind;
  SourcePos pos;

  std::vector<StmtRef> stmts; // Block: the statements
  Var *var = nullptr;         // Decl
  ExprRef lhs;                // Assign: VarRef or Index
  AssignOp assignOp = AssignOp::Set;
  ExprRef value;              // Decl init, Assign rhs, Eval call, Return value,
                              // Push value, If/For/While/DoWhile/Switch cond
  StmtRef init, step;         // For (either may be null)
  StmtRef body, elseBody;     // If then/else, loop body
  std::vector<SwitchCase> cases; // Switch
  std::string text;           // Comment, Raw
  CountedLoop counted;        // For: set when the loop is counted
  std::string label;          // loops: a readable name ("loop over t")
  bool declaresIndex = false; // For: init declares the counted index
  int64_t tripBound = -1;     // For, generated: runs at most this many times (-1: unknown)
  bool reservedTape = false;  // Push: into room its loop reserved (transform/ReservedTape.h)
  /// Assign (Add or Sub), CUDA: other threads may add to the same element at
  /// once, so the addition is atomic: the user's `atomicAdd(&y[i], v)`, or an
  /// adjoint added into memory that threads share (transform/DeviceAdjoints.h).
  /// `WarpAtomic`: first summed over the lanes of a warp that add to the
  /// same element, then added by one lane. `BlockAtomic`: every thread of the
  /// block runs it (at the end of a gradient kernel): summed over the block,
  /// then added by one thread.
  enum class Atomicity : uint8_t { None, Atomic, WarpAtomic, BlockAtomic } atomicity =
      Atomicity::None;

  explicit StmtNode(StmtKind k) : kind(k) {}
};

// Constructors of statements.
StmtRef block(std::vector<StmtRef> stmts = {});
StmtRef decl(Var *var, ExprRef init = nullptr);
StmtRef assign(ExprRef lhs, ExprRef rhs, AssignOp op = AssignOp::Set);
StmtRef eval(ExprRef callExpr);
StmtRef ifStmt(ExprRef cond, StmtRef thenBody, StmtRef elseBody = nullptr);
StmtRef forStmt(StmtRef init, ExprRef cond, StmtRef step, StmtRef body);
StmtRef whileStmt(ExprRef cond, StmtRef body);
StmtRef doWhile(StmtRef body, ExprRef cond);
StmtRef breakStmt();
StmtRef continueStmt();
StmtRef returnStmt(ExprRef value = nullptr);
StmtRef comment(std::string text);
StmtRef push(ExprRef value);
StmtRef raw(std::string text);
/// `cgp::rt::refresh(v_storage, v);`: points the elements' pointer of a
/// std::vector local (Var::ownsStorage) at its Buffer's elements, after the
/// Buffer was sized.
StmtRef refreshElements(Var *v);
/// True for refreshElements' statements; sets `v` to the local.
bool isRefresh(const StmtRef &s, Var *&v);
/// `cgp::rt::allocate(v_storage, v_size);`: sizes the Buffer of a
/// std::vector local to its size variable (and its Shadow with it).
StmtRef sizeStorage(Var *v);
/// True for sizeStorage's and refreshElements' statements: they follow the
/// vector's size variable and read no element, so running them again (a
/// replay from a snapshot) leaves what running them once left.
bool isStorageUpkeep(const StmtRef &s);

/// A Block that stays a block (its own C++ scope) inside another one.
StmtRef scope(std::vector<StmtRef> stmts);

/// Appends `s` to `list`, splicing the statements of a Block in (but not
/// those of a scope()).
void appendFlat(std::vector<StmtRef> &list, const StmtRef &s);
/// Appends every statement of `from` to `to`, as they are.
inline void appendAll(std::vector<StmtRef> &to, const std::vector<StmtRef> &from) {
  to.insert(to.end(), from.begin(), from.end());
}
/// True for `x = g(...)` or `g(...);` with g a helper (Call, not Opaque).
inline bool isCallStmt(const StmtRef &s) {
  return (s->kind == StmtKind::Assign || s->kind == StmtKind::Eval) && s->value &&
         s->value->kind == ExprKind::Call;
}
/// The type spelling of a kernel's profile object (--instrument).
inline constexpr const char *kProfileObjectType = "cgp::rt::KernelProfile";
/// True for a counting hook of --instrument (transform/ProfileHooks.h): a
/// method call on a kernel's profile object, which reads and writes no
/// variable of the kernel.
inline bool isProfileHook(const StmtRef &s) {
  return s && s->kind == StmtKind::Eval && s->value && s->value->kind == ExprKind::Opaque &&
         s->value->var && s->value->var->elem.spelling == kProfileObjectType;
}
/// `assert(cond);`, the user's assertion, checked where the primal checks
/// it (the forward sweep) and compiled away by NDEBUG like the primal's.
StmtRef assertion(ExprRef cond);
/// True for assertion()'s statements: they read variables and write none,
/// so a loop holding one may run again (checkpoints) like any other.
inline bool isAssertion(const StmtRef &s) {
  return s && s->kind == StmtKind::Eval && s->value && s->value->kind == ExprKind::Opaque &&
         !s->value->var && s->value->calleeName == "assert";
}
/// The name of the CUDA block barrier, an Eval of an Opaque call.
inline constexpr const char *kBarrier = "__syncthreads";
/// True for `__syncthreads();`: the reverse sweep has one at the mirrored
/// place, so that the threads' reverse phases are ordered as their forward
/// phases were.
inline bool isBarrier(const StmtRef &s) {
  return s && s->kind == StmtKind::Eval && s->value && s->value->kind == ExprKind::Opaque &&
         s->value->calleeName == kBarrier;
}
/// True for a null statement or a Block with nothing in it (recursively).
bool isEmpty(const StmtRef &s);

//===----------------------------------------------------------------------===//
// Functions and the module
//===----------------------------------------------------------------------===//

/// A kernel that is an instantiation of a function template, as the
/// template itself declares it: its entry points (f_grad, f_jvp) are
/// declared as function templates with the same template parameters, and
/// defined as explicit specialisations for each instantiation.
struct TemplateKernel {
  std::string head;                      // "template <typename T, int N>"
  std::string returnType;                // "T"
  std::vector<std::string> paramNames;   // per parameter: "x" ("arg2" if unnamed)
  std::vector<std::string> paramTypes;   // per parameter: "const T *"
  std::vector<std::string> adjointTypes; // per parameter: the type of its d_ ("T *")
  std::vector<std::string> tangentTypes; // per parameter: the type of its t_ ("const T *")
};

/// A struct or container parameter that the frontend split into one
/// parameter per leaf member (a container: its data and size): what code
/// that holds the struct itself needs to pass its members on (a kernel's
/// entry points, transform/EntryWrappers.h), or to put the struct together
/// again from them (calls of a function with a custom pullback,
/// transform/CustomCallAdapters.h).
struct SplitParam {
  int index = 0;            // among the kernel's C++ parameters
  std::string name;         // "cam"
  std::string type;         // the struct's name, "::Camera", or the
                            // container's, "std::vector<double>"
  bool isContainer = false; // std::vector or std::array
  bool isConst = false;     // `const S&` (or `const S`)
  bool inOut = false;       // `S&`
  bool byReference = false; // `S&` or `const S&`
  struct Leaf {
    Var *var = nullptr;     // the split parameter
    std::string access;     // ".c.x", ".k"; a container's ".data()", ".size()"
    bool isArray = false;
    /// A part of a std::complex (0 real, 1 imaginary) that `access` reaches;
    /// -1 for other leaves.
    int complexPart = -1;
    /// `access` gives a pointer to structs (a vector of structs' data()),
    /// which the leaf sees as a flat buffer of numbers.
    bool flatElements = false;
  };
  std::vector<Leaf> leaves;
  /// An array of structs (`const S* ps`, `S* ps`): one leaf, a pointer to
  /// the structs seen as a flat buffer of `stride` scalars each.
  bool flat = false;
  int64_t stride = 0;
};

/// Where a CUDA function runs, as its qualifiers say; Host for C++ code.
enum class CudaSpace : uint8_t { Host, Device, HostDevice, Global };

/// A function: a kernel, a helper, or a function made by a transform.
struct Function {
  std::string name;
  std::vector<std::string> namespaces; // enclosing namespaces, outermost
                                       // first; "" is an anonymous one
  ScalarType returnType;
  std::vector<Var *> params;
  StmtRef body;
  bool isStatic = false;
  bool isInline = false;
  /// CUDA: `__device__`, `__host__ __device__` or `__global__` (generated
  /// functions carry their kernel's), and for the sweeps of a helper called
  /// from device code, whether they take the calling thread's tape as their
  /// first parameter (device code has no thread_local tape to find).
  CudaSpace cuda = CudaSpace::Host;
  bool tapeParam = false;
  bool onDevice() const { return cuda != CudaSpace::Host; }
  // An entry point (f_grad, f_jvp): its definition marks pointer parameters
  // __restrict, which the user's contract (distinct buffers do not overlap)
  // allows and which lets the compiler vectorise the reverse loops.
  bool restrictPointers = false;
  SourcePos pos;

  // Kernels only: the parameters CGP_GRAD names (all floating ones if empty),
  // and those CGP_JVP names (forward mode).
  bool isKernel = false;
  std::vector<Var *> wrt;
  std::vector<Var *> tangents;

  // A function with a custom derivative (CGP_PULLBACK_OF): the name to call
  // its pullback by. Such a function may have no body (a library call).
  std::string pullback;
  /// When the frontend split such a function's struct or container
  /// parameters (splitParams), `pullback` names an adapter that puts them
  /// together again for the user's pullback, named here
  /// (transform/CustomCallAdapters.h).
  std::string userPullback;
  /// For such a function that is linear in one argument and reads the others
  /// as integers (a CUDA warp shuffle): that argument's index. Its tangent is
  /// the function of the argument's tangent (forward mode); -1 otherwise.
  int linearArg = -1;

  // Set once the function is prepared for differentiation (prepareFunction):
  // its locals, all declared at the top.
  bool prepared = false;
  std::vector<Var *> locals;

  // Set by the control normalisation: the variable that holds the value
  // returned (null for void functions).
  Var *result = nullptr;

  /// For an instantiation of a function template: its template arguments as
  /// a call spells them ("<double, 4>"); empty otherwise.
  std::string templateArgs;
  /// Kernels instantiated from a template, and their entry points.
  std::shared_ptr<const TemplateKernel> templateKernel;
  /// Set when the frontend split a struct parameter into its members: the
  /// user's function has another signature, so generated code calls a copy
  /// of this one, named primalName (transform/PrimalCopies.h).
  bool splitParams = false;
  std::string primalName;
  /// Kernels and functions with a custom pullback: their struct and
  /// container parameters (split), in parameter order.
  std::vector<SplitParam> splitOriginals;

  /// The name to call this function by from anywhere in the translation
  /// unit ("::ns::f", skipping anonymous namespaces, then templateArgs).
  std::string qualifiedName() const;
  /// The same without the template arguments: one name for every
  /// instantiation of a template (generated variants count under it).
  std::string scopedName() const;
};

/// Everything cgp-ad knows about one translation unit: the functions it
/// lowered and the variables they use.
/// A kernel instrumented by --instrument (transform/ProfileHooks.h): the
/// static cgp::rt::KernelProfile object its generated code counts into, and
/// the loops and if statements it counts, numbered as the hooks name them.
struct ProfileTable {
  const Function *kernel = nullptr;
  Var *object = nullptr;
  struct Site {
    bool isLoop = false;
    SourcePos pos;
  };
  std::vector<Site> sites;
};

class Module {
public:
  Var *newVar(Var v);
  Function *newFunction();
  const std::vector<std::unique_ptr<Function>> &functions() const { return functions_; }

  /// --instrument: kernels get profile hooks when they are prepared.
  bool instrument = false;
  std::vector<ProfileTable> profileTables;

private:
  std::vector<std::unique_ptr<Var>> vars_;
  unsigned nextVarId_ = 1;
  std::vector<std::unique_ptr<Function>> functions_;
};

//===----------------------------------------------------------------------===//
// Visiting
//===----------------------------------------------------------------------===//

/// Calls `fn` on `e` and every sub-expression, parents first.
template <class Fn> void forEachExpr(const ExprRef &e, Fn &&fn) {
  if (!e)
    return;
  fn(e);
  for (const ExprRef &op : e->operands)
    forEachExpr(op, fn);
}

/// Calls `fn` on each statement directly inside `s`, in order: a block's
/// statements, a loop's init, step and body, an if's arms, a switch's cases.
template <class Fn> void forEachChild(const StmtRef &s, Fn &&fn) {
  for (const StmtRef &c : s->stmts)
    if (c)
      fn(c);
  for (const StmtRef *c : {&s->init, &s->step, &s->body, &s->elseBody})
    if (*c)
      fn(*c);
  for (const SwitchCase &c : s->cases)
    for (const StmtRef &b : c.body)
      if (b)
        fn(b);
}

/// Calls `fn` on `s` and every nested statement, parents first.
template <class Fn> void forEachStmt(const StmtRef &s, Fn &&fn) {
  if (!s)
    return;
  fn(s);
  for (const StmtRef &c : s->stmts)
    forEachStmt(c, fn);
  forEachStmt(s->init, fn);
  forEachStmt(s->step, fn);
  forEachStmt(s->body, fn);
  forEachStmt(s->elseBody, fn);
  for (const SwitchCase &c : s->cases)
    for (const StmtRef &b : c.body)
      forEachStmt(b, fn);
}

/// The expressions a statement holds directly (not those of nested ones).
std::vector<ExprRef> ownExprs(const StmtRef &s);

/// Calls `fn` on every expression of `s` and of the statements in it, each
/// subexpression too.
template <class Fn> void forEachExprIn(const StmtRef &s, Fn &&fn) {
  forEachStmt(s, [&](const StmtRef &n) {
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, fn);
  });
}

/// Variables read by `e` (scalars and the bases of elements).
void collectVars(const ExprRef &e, std::vector<Var *> &out);
/// True if `e` mentions `v`.
bool mentions(const ExprRef &e, const Var *v);
/// The variable an lvalue (VarRef or Index) writes.
Var *lvalueVar(const ExprRef &lhs);

/// Variables `s` (and the statements it holds) may write; a pointer passed
/// to a helper counts as written (with `opaqueCalls`, one passed to a
/// function without body too).
void collectWrittenVars(const StmtRef &s, std::set<const Var *> &out, bool opaqueCalls = false);

/// The bound of a counted loop whose condition compares its index with it in
/// the direction of its step (`i < b`, `i <= b` going up, `i > b`, `i >= b`
/// going down): what its trip count follows from. Null otherwise.
ExprRef countedBound(const StmtRef &loop);

/// The value of an integer known when compiling: a literal or a constant
/// (`constexpr int B = 128;`), also through conversions between integer
/// types that keep its value (`long k = 2`, `int k = kLast`).
std::optional<int64_t> knownInteger(const ExprRef &e);

/// The trip count of a counted loop known when compiling, if any.
std::optional<int64_t> knownTripCount(const StmtRef &loop);

/// Whether `assign`, run once per iteration of the counted loop `loop` of
/// `f`, writes every element of a one-dimensional array, each once:
/// `a[i] op= e` with `i` the loop's index stepping by one over as many
/// iterations as `a` has elements. For a std::vector local, `i` runs from 0
/// while below its size, or below the value it was sized with, and neither
/// changes in `f`.
bool writesEveryElement(const Function &f, const StmtRef &loop, const StmtNode *assign);

/// Structural equality of expressions.
bool sameExpr(const ExprRef &a, const ExprRef &b);

/// True if evaluating `e` has no effect besides its value: no call (a
/// runtime constant such as `threadIdx.x` is not one) and no tape pop.
bool isPure(const ExprRef &e);

/// True at a call (this node only) of code cgp-ad generated or of its
/// runtime: a helper's sweep (`g_fwd`, `g_rev`), a method of a runtime
/// object, `cgp_tape.`/`cgp::rt::` functions. Such a call may use the
/// tape; a call of the user's own code does not.
bool callsGeneratedCode(const ExprNode &x);

/// True at a node that evaluates its operands in order, the later ones only
/// sometimes: `&&`, `||`, `?:`. Only its first operand always runs.
bool ordersOperands(const ExprNode &e);

/// A readable dump of the IR, for tests and debugging.
std::string printExpr(const ExprRef &e);
std::string printStmt(const StmtRef &s, unsigned indent = 0);
std::string printFunction(const Function &f);

} // namespace cgp

#endif // CGP_IR_IR_H
