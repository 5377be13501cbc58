//===- Prepare.cpp - a function made ready for differentiation ------------===//
#include "transform/Prepare.h"

#include "transform/CountedLoops.h"
#include "transform/HoistCalls.h"
#include "transform/HoistDecls.h"
#include "transform/NameMathFactors.h"
#include "transform/NormalizeControl.h"
#include "transform/ProfileHooks.h"
#include "transform/ScalarReplacement.h"

namespace cgp {
namespace {

/// Drops the statements `x = x;` (and `a[i] = a[i];`): they change nothing,
/// yet each would be taped as an overwrite, and the generated code that
/// repeats them draws -Wself-assign.
void dropSelfAssignments(const StmtRef &body) {
  auto filter = [](std::vector<StmtRef> &stmts) {
    std::vector<StmtRef> kept;
    for (const StmtRef &c : stmts) {
      bool self = c->kind == StmtKind::Assign && c->assignOp == AssignOp::Set &&
                  isPure(c->lhs) && sameExpr(c->lhs, c->value);
      if (!self)
        kept.push_back(c);
    }
    stmts = std::move(kept);
  };
  forEachStmt(body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Block)
      filter(s->stmts);
    for (SwitchCase &c : s->cases)
      filter(c.body);
  });
}

} // namespace

void prepareFunction(Function &f, Module &module) {
  if (f.prepared || !f.body)
    return;
  dropSelfAssignments(f.body);
  if (f.isKernel)
    replaceSmallArrays(f, module); // before anything counts on its statements
  bool instrument = f.isKernel && module.instrument;
  if (instrument)
    addBranchHooks(f, module); // the user's `if`s, before flags add more
  normalizeControl(f, module);
  if (instrument)
    addLoopHooks(f, module);
  hoistCalls(f, module);
  nameMathFactors(f, module);
  markCountedLoops(f);
  f.locals = hoistDecls(f);
  f.prepared = true;
}

} // namespace cgp
