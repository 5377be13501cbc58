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
#include "ir/IR.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cgp {

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
  StmtRef lowerDecl(const clang::VarDecl *vd);
  StmtRef lowerExprStmt(const clang::Expr *e);
  StmtRef lowerExprStmtAlone(const clang::Expr *e);
  StmtRef lowerSwitch(const clang::SwitchStmt *s);
  StmtRef lowerArrayInit(Var *array, const clang::Expr *init);

  // Expressions (LowerExpr.cpp).
  ExprRef lowerExpr(const clang::Expr *e);
  ExprRef lowerCast(const clang::CastExpr *e);
  ExprRef lowerDeclRef(const clang::DeclRefExpr *e);
  ExprRef lowerSubscript(const clang::ArraySubscriptExpr *e);
  ExprRef lowerUnary(const clang::UnaryOperator *e);
  ExprRef lowerBinary(const clang::BinaryOperator *e);
  ExprRef lowerCall(const clang::CallExpr *e);
  ExprRef lowerMathCall(const clang::CallExpr *e, const clang::FunctionDecl *callee);
  ExprRef lowerAddress(const clang::Expr *e);
  ExprRef lowerLValue(const clang::Expr *e);
  ExprRef convert(ExprRef e, const ScalarType &to);

  Var *varFor(const clang::VarDecl *vd, clang::SourceLocation use);
  Var *memoryVar(const clang::Expr *e); // the array/pointer a base names
  ScalarType scalarType(clang::QualType t, clang::SourceLocation loc);
  SourcePos position(clang::SourceLocation loc);

  /// `++`/`--` inside the expression of a statement: the increments of
  /// prefix ones run before the statement, those of postfix ones after it.
  struct SideEffects {
    std::vector<StmtRef> before, after;
  };
  SideEffects *sideEffects_ = nullptr;
  /// Lowers one statement built by `make`, with the increments that its
  /// expressions hold placed around it.
  template <class Make> StmtRef withSideEffects(Make make);

  clang::ASTContext &ctx_;
  Diagnoser &diag_;
  Module &module_;

  std::map<const clang::FunctionDecl *, Function *> lowered_;
  std::vector<const clang::FunctionDecl *> callStack_; // to refuse recursion
  std::map<const clang::VarDecl *, Var *> vars_;
  std::map<const clang::FunctionDecl *, const clang::FunctionDecl *> pullbacks_;
  std::map<const clang::FunctionDecl *, Function *> custom_;
  std::set<const clang::FunctionDecl *> failed_; // kernels whose lowering failed
};

} // namespace cgp

#endif // CGP_FRONTEND_LOWERING_H
