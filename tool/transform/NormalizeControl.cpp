//===- NormalizeControl.cpp - break, continue, return, switch -------------===//
//
// Each statement is rewritten together with the set of flags it may leave
// set ("escaping" flags). A sequence guards whatever follows a statement
// with escaping flags; a loop tests its own break flag and the return flag
// in its condition and clears its continue flag at the top of each
// iteration. Flags are created only for the jumps a function really has.
//
//===----------------------------------------------------------------------===//
#include "transform/NormalizeControl.h"

#include <functional>
#include <set>

namespace cgp {
namespace {

class ControlNormalizer {
public:
  ControlNormalizer(Function &f, Module &m) : f_(f), m_(m) {}

  void run() {
    if (!f_.returnType.isVoid()) {
      Var r;
      r.name = "result";
      r.elem = f_.returnType;
      r.origin = Var::Temp;
      f_.result = m_.newVar(r);
    }
    Result body = sequence(f_.body->stmts, 0, /*functionTail=*/true, /*loopTail=*/false);
    std::vector<StmtRef> stmts;
    if (f_.result)
      stmts.push_back(decl(f_.result));
    if (returned_)
      stmts.push_back(decl(returned_, boolLit(false)));
    stmts.push_back(body.stmt);
    f_.body = block(stmts);
  }

private:
  /// What a jump leaves: the flag to set, and the statements it targets.
  struct Target {
    Var *breakFlag = nullptr;
    Var *continueFlag = nullptr;
    bool isLoop = true;
    std::string label;
  };

  struct Result {
    StmtRef stmt;
    std::set<Var *, VarLess> escaping; // flags it may leave set for what follows
  };

  Var *newFlag(const std::string &name) {
    Var v;
    v.name = name;
    v.elem = ScalarType::boolType();
    v.origin = Var::Temp;
    return m_.newVar(v);
  }

  static ExprRef noneSet(const std::set<Var *, VarLess> &flags) {
    ExprRef cond;
    for (Var *flag : flags) {
      ExprRef term = unary(UnaryOp::Not, varRef(flag));
      cond = cond ? binary(BinaryOp::LAnd, cond, term) : term;
    }
    return cond;
  }

  Result sequence(const std::vector<StmtRef> &list, size_t from, bool functionTail,
                  bool loopTail) {
    std::vector<StmtRef> out;
    std::set<Var *, VarLess> escaping;
    for (size_t i = from; i < list.size(); ++i) {
      bool last = i + 1 == list.size();
      Result r = statement(list[i], functionTail && last, loopTail && last);
      out.push_back(r.stmt);
      escaping.insert(r.escaping.begin(), r.escaping.end());
      if (!r.escaping.empty() && !last) {
        Result rest = sequence(list, i + 1, functionTail, loopTail);
        if (!isEmpty(rest.stmt))
          out.push_back(ifStmt(noneSet(r.escaping), rest.stmt));
        escaping.insert(rest.escaping.begin(), rest.escaping.end());
        break;
      }
    }
    return {block(out), escaping};
  }

  Result body(const StmtRef &s, bool functionTail, bool loopTail) {
    if (!s)
      return {block(), {}};
    if (s->kind == StmtKind::Block)
      return sequence(s->stmts, 0, functionTail, loopTail);
    return sequence({s}, 0, functionTail, loopTail);
  }

  Target *innermost(bool loopOnly) {
    for (auto it = targets_.rbegin(); it != targets_.rend(); ++it)
      if (!loopOnly || (*it)->isLoop)
        return *it;
    return nullptr;
  }

  Result statement(const StmtRef &s, bool functionTail, bool loopTail) {
    switch (s->kind) {
    case StmtKind::Return: {
      std::vector<StmtRef> out;
      if (s->value && f_.result) {
        out.push_back(assign(varRef(f_.result), s->value));
        out.back()->pos = s->pos;
      }
      if (functionTail)
        return {block(out), {}};
      if (!returned_)
        returned_ = newFlag("returned");
      out.push_back(assign(varRef(returned_), boolLit(true)));
      return {block(out), {returned_}};
    }
    case StmtKind::Break: {
      Target *t = innermost(false);
      if (!t->breakFlag)
        t->breakFlag = newFlag("break_" + t->label);
      return {assign(varRef(t->breakFlag), boolLit(true)), {t->breakFlag}};
    }
    case StmtKind::Continue: {
      if (loopTail)
        return {block(), {}}; // continuing at the end of the body is a no-op
      Target *t = innermost(true);
      if (!t->continueFlag)
        t->continueFlag = newFlag("continue_" + t->label);
      return {assign(varRef(t->continueFlag), boolLit(true)), {t->continueFlag}};
    }
    case StmtKind::Block:
      return body(s, functionTail, loopTail);
    case StmtKind::If: {
      Result a = body(s->body, functionTail, loopTail);
      Result b = body(s->elseBody, functionTail, loopTail);
      StmtRef out = ifStmt(s->value, a.stmt, isEmpty(b.stmt) ? nullptr : b.stmt);
      out->pos = s->pos;
      a.escaping.insert(b.escaping.begin(), b.escaping.end());
      return {out, a.escaping};
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile:
      return loop(s);
    case StmtKind::Switch:
      return switchStmt(s, functionTail, loopTail);
    default:
      return {s, {}};
    }
  }

  static std::string loopLabel(const StmtRef &s, int n) {
    if (s->kind == StmtKind::For && s->init) {
      const StmtRef &init = s->init;
      if (init->kind == StmtKind::Decl)
        return init->var->name;
      if (init->kind == StmtKind::Assign && init->lhs->kind == ExprKind::VarRef)
        return init->lhs->var->name;
    }
    return "loop" + std::to_string(n);
  }

  Result loop(const StmtRef &s) {
    Target target;
    target.label = loopLabel(s, ++loops_);
    targets_.push_back(&target);
    Result inner = body(s->body, false, /*loopTail=*/true);
    targets_.pop_back();

    std::set<Var *, VarLess> escaping = inner.escaping;
    if (target.breakFlag)
      escaping.erase(target.breakFlag);
    if (target.continueFlag)
      escaping.erase(target.continueFlag);
    // The loop stops when it breaks or the function returns.
    std::set<Var *, VarLess> stops = escaping;
    if (target.breakFlag)
      stops.insert(target.breakFlag);

    std::vector<StmtRef> bodyStmts;
    if (target.continueFlag)
      bodyStmts.push_back(assign(varRef(target.continueFlag), boolLit(false)));
    bodyStmts.push_back(inner.stmt);

    ExprRef cond = s->value;
    bool always = cond->kind == ExprKind::IntLit && cond->type.kind == ScalarType::Bool &&
                  cond->intValue != 0; // `while (true)`: the flags alone
    if (!stops.empty())
      cond = always ? noneSet(stops) : binary(BinaryOp::LAnd, noneSet(stops), cond);

    std::vector<StmtRef> out;
    if (target.breakFlag)
      out.push_back(decl(target.breakFlag, boolLit(false)));
    if (target.continueFlag)
      out.push_back(decl(target.continueFlag, boolLit(false)));

    StmtRef loop;
    if (s->kind == StmtKind::For) {
      bool ownIndex = s->init && s->init->kind == StmtKind::Decl;
      if (ownIndex || !target.breakFlag) {
        // The step may run once more after a break; no one can see it when
        // the loop declares its own index.
        loop = forStmt(s->init, cond, s->step, block(bodyStmts));
        loop->declaresIndex = ownIndex;
      } else {
        // The index outlives the loop: run the step only while not stopped.
        if (s->init)
          out.push_back(s->init);
        if (s->step)
          bodyStmts.push_back(ifStmt(noneSet(stops), s->step));
        loop = whileStmt(cond, block(bodyStmts));
      }
    } else if (s->kind == StmtKind::While) {
      loop = whileStmt(cond, block(bodyStmts));
    } else {
      loop = doWhile(block(bodyStmts), cond);
    }
    loop->pos = s->pos;
    loop->label = target.label;
    out.push_back(loop);
    return {block(out), escaping};
  }

  /// True if `stmts` hold a `break` that leaves the switch (not one inside a
  /// nested loop or switch).
  static bool breaksOut(const std::vector<StmtRef> &stmts) {
    for (const StmtRef &s : stmts) {
      bool found = false;
      std::function<void(const StmtRef &)> scan = [&](const StmtRef &n) {
        if (!n || found)
          return;
        switch (n->kind) {
        case StmtKind::Break:
          found = true;
          return;
        case StmtKind::For:
        case StmtKind::While:
        case StmtKind::DoWhile:
        case StmtKind::Switch:
          return;
        default:
          for (const StmtRef &c : n->stmts)
            scan(c);
          scan(n->body);
          scan(n->elseBody);
        }
      };
      scan(s);
      if (found)
        return true;
    }
    return false;
  }

  Result switchStmt(const StmtRef &s, bool functionTail, bool loopTail) {
    std::vector<SwitchCase> cases = s->cases;
    // Simple form: every group but the last ends with `break` and has no
    // other break out of the switch. Then no group falls through, and the
    // trailing breaks can go.
    bool simple = true;
    std::vector<SwitchCase> trimmed = cases;
    for (size_t i = 0; i < trimmed.size(); ++i) {
      std::vector<StmtRef> &b = trimmed[i].body;
      bool endsWithBreak = !b.empty() && b.back()->kind == StmtKind::Break;
      bool endsWithJump = !b.empty() && (b.back()->kind == StmtKind::Return ||
                                         b.back()->kind == StmtKind::Continue);
      if (endsWithBreak)
        b.pop_back();
      if ((!endsWithBreak && !endsWithJump && i + 1 < trimmed.size()) || breaksOut(b))
        simple = false;
    }
    if (simple)
      cases = trimmed;

    std::vector<StmtRef> out;
    ExprRef sel = s->value;
    if (sel->kind != ExprKind::VarRef) {
      Var v;
      v.name = "selector";
      v.elem = sel->type;
      v.origin = Var::Temp;
      Var *tmp = m_.newVar(v);
      out.push_back(decl(tmp, sel));
      sel = varRef(tmp);
    }
    auto matches = [&](const SwitchCase &c) {
      ExprRef cond;
      for (int64_t value : c.values) {
        ExprRef eq = binary(BinaryOp::Eq, sel, intLit(value, sel->type));
        cond = cond ? binary(BinaryOp::LOr, cond, eq) : eq;
      }
      return cond;
    };

    if (simple) {
      Target target;
      target.isLoop = false;
      target.label = "switch";
      targets_.push_back(&target);
      StmtRef chain;
      std::set<Var *, VarLess> escaping;
      const SwitchCase *fallback = nullptr;
      for (const SwitchCase &c : cases)
        if (c.isDefault)
          fallback = &c;
      if (fallback) {
        Result r = sequence(fallback->body, 0, functionTail, loopTail);
        chain = r.stmt;
        escaping = r.escaping;
      }
      for (auto it = cases.rbegin(); it != cases.rend(); ++it) {
        if (it->isDefault)
          continue;
        Result r = sequence(it->body, 0, functionTail, loopTail);
        escaping.insert(r.escaping.begin(), r.escaping.end());
        chain = ifStmt(matches(*it), r.stmt, chain);
      }
      targets_.pop_back();
      if (chain)
        out.push_back(chain);
      if (!out.empty())
        out.front()->pos = s->pos;
      return {block(out), escaping};
    }

    // General form: the group execution starts at, then each group in turn
    // while nothing has broken out.
    Target target;
    target.isLoop = false;
    target.label = "switch";
    targets_.push_back(&target);
    ExprRef entry = intLit(static_cast<int64_t>(cases.size()));
    for (size_t i = cases.size(); i-- > 0;)
      if (cases[i].isDefault)
        entry = intLit(static_cast<int64_t>(i));
    for (size_t i = cases.size(); i-- > 0;)
      if (!cases[i].values.empty())
        entry = select(matches(cases[i]), intLit(static_cast<int64_t>(i)), entry);
    Var ev;
    ev.name = "first_case";
    ev.elem = ScalarType::intType();
    ev.origin = Var::Temp;
    Var *entryVar = m_.newVar(ev);
    out.push_back(decl(entryVar, entry));

    std::set<Var *, VarLess> guard, escaping;
    std::vector<Result> groups;
    for (size_t i = 0; i < cases.size(); ++i)
      groups.push_back(sequence(cases[i].body, 0, false, false));
    targets_.pop_back();
    if (target.breakFlag)
      out.insert(out.begin(), decl(target.breakFlag, boolLit(false)));
    for (size_t i = 0; i < cases.size(); ++i) {
      ExprRef cond = binary(BinaryOp::Le, varRef(entryVar), intLit(static_cast<int64_t>(i)));
      if (!guard.empty())
        cond = binary(BinaryOp::LAnd, noneSet(guard), cond);
      out.push_back(ifStmt(cond, groups[i].stmt));
      guard.insert(groups[i].escaping.begin(), groups[i].escaping.end());
      escaping.insert(groups[i].escaping.begin(), groups[i].escaping.end());
    }
    if (target.breakFlag)
      escaping.erase(target.breakFlag);
    out.front()->pos = s->pos;
    return {block(out), escaping};
  }

  Function &f_;
  Module &m_;
  Var *returned_ = nullptr;
  std::vector<Target *> targets_;
  int loops_ = 0;
};

} // namespace

void normalizeControl(Function &f, Module &module) { ControlNormalizer(f, module).run(); }

} // namespace cgp
