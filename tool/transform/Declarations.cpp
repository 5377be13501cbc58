//===- Declarations.cpp - locals and parameters of generated code ---------===//
#include "transform/Declarations.h"

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

void refreshShadows(StmtRef &body, const std::function<Var *(const Var *)> &shadowFor) {
  forEachStmt(body, [&](const StmtRef &s) {
    auto fix = [&](std::vector<StmtRef> &list) {
      for (size_t i = 0; i < list.size(); ++i) {
        Var *v = nullptr;
        if (!isRefresh(list[i], v))
          continue;
        if (Var *shadow = shadowFor(v)) {
          list.insert(list.begin() + static_cast<long>(i) + 1, refreshElements(shadow));
          ++i;
        }
      }
    };
    fix(s->stmts);
    for (SwitchCase &c : s->cases)
      fix(c.body);
  });
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

void markUnusedParams(Function &f) {
  std::set<const Var *> used = mentioned(f.body->stmts);
  std::vector<StmtRef> marks;
  for (Var *p : f.params)
    if (!used.count(p))
      marks.push_back(raw("(void)" + p->name + ";"));
  f.body->stmts.insert(f.body->stmts.begin(), marks.begin(), marks.end());
}

} // namespace cgp
