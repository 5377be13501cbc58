//===- PrimalCopies.cpp - callable copies of helpers with split parameters ===//
//
// See PrimalCopies.h. The copy shares the helper's (prepared) body and
// variables: it computes what the user's function computes, with the
// members of its struct parameters as parameters of their own.
//
//===----------------------------------------------------------------------===//
#include "transform/PrimalCopies.h"

#include "transform/Declarations.h"

#include <map>
#include <set>

namespace cgp {

void addPrimalCopies(Module &module, GeneratedCode &code) {
  std::vector<Function *> copies; // callees first
  std::map<std::string, int> count;
  std::set<Function *> done;
  auto visit = [&](Function *f, auto &self) -> void {
    forEachStmt(f->body, [&](const StmtRef &s) {
      for (const ExprRef &e : ownExprs(s))
        forEachExpr(e, [&](const ExprRef &x) {
          Function *h = x->kind == ExprKind::Call ? x->callee : nullptr;
          // A function with a custom pullback is called as it is, through
          // its adapter (transform/CustomCallAdapters.h).
          if (!h || !h->splitParams || !h->userPullback.empty() || !done.insert(h).second)
            return;
          int n = ++count[h->scopedName()];
          h->primalName = h->name + "_primal" + (n == 1 ? "" : "_" + std::to_string(n));
          self(h, self); // what it calls comes first
          Function *copy = module.newFunction();
          *copy = *h;
          copy->name = h->primalName;
          copy->primalName.clear();
          copy->templateArgs.clear();
          copy->templateKernel = nullptr;
          copy->isStatic = copy->isInline = true;
          copy->isKernel = false;
          // The prepared body leaves declarations to whoever prints it:
          // its locals zeroed at the top, the value in `result`.
          std::vector<StmtRef> code{h->body};
          if (h->result)
            code.push_back(returnStmt(varRef(h->result)));
          dropUnreadLocals({&code});
          std::vector<StmtRef> body = declareUsed(h->locals, code);
          appendAll(body, code);
          copy->body = block(body);
          markUnusedParams(*copy);
          copies.push_back(copy);
        });
    });
  };
  for (Function *f : std::vector<Function *>(code.functions))
    visit(f, visit);
  code.functions.insert(code.functions.begin(), copies.begin(), copies.end());
}

} // namespace cgp
