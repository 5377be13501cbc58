//===- HoistDecls.cpp - locals move to the top of the function ------------===//
#include "transform/HoistDecls.h"

namespace cgp {
namespace {

class DeclHoister {
public:
  StmtRef stmt(const StmtRef &s) {
    if (!s)
      return s;
    switch (s->kind) {
    case StmtKind::Decl: {
      // Declared at the top, assigned here: no longer const.
      s->var->isConst = false;
      s->var->loopDepth = loopDepth;
      locals.push_back(s->var);
      if (!s->value)
        return block();
      StmtRef a = assign(varRef(s->var), s->value);
      a->pos = s->pos;
      return a;
    }
    case StmtKind::Block: {
      std::vector<StmtRef> out;
      for (const StmtRef &c : s->stmts)
        out.push_back(stmt(c));
      return block(out);
    }
    case StmtKind::For: {
      auto copy = std::make_shared<StmtNode>(*s);
      bool keepIndex = s->counted.index && s->init && s->init->kind == StmtKind::Decl;
      if (keepIndex)
        s->init->var->loopDepth = loopDepth + 1; // declared where it stays, in the loop
      if (!keepIndex) {
        copy->declaresIndex = false;
        StmtRef init = stmt(s->init);
        if (init && isEmpty(init))
          init = nullptr;
        if (init && init->kind != StmtKind::Assign) {
          // An init that is not a single assignment runs before the loop.
          copy->init = nullptr;
          copy->body = loopBody(s->body);
          return block({init, copy});
        }
        copy->init = init;
      }
      copy->body = loopBody(s->body);
      return copy;
    }
    default: {
      if (!s->body && !s->elseBody)
        return s;
      auto copy = std::make_shared<StmtNode>(*s);
      bool isLoop = s->kind == StmtKind::While || s->kind == StmtKind::DoWhile;
      copy->body = isLoop ? loopBody(s->body) : stmt(s->body);
      copy->elseBody = stmt(s->elseBody);
      return copy;
    }
    }
  }

  /// A loop's body: what it declares lives for one iteration only.
  StmtRef loopBody(const StmtRef &body) {
    ++loopDepth;
    StmtRef out = stmt(body);
    --loopDepth;
    return out;
  }

  std::vector<Var *> locals;
  int loopDepth = 0;
};

} // namespace

std::vector<Var *> hoistDecls(Function &f) {
  DeclHoister h;
  f.body = h.stmt(f.body);
  return h.locals;
}

} // namespace cgp
