//===- Declarations.h - locals and parameters of generated code -*- C++ -*-===//
//
// Small pieces both modes use to assemble generated functions: new
// variables, zero-initialised declarations of the locals a body uses, and
// `(void)p;` for parameters a body ignores.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_DECLARATIONS_H
#define CGP_TRANSFORM_DECLARATIONS_H

#include "ir/IR.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace cgp {

/// A new variable of the module.
Var *makeVar(Module &m, const std::string &name, const ScalarType &t, Var::Shape shape,
             Var::Origin origin, std::vector<int64_t> dims = {});

/// After each refresh of a std::vector local's elements pointer in `body`,
/// refreshes that of its shadow (`shadowFor(v)`, null for none) too: a
/// Shadow is sized with its primal. Statements it changes are copied (the
/// sweeps share statements with the primal and with each other).
void refreshShadows(StmtRef &body, const std::function<Var *(const Var *)> &shadowFor);
/// The adjoint or tangent `name` of a std::vector local (Var::ownsStorage).
Var *makeShadow(Module &m, const std::string &name, Var *primal);
/// A scalar temporary of generated code (`const` when `isConst`).
Var *makeTemp(Module &m, const std::string &name, const ScalarType &t, bool isConst = false);

/// `double x = 0.0;`, `int i = 0;`, `double a[4] = {};`
StmtRef zeroDecl(Var *v);

/// The variables the statements mention.
std::set<const Var *> mentioned(const std::vector<StmtRef> &stmts);

/// Declarations (zeroed) of the `locals` that `body` uses, in order.
std::vector<StmtRef> declareUsed(const std::vector<Var *> &locals,
                                 const std::vector<StmtRef> &body);

/// Keeps the declarations in `decls` of variables that `body` uses.
std::vector<StmtRef> keepUsed(const std::vector<StmtRef> &decls, const std::vector<StmtRef> &body);

/// Drops the stores to locals that no statement of `code` reads: an
/// assignment (plain or compound, `x = ...`, `x += ...`, `a[i] = ...`) or a
/// declaration of a scalar or array whose value nothing uses, such as a
/// member of a split struct that one sweep never reads, an array the kernel
/// fills for a branch that carries no derivative, or a value the tape gives
/// back to no reader; then a `for` loop left with nothing to do but count
/// goes too. A store whose value is a call or a pop keeps it, as a statement; one with a
/// call deeper inside stays. Repeats until no store is dropped (a dropped
/// store may have been the only reader of another local). Every list of
/// `code` belongs to one generated function, and the read set spans them
/// all; statements are copied where they change, never changed in place, so
/// IR shared with other functions stays as it was. The values the function
/// computes are the same; C++ compilers no longer report the locals as set
/// but unused (-Wunused-but-set-variable).
void dropUnreadLocals(const std::vector<std::vector<StmtRef> *> &code);

/// `(void)p;` for the parameters of `f` that its body does not use, so
/// that generated code compiles without warnings under -Wextra.
void markUnusedParams(Function &f);

} // namespace cgp

#endif // CGP_TRANSFORM_DECLARATIONS_H
