//===- Printer.h - C++ text of IR expressions and statements ----*- C++ -*-===//
//
// One printer serves both the IR dumps of tests and the emitter: the IR is
// printed as the C++ it stands for. A Namer decides the spelling of each
// variable, so the emitter can print the unique names it chose.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_IR_PRINTER_H
#define CGP_IR_PRINTER_H

#include "ir/IR.h"

#include <string>

namespace cgp {

/// Spells variables. The default spells each by its user name.
class Namer {
public:
  virtual ~Namer() = default;
  virtual std::string name(const Var *v) const;
};

/// The C++ spelling of a scalar literal of type `t`.
std::string printFloat(double value, const ScalarType &t);

class Printer {
public:
  explicit Printer(const Namer &namer) : namer_(namer) {}

  std::string expr(const ExprRef &e) const { return expr(e, 0); }
  /// Statements, one per line, each line prefixed by `indent` spaces.
  std::string stmt(const StmtRef &s, unsigned indent) const;
  /// The declaration of `v` ("double h[16]", "const int n").
  /// "const double *name", "int name[4]"; restrictPointer spells a pointer
  /// "double *__restrict name".
  std::string declarator(const Var *v, bool restrictPointer = false) const;

private:
  std::string expr(const ExprRef &e, int minPrecedence) const;
  std::string inlineStmt(const StmtRef &s) const; // for `for (...)` clauses
  /// The element an Address stands for, passed to a reference parameter:
  /// `y[k]`, or `a` for a reference or a scalar.
  std::string referent(const ExprRef &address) const;
  void stmtInto(const StmtRef &s, unsigned indent, std::string &out) const;
  void bodyInto(const StmtRef &s, unsigned indent, std::string &out) const;

  const Namer &namer_;
};

} // namespace cgp

#endif // CGP_IR_PRINTER_H
