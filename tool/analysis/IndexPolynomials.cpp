//===- IndexPolynomials.cpp - array indices as polynomials ----------------===//
//
// See IndexPolynomials.h.
//
//===----------------------------------------------------------------------===//
#include "analysis/IndexPolynomials.h"

#include <algorithm>

namespace cgp {
namespace {
constexpr size_t kMostFactors = 4; // beyond that, an index is not understood
} // namespace


void addTo(Polynomial &sum, const Monomial &m, int64_t coefficient) {
  int64_t &c = sum[m];
  c += coefficient;
  if (c == 0)
    sum.erase(m);
}

Polynomial product(const Polynomial &a, const Polynomial &b) {
  Polynomial out;
  for (const auto &[ma, ca] : a)
    for (const auto &[mb, cb] : b) {
      Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end(), VarLess());
      addTo(out, m, ca * cb);
    }
  return out;
}

std::optional<Polynomial> polynomialOf(const ExprRef &e, const Defs &defs) {
  if (std::optional<int64_t> known = knownInteger(e)) {
    Polynomial p;
    addTo(p, {}, *known);
    return p;
  }
  switch (e->kind) {
  case ExprKind::VarRef:
    if (!e->var->isScalar() || !e->var->elem.isIntegral())
      return std::nullopt;
    if (auto def = defs.find(e->var); def != defs.end())
      return def->second;
    return Polynomial{{{e->var}, 1}};
  case ExprKind::Cast:
    if (e->type.kind != ScalarType::Integer || e->operands[0]->type.kind != ScalarType::Integer)
      return std::nullopt;
    return polynomialOf(e->operands[0], defs);
  case ExprKind::Unary: {
    std::optional<Polynomial> a = polynomialOf(e->operands[0], defs);
    if (!a || (e->unaryOp != UnaryOp::Neg && e->unaryOp != UnaryOp::Plus))
      return std::nullopt;
    if (e->unaryOp == UnaryOp::Neg)
      for (auto &term : *a)
        term.second = -term.second;
    return a;
  }
  case ExprKind::Binary: {
    const BinaryOp op = e->binaryOp;
    if (op != BinaryOp::Add && op != BinaryOp::Sub && op != BinaryOp::Mul)
      return std::nullopt;
    std::optional<Polynomial> a = polynomialOf(e->operands[0], defs);
    std::optional<Polynomial> b = a ? polynomialOf(e->operands[1], defs) : std::nullopt;
    if (!b)
      return std::nullopt;
    Polynomial out;
    if (op != BinaryOp::Mul) {
      out = *a;
      for (const auto &[m, c] : *b)
        addTo(out, m, op == BinaryOp::Add ? c : -c);
      return out;
    }
    out = product(*a, *b);
    for (const auto &[m, c] : out)
      if (m.size() > kMostFactors)
        return std::nullopt;
    return out;
  }
  default:
    return std::nullopt;
  }
}

Defs definedBefore(const Function &f, const StmtRef &loop) {
  Defs defs;
  if (!f.body || f.body->kind != StmtKind::Block)
    return defs;
  std::map<const Var *, int> writes;
  forEachStmt(f.body, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Assign && n->lhs->kind == ExprKind::VarRef)
      ++writes[n->lhs->var];
    if (n->kind == StmtKind::Decl && n->value)
      ++writes[n->var];
    if (n->kind == StmtKind::For && n->counted.index)
      writes[n->counted.index] += 2; // its step
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Address && x->var && x->var->isScalar())
          writes[x->var] += 2; // passed by reference
      });
  });
  for (const StmtRef &c : f.body->stmts) {
    bool holdsLoop = false;
    forEachStmt(c, [&](const StmtRef &n) { holdsLoop |= n == loop; });
    if (holdsLoop)
      break;
    if (c->kind != StmtKind::Assign || c->assignOp != AssignOp::Set ||
        c->lhs->kind != ExprKind::VarRef || !c->lhs->var->isScalar() ||
        !c->lhs->var->elem.isIntegral() || writes[c->lhs->var] != 1)
      continue;
    std::optional<Polynomial> p = polynomialOf(c->value, defs);
    bool fixed = p.has_value();
    if (p)
      for (const auto &[m, k] : *p)
        for (const Var *v : m)
          fixed &= writes[v] == 0;
    if (fixed)
      defs[c->lhs->var] = *p;
  }
  return defs;
}

LoopIntegers::LoopIntegers(const StmtRef &loop) {
  collectWrittenVars(loop->body, changed_, /*opaqueCalls=*/true);
  forEachStmt(loop->body, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Assign && n->lhs->kind == ExprKind::VarRef)
      ++assignments_[n->lhs->var];
  });
}

void LoopIntegers::define(const StmtRef &c, Defs &defs, const Var *except) const {
  if (c->kind != StmtKind::Assign || c->assignOp != AssignOp::Set ||
      c->lhs->kind != ExprKind::VarRef || !c->lhs->var->isScalar() ||
      !c->lhs->var->elem.isIntegral())
    return;
  auto assigned = assignments_.find(c->lhs->var);
  if (assigned == assignments_.end() || assigned->second != 1)
    return;
  std::optional<Polynomial> p = polynomialOf(c->value, defs);
  if (!p)
    return;
  for (const auto &[m, k] : *p)
    for (const Var *v : m)
      if (v != except && changes(v))
        return;
  defs[c->lhs->var] = *p;
}

ExprRef polynomialExpr(const Polynomial &p) {
  const ScalarType i64 = ScalarType::int64Type();
  // Terms with variables first, the constant last, what is negative taken
  // away: `n - 1`, `m * n + k`. A product is computed in 64 bits.
  std::vector<std::pair<Monomial, int64_t>> terms(p.begin(), p.end());
  std::stable_partition(terms.begin(), terms.end(),
                        [](const auto &term) { return !term.first.empty(); });
  ExprRef sum;
  for (const auto &[m, c] : terms) {
    const int64_t magnitude = c < 0 ? -c : c;
    ExprRef term;
    for (const Var *v : m) {
      ExprRef factor = varRef(const_cast<Var *>(v));
      if (!term && (m.size() > 1 || magnitude != 1))
        factor = cast(i64, factor);
      term = term ? binary(BinaryOp::Mul, term, factor) : factor;
    }
    if (!term)
      term = intLit(magnitude, i64);
    else if (magnitude != 1)
      term = binary(BinaryOp::Mul, intLit(magnitude, i64), term);
    if (!sum)
      sum = c < 0 ? unary(UnaryOp::Neg, term) : term;
    else
      sum = binary(c < 0 ? BinaryOp::Sub : BinaryOp::Add, sum, term);
  }
  return sum ? sum : intLit(0, i64);
}

} // namespace cgp
