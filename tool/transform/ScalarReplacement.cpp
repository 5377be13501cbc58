//===- ScalarReplacement.cpp - small local arrays become scalars ----------===//
//
// Three rewrites of the kernel's tree, in order: inline the calls, unroll
// the loops, split the arrays. A first run with every small array in view
// finds which arrays end up used only through constant elements; a second
// run inlines and unrolls only what touches those, and splits them.
//
//===----------------------------------------------------------------------===//
#include "transform/ScalarReplacement.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace cgp {
namespace {

using VarFilter = std::function<bool(const Var *)>;

/// The most statements a loop unrolls to, the loops in it unrolled too.
constexpr size_t kMaxUnrolledStatements = 64;

/// Rebuilds `e` bottom-up, `fn` giving each node's replacement (or null).
ExprRef rewriteExpr(const ExprRef &e, const std::function<ExprRef(const ExprRef &)> &fn) {
  if (!e)
    return e;
  std::vector<ExprRef> ops;
  bool changed = false;
  for (const ExprRef &o : e->operands) {
    ops.push_back(rewriteExpr(o, fn));
    changed |= ops.back() != o;
  }
  ExprRef self = e;
  if (changed) {
    auto copy = std::make_shared<ExprNode>(*e);
    copy->operands = std::move(ops);
    self = copy;
  }
  ExprRef replaced = fn(self);
  return replaced ? replaced : self;
}

/// `x`, an operation on two integer literals, or on a literal and a
/// constant, done (`0 + 1` is `1`, `2 * NS` is `6`); null for anything else.
ExprRef foldLiteral(const ExprRef &x) {
  if (x->kind != ExprKind::Binary)
    return nullptr;
  std::optional<int64_t> left = knownInteger(x->operands[0]),
                         right = knownInteger(x->operands[1]);
  if (!left || !right || (x->operands[0]->kind != ExprKind::IntLit &&
                          x->operands[1]->kind != ExprKind::IntLit))
    return nullptr;
  int64_t a = *left, b = *right;
  switch (x->binaryOp) {
  case BinaryOp::Add:
    return intLit(a + b, x->type);
  case BinaryOp::Sub:
    return intLit(a - b, x->type);
  case BinaryOp::Mul:
    return intLit(a * b, x->type);
  default:
    return nullptr;
  }
}

/// Integer arithmetic on literals, done throughout `e`.
ExprRef foldLiterals(const ExprRef &e) { return rewriteExpr(e, foldLiteral); }

/// A copy of a tree, each statement of a block replaced by what `expand`
/// gives for it (itself when it gives nothing), each expression by `expr`.
struct TreeRewriter {
  std::function<bool(const StmtRef &, std::vector<StmtRef> &)> expand;
  std::function<ExprRef(const ExprRef &)> expr;

  StmtRef stmt(const StmtRef &s) {
    if (!s)
      return s;
    auto copy = std::make_shared<StmtNode>(*s);
    if (expr) {
      if (copy->lhs)
        copy->lhs = rewriteExpr(copy->lhs, expr);
      if (copy->value)
        copy->value = rewriteExpr(copy->value, expr);
    }
    copy->init = stmt(s->init);
    copy->step = stmt(s->step);
    copy->body = stmt(s->body);
    copy->elseBody = stmt(s->elseBody);
    copy->stmts = list(s->stmts);
    for (SwitchCase &c : copy->cases) // a case's body is a list like a block's
      c.body = list(c.body);
    return copy;
  }

  std::vector<StmtRef> list(const std::vector<StmtRef> &stmts) {
    std::vector<StmtRef> out;
    for (const StmtRef &c : stmts) {
      std::vector<StmtRef> replacement;
      if (expand && expand(c, replacement))
        for (const StmtRef &r : replacement)
          out.push_back(stmt(r));
      else
        out.push_back(stmt(c));
    }
    return out;
  }
};

/// The statements of a loop nest's body: blocks flattened; false if it holds
/// anything but scalar declarations, assignments, comments and `for` loops
/// of such statements.
bool loopNest(const StmtRef &s, std::vector<StmtRef> &out) {
  if (!s)
    return true;
  if (s->kind == StmtKind::Block) {
    for (const StmtRef &c : s->stmts)
      if (!loopNest(c, out))
        return false;
    return true;
  }
  if (s->kind == StmtKind::For) {
    std::vector<StmtRef> inner;
    if (!loopNest(s->body, inner))
      return false;
  } else if (s->kind == StmtKind::Decl) {
    if (!s->var->isScalar())
      return false;
  } else if (s->kind != StmtKind::Assign && s->kind != StmtKind::Comment) {
    return false;
  }
  out.push_back(s);
  return true;
}

/// True if `e` calls, takes an address or reads the tape.
bool hasCallsOrAddresses(const ExprRef &e) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    found |= x->kind == ExprKind::Call || x->kind == ExprKind::Opaque ||
             x->kind == ExprKind::Address || x->kind == ExprKind::TapePop ||
             x->kind == ExprKind::Member;
  });
  return found;
}

/// True if `e` is `Index(p, [literal])`.
bool isConstantElement(const ExprRef &e) {
  return e->kind == ExprKind::Index && e->operands.size() == 1 &&
         e->operands[0]->kind == ExprKind::IntLit;
}

/// The variables `stmts` declare, loop indices included, each mapped to
/// what `declared` gives for it.
std::map<const Var *, Var *> declaredIn(const std::vector<StmtRef> &stmts,
                                        const std::function<Var *(const Var *)> &declared) {
  std::map<const Var *, Var *> renamed;
  for (const StmtRef &s : stmts)
    forEachStmt(s, [&](const StmtRef &n) {
      if (n->kind == StmtKind::Decl && !renamed.count(n->var))
        renamed[n->var] = declared(n->var);
    });
  return renamed;
}

/// A copy of `s` (every statement new) in which each variable of `renamed`
/// becomes its image, declarations and uses, and `fn` rewrites each
/// expression.
StmtRef copyRenaming(const StmtRef &s, const std::function<ExprRef(const ExprRef &)> &fn,
                     const std::map<const Var *, Var *> &renamed) {
  TreeRewriter rewriter;
  rewriter.expr = [&](const ExprRef &x) -> ExprRef {
    ExprRef self = x;
    auto it = x->var ? renamed.find(x->var) : renamed.end();
    if (it != renamed.end() && it->second != x->var) {
      auto copy = std::make_shared<ExprNode>(*x);
      copy->var = it->second;
      self = copy;
    }
    ExprRef replaced = fn(self);
    return replaced ? replaced : (self != x ? self : nullptr);
  };
  StmtRef out = rewriter.stmt(s);
  forEachStmt(out, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Decl && renamed.count(n->var))
      n->var = renamed.at(n->var);
  });
  return out;
}

/// Inlines calls of helpers that become a straight line once their small
/// loops are unrolled, given an array `wanted` picks, and unrolls the
/// small loops that index such an array.
class Expander {
public:
  Expander(Module &module, VarFilter wanted) : module_(module), wanted_(std::move(wanted)) {}

  /// What `s` becomes, expanded again until nothing more applies; false
  /// if it stays as it is.
  bool expand(const StmtRef &s, std::vector<StmtRef> &out) {
    if (s->kind == StmtKind::Eval && s->value && s->value->kind == ExprKind::Call)
      return inlineCall(s, out);
    if (s->kind == StmtKind::For)
      return unroll(s, out);
    return false;
  }

private:
  /// Appends `s`, or what it expands to.
  void expandInto(const StmtRef &s, std::vector<StmtRef> &out) {
    std::vector<StmtRef> expanded;
    if (expand(s, expanded))
      out.insert(out.end(), expanded.begin(), expanded.end());
    else
      out.push_back(s);
  }

  /// `h(args);` becomes h's statements, its parameters replaced: pointer
  /// parameters by the arrays or pointers passed (`&k1[0]`, `&p[0]`), scalar
  /// ones by new locals holding the values passed.
  bool inlineCall(const StmtRef &s, std::vector<StmtRef> &out) {
    const ExprRef &call = s->value;
    Function *h = call->callee;
    if (!h || !h->body || !h->pullback.empty() || !h->returnType.isVoid() ||
        h->params.size() != call->operands.size() || inlining_.count(h)) // recursion
      return false;
    bool givenWanted = false;
    std::map<const Var *, ExprRef> pointers; // pointer parameter -> its argument
    std::set<const Var *> arguments;         // the arrays and pointers they name
    for (size_t i = 0; i < h->params.size(); ++i) {
      const Var *p = h->params[i];
      const ExprRef &arg = call->operands[i];
      if (p->isPointer()) {
        if (arg->kind != ExprKind::Address || arg->operands.size() != 1 ||
            arg->operands[0]->kind != ExprKind::IntLit || arg->var->dims.size() > 1)
          return false;
        pointers[p] = arg;
        arguments.insert(arg->var);
        givenWanted |= wanted_(arg->var);
      } else if (!p->isScalar()) {
        return false;
      }
    }
    if (!givenWanted)
      return false;
    // Scalar parameters and the helper's locals become locals of the caller.
    // The n-th call inlined of a helper names its locals `h_x_n` (n > 1).
    int n = inlined_[h] + 1;
    std::map<const Var *, Var *> locals;
    auto local = [&](const Var *v) {
      Var copy = *v;
      copy.name = h->name + "_" + v->name + (n > 1 ? "_" + std::to_string(n) : "");
      copy.spelling = (v->spelling.empty() ? v->name : v->spelling) + " (in " + h->name + ")";
      copy.origin = Var::Local;
      copy.paramIndex = -1;
      copy.isConst = false;
      copy.isReference = false; // a `const double&` parameter becomes a plain local
      return locals[v] = module_.newVar(copy);
    };
    std::vector<StmtRef> inlined;
    for (size_t i = 0; i < h->params.size(); ++i)
      if (h->params[i]->isScalar()) {
        StmtRef d = decl(local(h->params[i]), call->operands[i]);
        d->pos = s->pos;
        inlined.push_back(d);
      }
    auto replace = [&](const ExprRef &x) -> ExprRef {
      if (x->kind == ExprKind::VarRef && locals.count(x->var))
        return varRef(locals.at(x->var));
      if (x->kind == ExprKind::Index && pointers.count(x->var)) {
        const ExprRef &arg = pointers.at(x->var);
        if (arg->operands[0]->intValue == 0)
          return index(arg->var, x->operands);
        return foldLiterals(
            index(arg->var, {binary(BinaryOp::Add, arg->operands[0], x->operands[0])}));
      }
      return nullptr;
    };
    std::vector<StmtRef> body;
    if (!loopNest(copyRenaming(h->body, replace, declaredIn({h->body}, local)), body))
      return false;
    const size_t parameters = inlined.size();
    inlining_.insert(h);
    for (const StmtRef &b : body)
      if (b->kind != StmtKind::Comment)
        expandInto(b, inlined);
    inlining_.erase(h);
    // What is left must be a straight line of scalars and constant elements.
    if (inlined.size() - parameters > 32)
      return false;
    for (size_t k = parameters; k < inlined.size(); ++k) {
      const StmtRef &b = inlined[k];
      if (b->kind != StmtKind::Decl && b->kind != StmtKind::Assign)
        return false;
      for (const ExprRef &e : ownExprs(b)) {
        if (hasCallsOrAddresses(e))
          return false;
        bool ok = true;
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->kind == ExprKind::Index &&
              (!arguments.count(x->var) || (wanted_(x->var) && !isConstantElement(x))))
            ok = false;
          if (x->kind == ExprKind::VarRef && x->var->isMemory())
            ok = false;
        });
        if (!ok)
          return false;
      }
    }
    inlined_[h] = n;
    out.push_back(comment("inlined: " + printExpr(call)));
    out.insert(out.end(), inlined.begin(), inlined.end());
    return true;
  }

  /// A loop `for (int i = a; i < b; ++i)` of at most kMaxScalarElements
  /// iterations, `b` a constant, whose body (assignments, scalar
  /// declarations, loops of them) indexes a wanted array by `i`, becomes its
  /// iterations one after the other, each with its own copy of the body's
  /// variables; loops in it are unrolled in turn where they qualify.
  bool unroll(const StmtRef &s, std::vector<StmtRef> &out) {
    const StmtRef &init = s->init, &step = s->step;
    if (!init || init->kind != StmtKind::Decl || !init->value ||
        init->value->kind != ExprKind::IntLit || !step || step->kind != StmtKind::Assign ||
        step->lhs->kind != ExprKind::VarRef || step->lhs->var != init->var ||
        step->value->kind != ExprKind::IntLit ||
        (step->assignOp != AssignOp::Add && step->assignOp != AssignOp::Sub) || !s->value ||
        s->value->kind != ExprKind::Binary || s->value->operands[0]->kind != ExprKind::VarRef ||
        s->value->operands[0]->var != init->var)
      return false;
    std::optional<int64_t> bound = knownInteger(s->value->operands[1]);
    if (!bound)
      return false;
    Var *i = init->var;
    int64_t by = step->assignOp == AssignOp::Add ? step->value->intValue : -step->value->intValue;
    auto holds = [&](int64_t v) {
      switch (s->value->binaryOp) {
      case BinaryOp::Lt: return v < *bound;
      case BinaryOp::Le: return v <= *bound;
      case BinaryOp::Gt: return v > *bound;
      case BinaryOp::Ge: return v >= *bound;
      case BinaryOp::Ne: return v != *bound;
      default: return false;
      }
    };
    std::vector<int64_t> values;
    for (int64_t v = init->value->intValue; by != 0 && holds(v); v += by)
      if (values.size() == static_cast<size_t>(kMaxScalarElements))
        return false;
      else
        values.push_back(v);
    std::vector<StmtRef> body;
    if (!loopNest(s->body, body))
      return false;
    bool indexesWanted = false, writesIndex = false;
    for (const StmtRef &b : body)
      forEachStmt(b, [&](const StmtRef &n) {
        writesIndex |= n->kind == StmtKind::Assign && n->lhs->var == i;
        for (const ExprRef &e : ownExprs(n))
          forEachExpr(e, [&](const ExprRef &x) {
            if (x->kind == ExprKind::Index && wanted_(x->var))
              for (const ExprRef &k : x->operands)
                indexesWanted |= mentions(k, i);
          });
      });
    if (writesIndex || !indexesWanted)
      return false;
    std::vector<StmtRef> iterations;
    for (size_t k = 0; k < values.size(); ++k) {
      auto atValue = [&](const ExprRef &x) -> ExprRef {
        if (x->kind == ExprKind::VarRef && x->var == i)
          return intLit(values[k], i->elem);
        return foldLiteral(x);
      };
      // The first iteration keeps the body's variables, later ones get new ones.
      auto renamed = declaredIn(body, [&](const Var *v) {
        return k == 0 ? const_cast<Var *>(v) : module_.newVar(*v);
      });
      for (const StmtRef &b : body)
        if (b->kind != StmtKind::Comment)
          expandInto(copyRenaming(b, atValue, renamed), iterations);
    }
    if (iterations.size() > kMaxUnrolledStatements)
      return false; // loops in loops: too long a straight line
    out.insert(out.end(), iterations.begin(), iterations.end());
    return true;
  }

  Module &module_;
  VarFilter wanted_;
  std::map<const Function *, int> inlined_;
  std::set<const Function *> inlining_; // helpers being inlined, callers first
};

/// Inlines and unrolls, in a copy of `body`, what touches an array `wanted`
/// picks.
StmtRef expandFor(const StmtRef &body, Module &module, VarFilter wanted) {
  Expander expander(module, std::move(wanted));
  TreeRewriter rewriter;
  rewriter.expand = [&](const StmtRef &s, std::vector<StmtRef> &out) {
    return expander.expand(s, out);
  };
  return rewriter.stmt(body);
}

/// The small local arrays of `body` (declared without a value).
std::set<const Var *, VarLess> smallArrays(const StmtRef &body) {
  std::set<const Var *, VarLess> out;
  forEachStmt(body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Decl && !s->value && s->var->isArray() && !s->var->blockShared &&
        s->var->origin == Var::Local && s->var->dims.size() == 1 && s->var->isFloating() &&
        s->var->elementCount() <= kMaxScalarElements)
      out.insert(s->var);
  });
  return out;
}

/// Those of `arrays` that `body` uses only through constant elements.
std::set<const Var *, VarLess> splittable(const StmtRef &body,
                                          std::set<const Var *, VarLess> arrays) {
  std::set<const Var *> declared;
  forEachStmt(body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Decl && arrays.count(s->var) && !declared.insert(s->var).second)
      arrays.erase(s->var); // declared twice
    for (const ExprRef &e : ownExprs(s))
      forEachExpr(e, [&](const ExprRef &x) {
        if (!x->var || !arrays.count(x->var))
          return;
        bool constant = isConstantElement(x) && x->operands[0]->intValue >= 0 &&
                        x->operands[0]->intValue < x->var->elementCount();
        if (!constant)
          arrays.erase(x->var);
      });
  });
  return arrays;
}

/// Gives each value of an element its own variable where that is safe:
/// `tmp_0`, assigned three times in a loop body and read between, becomes
/// `tmp_0`, `tmp_0_2` and `tmp_0_3`, each assigned once, so that the planner
/// can recompute each without the others. An element qualifies when a
/// single block holds every statement that uses it, none nested, and the
/// first of them assigns it without reading it: no value of it outlives the
/// block.
void renameValues(const StmtRef &body, const std::vector<Var *> &scalars, Module &module) {
  for (Var *v : scalars) {
    // The statements that use it, and the block that holds them all: a
    // declaration whose initializer reads it is one (`double t = 1.0 - x_0;`,
    // from an inlined helper's local).
    std::set<const StmtNode *> users;
    forEachStmt(body, [&](const StmtRef &s) {
      if (s->kind == StmtKind::Decl ? s->var != v && mentions(s->value, v)
                                    : mentions(s->lhs, v) || mentions(s->value, v))
        users.insert(s.get());
    });
    StmtNode *home = nullptr;
    forEachStmt(body, [&](const StmtRef &b) {
      size_t direct = 0;
      for (const StmtRef &s : b->stmts)
        direct += users.count(s.get());
      if (direct == users.size() && direct > 0)
        home = b.get();
    });
    if (!home)
      continue;
    bool ok = true, assigned = false;
    for (const StmtRef &s : home->stmts) {
      if (!users.count(s.get()))
        continue;
      if (s->kind == StmtKind::Decl) { // reads it
        ok &= assigned;
        continue;
      }
      bool plain = s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::VarRef &&
                   s->lhs->var == v && s->assignOp == AssignOp::Set;
      bool writes = s->kind == StmtKind::Assign && s->lhs->var == v;
      ok &= s->kind == StmtKind::Assign && (plain || !writes) && (assigned || plain) &&
            (assigned || !mentions(s->value, v));
      assigned = true;
    }
    if (!ok)
      continue;
    Var *current = nullptr;
    int version = 0;
    std::vector<StmtRef> decls;
    for (StmtRef &s : home->stmts) {
      if (!users.count(s.get()))
        continue;
      auto copy = std::make_shared<StmtNode>(*s);
      auto toCurrent = [&](const ExprRef &x) -> ExprRef {
        return x->kind == ExprKind::VarRef && x->var == v ? varRef(current) : nullptr;
      };
      copy->value = rewriteExpr(s->value, toCurrent);
      if (s->kind == StmtKind::Decl) {
        s = copy;
        continue;
      }
      if (s->lhs->var == v) {
        if (++version == 1) {
          current = v;
        } else {
          Var next = *v;
          next.name = v->name + "_" + std::to_string(version);
          next.spelling = v->spelling.empty() ? v->name : v->spelling;
          current = module.newVar(next);
          decls.push_back(decl(current));
        }
        copy->lhs = varRef(current);
      } else {
        copy->lhs = rewriteExpr(s->lhs, toCurrent);
      }
      s = copy;
    }
    home->stmts.insert(home->stmts.begin(), decls.begin(), decls.end());
  }
}

} // namespace

bool replaceSmallArrays(Function &f, Module &module) {
  if (!f.body)
    return false;
  std::set<const Var *, VarLess> arrays = smallArrays(f.body);
  if (arrays.empty())
    return false;
  StmtRef tried = expandFor(f.body, module, [&](const Var *v) { return arrays.count(v) != 0; });
  std::set<const Var *, VarLess> split = splittable(tried, arrays);
  if (split.empty())
    return false;
  StmtRef body = expandFor(f.body, module, [&](const Var *v) { return split.count(v) != 0; });
  // One scalar per element.
  std::map<const Var *, std::vector<Var *>> elements;
  for (const Var *a : split)
    for (int64_t k = 0; k < a->elementCount(); ++k) {
      Var scalar = *a;
      scalar.name = a->isBox ? a->name : a->name + "_" + std::to_string(k);
      scalar.spelling = a->spelling.empty() ? a->name : a->spelling;
      if (!a->isBox)
        scalar.spelling += a->dims.size() == 2 ? "[" + std::to_string(k / a->dims[1]) + "][" +
                                                     std::to_string(k % a->dims[1]) + "]"
                                               : "[" + std::to_string(k) + "]";
      scalar.isBox = false;
      scalar.shape = Var::Scalar;
      scalar.dims.clear();
      elements[a].push_back(module.newVar(scalar));
    }
  TreeRewriter rewriter;
  rewriter.expand = [&](const StmtRef &s, std::vector<StmtRef> &out) {
    if (s->kind != StmtKind::Decl || !elements.count(s->var))
      return false;
    for (Var *e : elements.at(s->var)) {
      out.push_back(decl(e));
      out.back()->pos = s->pos;
    }
    return true;
  };
  rewriter.expr = [&](const ExprRef &x) -> ExprRef {
    if (x->kind == ExprKind::Index && elements.count(x->var))
      return varRef(elements.at(x->var)[x->operands[0]->intValue]);
    return nullptr;
  };
  f.body = rewriter.stmt(body);
  std::vector<Var *> scalars;
  for (const auto &[array, parts] : elements)
    scalars.insert(scalars.end(), parts.begin(), parts.end());
  renameValues(f.body, scalars, module);
  return true;
}

} // namespace cgp
