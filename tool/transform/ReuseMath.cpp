//===- ReuseMath.cpp - a math call the reverse sweep repeats runs once ----===//
//
// See ReuseMath.h. Each list of statements is scanned once, front to back,
// with a table of the math calls evaluated so far that are still valid:
//   - a math call found again in a plain statement (declaration, assignment,
//     call) takes its value from the table's holder; the first time a call
//     is found again, its holder is made: a `const` temporary declared right
//     before the statement that evaluated it first (or, when that statement
//     is `x = call` or `const T x = call`, the variable x itself);
//   - a statement that writes a variable removes the calls that read it (a
//     write through a pointer removes every call that reads through a
//     pointer, since local pointers may alias); a statement we cannot see
//     into (raw text, a call of a function without body, break, continue,
//     return) empties the table;
//   - calls under `?:` arms and the right operand of `&&` / `||` are left
//     alone: moving them before the statement would evaluate them on paths
//     that did not.
// Nested blocks (if arms, loop bodies) get tables of their own; a compound
// statement acts on the enclosing table by what it writes. Switch cases are
// left alone (a declaration cannot precede a case label's code unbraced).
//
//===----------------------------------------------------------------------===//
#include "transform/ReuseMath.h"

#include "ir/MathTable.h"

#include <set>

namespace cgp {
namespace {

/// Math functions worth a temporary: a library call each.
bool isCostly(MathFn fn) { return mathFunction(fn).isCostly(); }

/// The costly math calls `e` always evaluates, outermost first.
void collectCandidates(const ExprRef &e, std::vector<ExprRef> &out) {
  if (!e)
    return;
  if (e->kind == ExprKind::Math && isCostly(e->mathFn))
    out.push_back(e);
  if (ordersOperands(*e)) {
    collectCandidates(e->operands[0], out); // only the first operand always runs
    return;
  }
  for (const ExprRef &op : e->operands)
    collectCandidates(op, out);
}

/// `e` with every sub-expression equal to `what` replaced by `by`.
ExprRef replaceAll(const ExprRef &e, const ExprRef &what, const ExprRef &by) {
  if (!e)
    return e;
  if (sameExpr(e, what))
    return by;
  std::shared_ptr<ExprNode> copy;
  for (size_t i = 0; i < e->operands.size(); ++i) {
    ExprRef op = replaceAll(e->operands[i], what, by);
    if (op == e->operands[i])
      continue;
    if (!copy)
      copy = std::make_shared<ExprNode>(*e);
    copy->operands[i] = op;
  }
  return copy ? copy : e;
}

bool contains(const ExprRef &e, const ExprRef &what) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) { found |= sameExpr(x, what); });
  return found;
}

bool readsThroughPointer(const ExprRef &e) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    found |= (x->kind == ExprKind::Index || x->kind == ExprKind::Address) && x->var->isPointer();
  });
  return found;
}

/// A statement the table can look into: it evaluates expressions and
/// writes what collectWrittenVars says, nothing else.
bool isPlain(const StmtRef &s) {
  if (s->kind != StmtKind::Decl && s->kind != StmtKind::Assign && s->kind != StmtKind::Eval &&
      s->kind != StmtKind::Push)
    return false;
  bool plain = true;
  for (const ExprRef &e : ownExprs(s))
    forEachExpr(e, [&](const ExprRef &x) {
      // A method of a runtime object (a checkpoint store) may restore any
      // variable; a free function (a helper's generated reverse sweep, a
      // library call) writes only through the pointers it is given.
      plain &= !(x->kind == ExprKind::Opaque && x->var) && x->kind != ExprKind::Member;
    });
  return plain;
}

/// What `s` may write: collectWrittenVars, and the memory passed to
/// functions without a body here (a pointer, an array, an element's address).
std::set<const Var *> writtenBy(const StmtRef &s) {
  std::set<const Var *> written;
  collectWrittenVars(s, written);
  forEachStmt(s, [&](const StmtRef &n) {
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Opaque)
          for (const ExprRef &arg : x->operands)
            if (arg->kind == ExprKind::Address ||
                (arg->kind == ExprKind::VarRef && arg->var->isMemory()))
              written.insert(arg->var);
      });
  });
  return written;
}

/// One math call evaluated earlier in the list.
struct Available {
  ExprRef call;
  Var *holder = nullptr; // null until a second use makes one
  size_t at = 0;         // position in the output list of its first statement
  std::set<const Var *> reads;
  bool readsPointer = false;
};

class BlockReuse {
public:
  explicit BlockReuse(Module &module) : module_(module) {}

  void run(std::vector<StmtRef> &stmts) {
    std::vector<StmtRef> out;
    std::vector<Available> table;
    for (StmtRef s : stmts) {
      if (!s) {
        out.push_back(s);
        continue;
      }
      switch (s->kind) {
      case StmtKind::Comment:
        out.push_back(s);
        continue;
      case StmtKind::Block:
      case StmtKind::If:
      case StmtKind::For:
      case StmtKind::While:
      case StmtKind::DoWhile:
        descend(s);
        out.push_back(s);
        forget(table, s);
        continue;
      default:
        break;
      }
      if (!isPlain(s)) {
        out.push_back(s);
        table.clear();
        continue;
      }
      if (s->value)
        s = reuseIn(s, out, table);
      out.push_back(s);
      forget(table, s);
      remember(s, out.size() - 1, table);
    }
    stmts = std::move(out);
  }

private:
  void descend(const StmtRef &s) {
    run(s->stmts);
    for (StmtRef *child : {&s->body, &s->elseBody})
      if (*child) {
        if ((*child)->kind != StmtKind::Block)
          *child = block({*child});
        run((*child)->stmts);
      }
  }

  /// `s` with its math calls found in `table` taken from their holders;
  /// the calls not found are added to the table.
  StmtRef reuseIn(StmtRef s, std::vector<StmtRef> &out, std::vector<Available> &table) {
    std::vector<ExprRef> calls;
    collectCandidates(s->value, calls);
    for (const ExprRef &c : calls) {
      if (!contains(s->value, c))
        continue; // an enclosing call was replaced already
      Available *seen = nullptr;
      for (Available &a : table)
        if (sameExpr(a.call, c))
          seen = &a;
      if (!seen && c == s->value && holderOf(s))
        continue; // remember() makes the statement's variable its holder
      if (!seen) {
        Available a;
        a.call = c;
        a.at = out.size();
        std::vector<Var *> vars;
        collectVars(c, vars);
        a.reads.insert(vars.begin(), vars.end());
        a.readsPointer = readsThroughPointer(c);
        table.push_back(a);
        continue;
      }
      if (!seen->holder)
        s = makeHolder(*seen, s, out, table);
      s = withValue(s, replaceAll(s->value, c, varRef(seen->holder)));
    }
    return s;
  }

  /// Declares a temporary for `a` before its first statement (which may be
  /// `current`, not yet in `out`) and makes that statement read it.
  StmtRef makeHolder(Available &a, StmtRef current, std::vector<StmtRef> &out,
                     std::vector<Available> &table) {
    Var v;
    v.name = mathValueName(a.call->mathFn);
    v.elem = a.call->type;
    v.origin = Var::Temp;
    v.isConst = true;
    a.holder = module_.newVar(v);
    StmtRef holderDecl = decl(a.holder, a.call);
    if (a.at == out.size()) {
      out.push_back(holderDecl);
    } else {
      out[a.at] = withValue(out[a.at], replaceAll(out[a.at]->value, a.call, varRef(a.holder)));
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(a.at), holderDecl);
    }
    for (Available &other : table)
      if (&other != &a && other.at >= a.at)
        ++other.at;
    ++a.at;
    return current;
  }

  static StmtRef withValue(const StmtRef &s, ExprRef value) {
    auto copy = std::make_shared<StmtNode>(*s);
    copy->value = std::move(value);
    return copy;
  }

  /// Drops the calls `s` may change the value of.
  static void forget(std::vector<Available> &table, const StmtRef &s) {
    std::set<const Var *> written = writtenBy(s);
    bool throughPointer = false;
    for (const Var *v : written)
      throughPointer |= v->isPointer();
    bool leaves = false;
    forEachStmt(s, [&](const StmtRef &n) {
      leaves |= n->kind == StmtKind::Raw || n->kind == StmtKind::Switch ||
                n->kind == StmtKind::Break || n->kind == StmtKind::Continue ||
                n->kind == StmtKind::Return || (n != s && !isPlainOrCompound(n));
    });
    if (leaves) {
      table.clear();
      return;
    }
    std::vector<Available> kept;
    for (Available &a : table) {
      bool stale = (a.holder && written.count(a.holder)) || (throughPointer && a.readsPointer);
      for (const Var *v : written)
        stale |= a.reads.count(v) != 0;
      if (!stale)
        kept.push_back(a);
    }
    table = std::move(kept);
  }

  static bool isPlainOrCompound(const StmtRef &n) {
    switch (n->kind) {
    case StmtKind::Block:
    case StmtKind::If:
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile:
    case StmtKind::Comment:
      return true;
    default:
      return isPlain(n);
    }
  }

  /// `x = call` and `const T x = call` hold their call in x for later
  /// statements (until x or what the call reads is written).
  static Var *holderOf(const StmtRef &s) {
    Var *x = nullptr;
    if (s->kind == StmtKind::Decl && s->var->isScalar())
      x = s->var;
    if (s->kind == StmtKind::Assign && s->assignOp == AssignOp::Set &&
        s->lhs->kind == ExprKind::VarRef)
      x = s->lhs->var;
    if (!x || !s->value || s->value->kind != ExprKind::Math || !isCostly(s->value->mathFn) ||
        x->elem != s->value->type || mentions(s->value, x))
      return nullptr;
    return x;
  }

  static void remember(const StmtRef &s, size_t at, std::vector<Available> &table) {
    Var *x = holderOf(s);
    if (!x)
      return;
    for (const Available &a : table)
      if (sameExpr(a.call, s->value))
        return; // an earlier holder stays the one
    Available a;
    a.call = s->value;
    a.holder = x;
    a.at = at;
    std::vector<Var *> vars;
    collectVars(s->value, vars);
    a.reads.insert(vars.begin(), vars.end());
    a.readsPointer = readsThroughPointer(s->value);
    table.push_back(a);
  }

  Module &module_;
};

} // namespace

void reuseMathValues(std::vector<StmtRef> &stmts, Module &module) {
  BlockReuse(module).run(stmts);
}

} // namespace cgp

