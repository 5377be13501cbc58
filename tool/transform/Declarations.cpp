//===- Declarations.cpp - locals and parameters of generated code ---------===//
#include "transform/Declarations.h"

#include <algorithm>
#include <cctype>

namespace cgp {

Var *makeVar(Module &m, const std::string &name, const ScalarType &t, Var::Shape shape,
             Var::Origin origin, std::vector<int64_t> dims) {
  Var v;
  v.name = name;
  v.elem = t;
  v.shape = shape;
  v.origin = origin;
  v.dims = std::move(dims);
  return m.newVar(v);
}

/// `s` with a refresh of the shadow after each refresh of a primal in it;
/// `s` itself when it holds none.
static StmtRef withShadowRefreshes(const StmtRef &s,
                                   const std::function<Var *(const Var *)> &shadowFor) {
  if (!s)
    return s;
  bool changed = false;
  auto list = [&](const std::vector<StmtRef> &in) {
    std::vector<StmtRef> out;
    out.reserve(in.size());
    for (const StmtRef &c : in) {
      out.push_back(withShadowRefreshes(c, shadowFor));
      changed |= out.back() != c;
      Var *v = nullptr;
      if (Var *shadow = isRefresh(c, v) ? shadowFor(v) : nullptr) {
        out.push_back(refreshElements(shadow));
        changed = true;
      }
    }
    return out;
  };
  std::vector<StmtRef> stmts = list(s->stmts);
  std::vector<SwitchCase> cases = s->cases;
  for (SwitchCase &c : cases)
    c.body = list(c.body);
  StmtRef parts[] = {s->init, s->step, s->body, s->elseBody};
  for (StmtRef &p : parts) {
    StmtRef r = withShadowRefreshes(p, shadowFor);
    changed |= r != p;
    p = r;
  }
  if (!changed)
    return s;
  auto copy = std::make_shared<StmtNode>(*s);
  copy->stmts = std::move(stmts);
  copy->cases = std::move(cases);
  copy->init = parts[0];
  copy->step = parts[1];
  copy->body = parts[2];
  copy->elseBody = parts[3];
  return copy;
}

void refreshShadows(StmtRef &body, const std::function<Var *(const Var *)> &shadowFor) {
  body = withShadowRefreshes(body, shadowFor);
}

Var *makeShadow(Module &m, const std::string &name, Var *primal) {
  Var *v = makeVar(m, name, primal->elem, Var::Pointer, Var::Temp, {});
  v->ownsStorage = true;
  v->shadowOf = primal;
  return v;
}

Var *makeTemp(Module &m, const std::string &name, const ScalarType &t, bool isConst) {
  Var *v = makeVar(m, name, t, Var::Scalar, Var::Temp, {});
  v->isConst = isConst;
  return v;
}

StmtRef zeroDecl(Var *v) {
  if (v->ownsStorage) // sized where the vector is declared, or with its primal
    return decl(v, v->shadowOf ? wholeVarRef(v->shadowOf) : nullptr);
  if (v->blockShared) // zeroed by the block's threads together, or written first
    return decl(v);
  if (v->isArray())
    return decl(v, floatLit(0, v->elem));
  if (v->elem.isFloating())
    return decl(v, floatLit(0, v->elem));
  if (v->elem.kind == ScalarType::Bool)
    return decl(v, boolLit(false));
  return decl(v, intLit(0, v->elem));
}

std::set<const Var *> mentioned(const std::vector<StmtRef> &stmts) {
  std::set<const Var *> used;
  for (const StmtRef &s : stmts)
    forEachStmt(s, [&](const StmtRef &n) {
      if (n->var)
        used.insert(n->var);
      for (const ExprRef &e : ownExprs(n))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->var)
            used.insert(x->var);
        });
    });
  return used;
}

std::vector<StmtRef> declareUsed(const std::vector<Var *> &locals,
                                 const std::vector<StmtRef> &body) {
  std::set<const Var *> used = mentioned(body);
  for (const Var *v : std::set<const Var *>(used))
    if (v->shadowOf)
      used.insert(v->shadowOf); // a Shadow is declared from its primal
  std::vector<StmtRef> decls;
  for (Var *v : locals)
    if (used.count(v))
      decls.push_back(zeroDecl(v));
  return decls;
}

std::vector<StmtRef> keepUsed(const std::vector<StmtRef> &decls, const std::vector<StmtRef> &body) {
  std::set<const Var *> used = mentioned(body);
  std::vector<StmtRef> kept;
  for (const StmtRef &d : decls)
    if (used.count(d->var))
      kept.push_back(d);
  return kept;
}

namespace {

/// The scalars whose value some statement of `code` reads. Storing into a
/// local, `x = e` or `x += e`, does not read it in this sense (compilers
/// count a compound assignment as a store too); naming it in a line of raw
/// C++ text does.
void collectReads(const std::vector<std::vector<StmtRef> *> &code, std::set<const Var *> &read,
                  std::set<std::string> &rawWords) {
  for (const std::vector<StmtRef> *list : code)
    for (const StmtRef &s : *list)
      forEachStmt(s, [&](const StmtRef &n) {
        if (n->kind == StmtKind::Raw) {
          std::string word;
          for (char c : n->text + " ") {
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
              word += c;
            } else if (!word.empty()) {
              rawWords.insert(word);
              word.clear();
            }
          }
        }
        for (const ExprRef &e : ownExprs(n)) {
          if (n->kind == StmtKind::Assign && e == n->lhs && e->kind == ExprKind::VarRef)
            continue;
          if (n->kind == StmtKind::Assign && e == n->lhs && e->kind == ExprKind::Index) {
            for (const ExprRef &k : e->operands) // a store into an element reads its index
              forEachExpr(k, [&](const ExprRef &x) {
                if (x->var)
                  read.insert(x->var);
              });
            continue;
          }
          forEachExpr(e, [&](const ExprRef &x) {
            if (x->var)
              read.insert(x->var);
          });
        }
      });
}

class UnreadStores {
public:
  UnreadStores(const std::set<const Var *> &read, const std::set<std::string> &rawWords)
      : read_(read), rawWords_(rawWords) {}

  bool changed() const { return changed_; }

  /// `list` without its unread stores; the same vector when nothing changes.
  /// `scoped`: the statements of a block (printed in braces), where a
  /// declaration reaches no further than the block's end.
  std::vector<StmtRef> list(const std::vector<StmtRef> &list, bool scoped = false) {
    std::vector<bool> unreadInBlock =
        scoped ? declsUnreadInBlock(list) : std::vector<bool>(list.size(), false);
    std::vector<StmtRef> out;
    for (size_t k = 0; k < list.size(); ++k) {
      if (unreadInBlock[k]) {
        changed_ = true;
        continue;
      }
      if (StmtRef kept = stmt(list[k]))
        out.push_back(kept);
    }
    return out;
  }

  /// A scalar local declared from a pure value (or none), which a later
  /// statement of its block could read.
  bool blockScoped(const StmtRef &d) const {
    return d->kind == StmtKind::Decl && d->var->isScalar() && !d->var->isReference &&
           (!d->value || isPure(d->value)) && !rawWords_.count(d->var->name) &&
           (d->var->origin == Var::Local || d->var->origin == Var::Temp);
  }

  /// Which statements of `list` declare such a scalar that no later
  /// statement of the list reads. One variable may be read in another scope
  /// (a loop's index, declared again in each copy of the loop's body that
  /// the sweeps make) and not in this one. One pass from the end.
  std::vector<bool> declsUnreadInBlock(const std::vector<StmtRef> &list) const {
    std::vector<bool> out(list.size(), false);
    if (std::none_of(list.begin(), list.end(), [&](const StmtRef &s) { return blockScoped(s); }))
      return out;
    std::set<const Var *> later;
    std::set<std::string> words;
    for (size_t k = list.size(); k-- > 0;) {
      const StmtRef &s = list[k];
      if (blockScoped(s) && !later.count(s->var) && !words.count(s->var->name)) {
        out[k] = true;
        continue;
      }
      std::vector<StmtRef> one{s};
      collectReads({&one}, later, words);
    }
    return out;
  }

  /// A local scalar or array nothing reads (an array's elements are only
  /// stored into); not a std::vector, nor a CUDA block's shared array.
  bool unread(const Var *v) const {
    return v && (v->isScalar() || v->isArray()) && !v->ownsStorage && !v->blockShared &&
           (v->origin == Var::Local || v->origin == Var::Temp) && !v->isReference &&
           !read_.count(v) && !rawWords_.count(v->name);
  }

  /// `s` without its unread stores (a copy if any), or null to drop it.
  StmtRef stmt(const StmtRef &s) {
    switch (s->kind) {
    case StmtKind::Assign:
      if ((s->lhs->kind == ExprKind::VarRef || s->lhs->kind == ExprKind::Index) &&
          unread(s->lhs->var) && isPure(s->lhs) && s->atomicity == StmtNode::Atomicity::None)
        return drop(s, s->value);
      return s;
    case StmtKind::Decl:
      if (unread(s->var)) {
        if (!s->value || isPure(s->value)) {
          changed_ = true;
          return nullptr;
        }
        return drop(s, s->value); // `const int i_first = pop();` keeps its pop
      }
      return s;
    case StmtKind::Block: {
      std::vector<StmtRef> stmts = list(s->stmts, /*scoped=*/true);
      if (same(stmts, s->stmts))
        return s;
      auto copy = std::make_shared<StmtNode>(*s);
      copy->stmts = std::move(stmts);
      return copy;
    }
    case StmtKind::If:
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: {
      StmtRef body = nested(s->body), elseBody = nested(s->elseBody);
      if (body == s->body && elseBody == s->elseBody)
        return s;
      if (s->kind == StmtKind::For && isEmpty(body) && onlyCounts(s)) {
        changed_ = true; // a loop left with nothing to do but count
        return nullptr;
      }
      auto copy = std::make_shared<StmtNode>(*s);
      copy->body = body;
      copy->elseBody = elseBody;
      return copy;
    }
    case StmtKind::Switch: {
      std::vector<SwitchCase> cases = s->cases;
      bool any = false;
      for (SwitchCase &c : cases) {
        std::vector<StmtRef> body = list(c.body);
        if (!same(body, c.body)) {
          c.body = std::move(body);
          any = true;
        }
      }
      if (!any)
        return s;
      auto copy = std::make_shared<StmtNode>(*s);
      copy->cases = std::move(cases);
      return copy;
    }
    default:
      return s;
    }
  }

  /// True for `for (T i = a; cond; step)` whose init declares its index,
  /// whose step changes nothing else and whose parts have no effect.
  static bool onlyCounts(const StmtRef &s) {
    const StmtRef &init = s->init, &step = s->step;
    return init && init->kind == StmtKind::Decl && init->var->isScalar() &&
           (!init->value || isPure(init->value)) && s->value && isPure(s->value) && step &&
           step->kind == StmtKind::Assign && step->lhs->kind == ExprKind::VarRef &&
           step->lhs->var == init->var && isPure(step->value);
  }

  /// The body of a branch or a loop: an empty block where its only
  /// statement goes.
  StmtRef nested(const StmtRef &s) {
    if (!s)
      return s;
    StmtRef kept = stmt(s);
    return kept ? kept : block();
  }

  /// An unread store of `value`: nothing, or the call that computes it.
  StmtRef drop(const StmtRef &s, const ExprRef &value) {
    if (isPure(value)) {
      changed_ = true;
      return nullptr;
    }
    if (value->kind == ExprKind::Call || value->kind == ExprKind::Opaque ||
        value->kind == ExprKind::TapePop) {
      changed_ = true;
      StmtRef call = eval(value);
      call->pos = s->pos;
      return call;
    }
    return s; // the effect is inside a larger expression: the store stays
  }

  static bool same(const std::vector<StmtRef> &a, const std::vector<StmtRef> &b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

  const std::set<const Var *> &read_;
  const std::set<std::string> &rawWords_;
  bool changed_ = false;
};

} // namespace

void dropUnreadLocals(const std::vector<std::vector<StmtRef> *> &code) {
  for (;;) {
    std::set<const Var *> read;
    std::set<std::string> rawWords;
    collectReads(code, read, rawWords);
    UnreadStores stores(read, rawWords);
    std::vector<std::vector<StmtRef>> rewritten;
    for (std::vector<StmtRef> *list : code)
      rewritten.push_back(stores.list(*list));
    if (!stores.changed())
      return;
    for (size_t i = 0; i < code.size(); ++i)
      *code[i] = std::move(rewritten[i]);
  }
}

void markUnusedParams(Function &f) {
  std::set<const Var *> used = mentioned(f.body->stmts);
  std::vector<StmtRef> marks;
  for (Var *p : f.params)
    if (!used.count(p))
      marks.push_back(raw("(void)" + p->name + ";"));
  f.body->stmts.insert(f.body->stmts.begin(), marks.begin(), marks.end());
}

} // namespace cgp
