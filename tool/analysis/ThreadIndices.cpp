//===- ThreadIndices.cpp - which elements are a CUDA thread's own ---------===//
//
// See ThreadIndices.h. The facts come from one walk over the primal in
// program order, which keeps, at each statement, what holds there: bounds
// (`x < W`), variables that are one-to-one over parts of the thread's
// identity, and variables that are >= 0. A write of a variable drops what
// was known of it, except what the write keeps (a grid-stride step keeps its
// index one-to-one, adding a non-negative value keeps it >= 0). The reverse
// sweep reads each variable with the value it had in the forward sweep, so
// what held at an access of a buffer holds where its adjoint is added into.
//
//===----------------------------------------------------------------------===//
#include "analysis/ThreadIndices.h"

#include <functional>

namespace cgp {
namespace {

const ExprRef &withoutIntegerCasts(const ExprRef &e) {
  if (e->kind == ExprKind::Cast && e->type.isIntegral() && e->operands[0]->type.isIntegral())
    return withoutIntegerCasts(e->operands[0]);
  return e;
}

/// The runtime constant `name` (threadIdx.x, blockDim.y, ...) or none.
std::string builtinName(const ExprRef &e) {
  const ExprRef &x = withoutIntegerCasts(e);
  return x->kind == ExprKind::Opaque && x->calleeName.empty() ? x->spelling : std::string();
}

const char *const kPartNames[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                  "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};
const char *const kPartConstants[] = {"kThreadX", "kThreadY", "kThreadZ",
                                      "kBlockX",  "kBlockY",  "kBlockZ"};

/// The part `threadIdx.d` or `blockIdx.d` reads, or 0.
unsigned partOf(const std::string &builtin) {
  for (unsigned k = 0; k < 6; ++k)
    if (builtin == kPartNames[k])
      return 1u << k;
  return 0;
}

/// `blockDim.d` for the part threadIdx.d.
std::string extentOf(unsigned threadPart) {
  switch (threadPart) {
  case kThreadX: return "blockDim.x";
  case kThreadY: return "blockDim.y";
  case kThreadZ: return "blockDim.z";
  default: return "";
  }
}

/// True for `p * q` with `p` and `q` the builtins `a` and `b`, in any order.
bool isProductOf(const ExprRef &e, const std::string &a, const std::string &b) {
  const ExprRef &x = withoutIntegerCasts(e);
  if (x->kind != ExprKind::Binary || x->binaryOp != BinaryOp::Mul)
    return false;
  std::string p = builtinName(x->operands[0]), q = builtinName(x->operands[1]);
  return (p == a && q == b) || (p == b && q == a);
}

/// The x, y and z parts of one dimension, for `blockDim.d * gridDim.d`: the
/// stride of a grid-stride loop over that dimension.
unsigned gridStrideParts(const ExprRef &stride) {
  const char *dims[] = {"x", "y", "z"};
  for (unsigned d = 0; d < 3; ++d)
    if (isProductOf(stride, std::string("blockDim.") + dims[d], std::string("gridDim.") + dims[d]))
      return (1u << d) | (1u << (d + 3));
  return 0;
}

/// For `v = v + c` or `v += c`: `c`; null for any other write of `v`.
ExprRef addedTo(const StmtRef &s, const Var *v) {
  if (s->kind != StmtKind::Assign || s->lhs->kind != ExprKind::VarRef || s->lhs->var != v)
    return nullptr;
  if (s->assignOp == AssignOp::Add)
    return s->value;
  const ExprRef &e = withoutIntegerCasts(s->value);
  if (s->assignOp != AssignOp::Set || e->kind != ExprKind::Binary || e->binaryOp != BinaryOp::Add)
    return nullptr;
  for (int k = 0; k < 2; ++k) {
    const ExprRef &self = withoutIntegerCasts(e->operands[k]);
    if (self->kind == ExprKind::VarRef && self->var == v)
      return e->operands[1 - k];
  }
  return nullptr;
}

/// True for an expression a fact may hold: variables and constants only
/// (no memory, no call), so that only writes of variables change it.
bool factOperand(const ExprRef &e) {
  bool ok = true;
  forEachExpr(e, [&](const ExprRef &x) {
    if (x->kind == ExprKind::Index || x->kind == ExprKind::Address ||
        x->kind == ExprKind::Call || x->kind == ExprKind::TapePop ||
        (x->kind == ExprKind::Opaque && !x->calleeName.empty()))
      ok = false;
  });
  return ok;
}

} // namespace

std::string LaunchLimits::describe() const {
  std::string out;
  const char *dims[] = {"x", "y", "z"};
  for (int d = 0; d < 3; ++d)
    if (maxBlockDim[d])
      out += (out.empty() ? "" : ", ") + std::string("blockDim.") + dims[d] +
             " <= " + std::to_string(maxBlockDim[d]);
  return out;
}

std::string describeParts(unsigned parts) {
  std::string out;
  for (unsigned k = 0; k < 6; ++k)
    if (parts & (1u << k))
      out += (out.empty() ? "" : ", ") + std::string(kPartNames[k]);
  return out;
}

std::string partsExpression(unsigned parts) {
  std::string out;
  for (unsigned k = 0; k < 6; ++k)
    if (parts & (1u << k))
      out += (out.empty() ? "" : " | ") + std::string("cgp::dev::") + kPartConstants[k];
  return out.empty() ? "0u" : out;
}

ThreadIndices::Fact ThreadIndices::fact(Fact::Kind kind, const Var *var, ExprRef lhs,
                                        ExprRef bound) {
  Fact f;
  f.kind = kind;
  f.var = var;
  f.lhs = std::move(lhs);
  f.bound = std::move(bound);
  return f;
}

bool ThreadIndices::Fact::mentions(const Var *v) const {
  return var == v || (lhs && cgp::mentions(lhs, v)) || (bound && cgp::mentions(bound, v));
}

bool ThreadIndices::Fact::same(const Fact &o) const {
  if (kind != o.kind)
    return false;
  if (kind == Below)
    return sameExpr(lhs, o.lhs) && sameExpr(bound, o.bound);
  for (int d = 0; d < 3; ++d)
    if (limits.maxBlockDim[d] != o.limits.maxBlockDim[d])
      return false;
  return var == o.var && parts == o.parts && dense == o.dense;
}

ThreadIndices::ThreadIndices(const Function &f, bool kernelLevel) : kernelLevel_(kernelLevel) {
  // The parts the kernel reads, in its body and in the helpers it calls.
  std::set<const Function *> seen;
  std::function<void(const Function &)> scan = [&](const Function &g) {
    if (!seen.insert(&g).second)
      return;
    forEachExprIn(g.body, [&](const ExprRef &x) {
      used_ |= partOf(builtinName(x));
      if (x->kind == ExprKind::Call && x->callee && x->callee->body)
        scan(*x->callee);
    });
  };
  scan(f);
  if (!kernelLevel_)
    used_ = kAllParts;

  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign)
      writtenInPrimal_.insert(lvalueVar(s->lhs));
    if (s->kind == StmtKind::Decl)
      writtenInPrimal_.insert(s->var);
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::VarRef) {
      ExprRef added = addedTo(s, s->lhs->var);
      if (!added || !gridStrideParts(added))
        ++definitions_[s->lhs->var];
    }
    if (s->kind == StmtKind::Decl && s->value)
      ++definitions_[s->var];
    for (const ExprRef &e : ownExprs(s))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Address)
          definitions_[x->var] += 2;
      });
  });
  findFlags(f);
  Facts facts;
  walk(f.body, facts, /*topLevel=*/true);

  // Values that differ between threads, to a fixed point.
  size_t before;
  do {
    before = tainted_.size();
    taint(f.body, nullptr);
  } while (tainted_.size() != before);
}

//===----------------------------------------------------------------------===//
// Facts along the primal
//===----------------------------------------------------------------------===//

void ThreadIndices::factsOf(const ExprRef &cond, bool truth, Facts &out) const {
  const ExprRef &c = withoutIntegerCasts(cond);
  auto below = [&](const ExprRef &a, const ExprRef &b) {
    if (factOperand(a) && factOperand(b))
      out.push_back(fact(Fact::Below, nullptr, withoutIntegerCasts(a), withoutIntegerCasts(b)));
  };
  if (c->kind == ExprKind::Unary && c->unaryOp == UnaryOp::Not) {
    const ExprRef &inner = withoutIntegerCasts(c->operands[0]);
    auto flag = flagFacts_.find(inner->var);
    if (truth && inner->kind == ExprKind::VarRef && flag != flagFacts_.end())
      out.insert(out.end(), flag->second.begin(), flag->second.end());
    else
      factsOf(inner, !truth, out);
    return;
  }
  if (c->kind != ExprKind::Binary)
    return;
  const ExprRef &a = c->operands[0], &b = c->operands[1];
  switch (c->binaryOp) {
  case BinaryOp::LAnd:
    if (truth) {
      factsOf(a, true, out);
      factsOf(b, true, out);
    }
    break;
  case BinaryOp::LOr:
    if (!truth) {
      factsOf(a, false, out);
      factsOf(b, false, out);
    }
    break;
  case BinaryOp::Lt: if (truth) below(a, b); break;
  case BinaryOp::Gt: if (truth) below(b, a); break;
  case BinaryOp::Ge: if (!truth) below(a, b); break;
  case BinaryOp::Le: if (!truth) below(b, a); break;
  default: break;
  }
}

bool ThreadIndices::survives(const Fact &fact, const StmtRef &write, const Var *v,
                             const Facts &facts) const {
  if (!fact.mentions(v))
    return true;
  if (fact.var != v || fact.kind == Fact::Below)
    return false;
  ExprRef added = addedTo(write, v);
  if (!added)
    return false;
  if (fact.kind == Fact::NonNegative)
    return nonNegative(added, facts);
  return fact.dense && fact.parts == gridStrideParts(added); // a grid-stride step
}

void ThreadIndices::killWrites(const StmtRef &s, Facts &facts) {
  std::vector<std::pair<StmtRef, const Var *>> writes;
  forEachStmt(s, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Assign && n->lhs->kind == ExprKind::VarRef)
      writes.push_back({n, n->lhs->var});
    if (n->kind == StmtKind::Decl)
      writes.push_back({n, n->var});
    for (const ExprRef &e : ownExprs(n)) // what a call may write through an address
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Address)
          writes.push_back({nullptr, x->var});
      });
  });
  auto drop = [&](Facts &list) {
    Facts kept;
    for (const Fact &f : list) {
      bool ok = true;
      for (const auto &[stmt, v] : writes)
        ok = ok && (stmt ? survives(f, stmt, v, facts) : !f.mentions(v));
      if (ok)
        kept.push_back(f);
    }
    list = kept;
  };
  drop(facts);
  for (auto &[flag, list] : flagFacts_)
    drop(list);
}

void ThreadIndices::assignVar(const Var *v, const StmtRef &s, Facts &facts) {
  Facts before = facts;
  killWrites(s, facts);
  if (s->kind == StmtKind::Assign && s->assignOp != AssignOp::Set)
    return; // what a compound assignment keeps, survives() kept
  const ExprRef &value = s->value;
  if (value && v->elem.isIntegral() && nonNegative(value, before))
    facts.push_back(fact(Fact::NonNegative, v));
  // t = threadIdx.d: t < blockDim.d, as threadIdx.d is
  unsigned part = value ? partOf(builtinName(value)) : 0;
  if (v->elem.isIntegral() && (part & kThreadParts))
    facts.push_back(fact(Fact::Below, nullptr, varRef(const_cast<Var *>(v)),
                         runtimeConstant(extentOf(part), withoutIntegerCasts(value)->type)));
  auto defs = definitions_.find(v);
  if (!value || !v->elem.isIntegral() || defs == definitions_.end() || defs->second != 1)
    return; // other statements give it other values
  if (invariant(value, before))
    facts.push_back(fact(Fact::Fixed, v));
  LaunchLimits limits, *outer = assumed_;
  assumed_ = &limits;
  unsigned parts = distinguishes(value, before);
  assumed_ = outer;
  if (parts) {
    facts.push_back(fact(Fact::Coordinate, v));
    facts.back().parts = parts;
    facts.back().dense = denseParts(value, before) == parts;
    facts.back().limits = limits;
  }
}

void ThreadIndices::noteAccesses(const StmtRef &s, const Facts &facts) {
  for (const ExprRef &e : ownExprs(s))
    forEachExpr(e, [&](const ExprRef &x) {
      if ((x->kind != ExprKind::Index && x->kind != ExprKind::Address) || !x->var)
        return;
      auto known = bufferFacts_.find(x->var);
      if (known == bufferFacts_.end()) {
        bufferFacts_[x->var] = facts;
        return;
      }
      Facts common;
      for (const Fact &f : known->second)
        for (const Fact &g : facts)
          if (f.same(g)) {
            common.push_back(f);
            break;
          }
      known->second = common;
    });
}

void ThreadIndices::walk(const StmtRef &s, Facts &facts, bool topLevel) {
  if (!s)
    return;
  switch (s->kind) {
  case StmtKind::Block:
    for (const StmtRef &c : s->stmts)
      walk(c, facts, topLevel);
    return;
  case StmtKind::Decl:
  case StmtKind::Assign:
    noteAccesses(s, facts);
    if (s->kind == StmtKind::Decl || s->lhs->kind == ExprKind::VarRef) {
      assignVar(s->kind == StmtKind::Decl ? s->var : s->lhs->var, s, facts);
    } else {
      killWrites(s, facts); // a call in the value may write through an address
    }
    return;
  case StmtKind::If: {
    noteAccesses(s, facts);
    if (const Var *flag = topLevel ? flagSetBy(s) : nullptr)
      if (validFlags_.count(flag)) { // an early return: while it is false, !c held
        factsOf(s->value, false, flagFacts_[flag]);
        return;
      }
    Facts thenFacts = facts, elseFacts = facts;
    factsOf(s->value, true, thenFacts);
    factsOf(s->value, false, elseFacts);
    walk(s->body, thenFacts, false);
    walk(s->elseBody, elseFacts, false);
    killWrites(s, facts);
    return;
  }
  case StmtKind::For:
  case StmtKind::While:
  case StmtKind::DoWhile: {
    walk(s->init, facts, topLevel);
    // What holds at every iteration: what survives the loop's writes.
    StmtRef loop = block({s->body, s->step ? s->step : block()});
    killWrites(loop, facts);
    noteAccesses(s, facts);
    Facts inBody = facts;
    if (s->kind != StmtKind::DoWhile)
      factsOf(s->value, true, inBody);
    Facts atStep = inBody;
    walk(s->body, inBody, false);
    walk(s->step, atStep, false);
    return;
  }
  case StmtKind::Switch: {
    noteAccesses(s, facts);
    for (const SwitchCase &c : s->cases)
      for (const StmtRef &b : c.body) {
        Facts inCase = facts;
        walk(b, inCase, false);
      }
    killWrites(s, facts);
    return;
  }
  default:
    noteAccesses(s, facts);
    killWrites(s, facts);
    return;
  }
}

void ThreadIndices::findFlags(const Function &f) {
  // The top level: the statements of the body and of the blocks in it.
  std::vector<StmtRef> top;
  std::function<void(const StmtRef &)> flatten = [&](const StmtRef &s) {
    if (s && s->kind == StmtKind::Block)
      for (const StmtRef &c : s->stmts)
        flatten(c);
    else if (s)
      top.push_back(s);
  };
  flatten(f.body);
  auto isLiteral = [](const ExprRef &e, int64_t v) {
    return e && withoutIntegerCasts(e)->kind == ExprKind::IntLit && withoutIntegerCasts(e)->intValue == v;
  };
  std::set<const Var *> set, bad;
  std::set<const StmtNode *> startingClears;
  for (const StmtRef &s : top) {
    if (const Var *flag = flagSetBy(s))
      set.insert(flag);
    bool clear = (s->kind == StmtKind::Decl ||
                  (s->kind == StmtKind::Assign && s->assignOp == AssignOp::Set &&
                   s->lhs->kind == ExprKind::VarRef)) &&
                 isLiteral(s->value, 0);
    const Var *v = s->kind == StmtKind::Decl ? s->var : s->lhs ? s->lhs->var : nullptr;
    if (clear && !set.count(v))
      startingClears.insert(s.get());
  }
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign || s->kind == StmtKind::Decl) {
      const Var *v = s->kind == StmtKind::Decl ? s->var : lvalueVar(s->lhs);
      bool setsTrue = s->kind == StmtKind::Assign && s->assignOp == AssignOp::Set &&
                      isLiteral(s->value, 1);
      if (!setsTrue && !startingClears.count(s.get()) && (s->kind == StmtKind::Assign || s->value))
        bad.insert(v);
    }
    for (const ExprRef &e : ownExprs(s))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Address)
          bad.insert(x->var);
      });
  });
  for (const Var *flag : set)
    if (!bad.count(flag))
      validFlags_.insert(flag);
}

const Var *ThreadIndices::flagSetBy(const StmtRef &s) {
  // `if (c) { flag = true; }` with no else, `flag` a bool.
  if (s->kind != StmtKind::If || (s->elseBody && !isEmpty(s->elseBody)))
    return nullptr;
  const StmtRef *only = &s->body;
  while (*only && (*only)->kind == StmtKind::Block && (*only)->stmts.size() == 1)
    only = &(*only)->stmts[0];
  const StmtRef &set = *only;
  if (!set || set->kind != StmtKind::Assign || set->assignOp != AssignOp::Set ||
      set->lhs->kind != ExprKind::VarRef || set->lhs->var->elem.kind != ScalarType::Bool)
    return nullptr;
  const ExprRef &value = withoutIntegerCasts(set->value);
  return value->kind == ExprKind::IntLit && value->intValue == 1 ? set->lhs->var : nullptr;
}

//===----------------------------------------------------------------------===//
// Indices
//===----------------------------------------------------------------------===//

bool ThreadIndices::nonNegative(const ExprRef &e, const Facts &facts) const {
  const ExprRef &x = withoutIntegerCasts(e);
  switch (x->kind) {
  case ExprKind::IntLit:
    return x->intValue >= 0;
  case ExprKind::Opaque: {
    std::string name = builtinName(x);
    return partOf(name) || name.rfind("blockDim.", 0) == 0 || name.rfind("gridDim.", 0) == 0;
  }
  case ExprKind::VarRef:
    for (const Fact &f : facts)
      if (f.kind == Fact::NonNegative && f.var == x->var)
        return true;
    return false;
  case ExprKind::Binary:
    return (x->binaryOp == BinaryOp::Add || x->binaryOp == BinaryOp::Mul) &&
           nonNegative(x->operands[0], facts) && nonNegative(x->operands[1], facts);
  default:
    return false;
  }
}

bool ThreadIndices::below(const ExprRef &r, const ExprRef &s, const Facts &facts) const {
  const ExprRef &x = withoutIntegerCasts(r), &bound = withoutIntegerCasts(s);
  if (x->kind == ExprKind::IntLit && bound->kind == ExprKind::IntLit)
    return x->intValue < bound->intValue;
  unsigned part = partOf(builtinName(x));
  if ((part & kThreadParts) && builtinName(bound) == extentOf(part))
    return true;
  // threadIdx.d < C for blocks of at most C threads in d: assumed, and
  // checked where the gradient starts
  std::optional<int64_t> most = knownInteger(bound);
  if ((part & kThreadParts) && most && *most > 0) {
    if (assumed_)
      assumed_->limit(__builtin_ctz(part), *most);
    return true;
  }
  for (const Fact &f : facts)
    if (f.kind == Fact::Below && sameExpr(f.lhs, x) && sameExpr(f.bound, bound))
      return true;
  return false;
}

bool ThreadIndices::invariant(const ExprRef &e, const Facts &facts) const {
  bool ok = true;
  forEachExpr(e, [&](const ExprRef &x) {
    switch (x->kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Select:
    case ExprKind::Cast:
      return;
    case ExprKind::Opaque: {
      std::string name = builtinName(x);
      ok = ok && (name.rfind("blockDim.", 0) == 0 || name.rfind("gridDim.", 0) == 0);
      return;
    }
    case ExprKind::VarRef: {
      if (x->var->hasKnownValue || !writtenInPrimal_.count(x->var))
        return;
      bool fixed = false;
      for (const Fact &f : facts)
        fixed |= f.kind == Fact::Fixed && f.var == x->var;
      ok = ok && fixed;
      return;
    }
    default:
      ok = false;
    }
  });
  return ok;
}

unsigned ThreadIndices::denseParts(const ExprRef &index, const Facts &facts) const {
  const ExprRef &e = withoutIntegerCasts(index);
  if (e->kind == ExprKind::VarRef) {
    for (const Fact &f : facts)
      if (f.kind == Fact::Coordinate && f.var == e->var && f.dense)
        return f.parts;
    return 0;
  }
  if (e->kind != ExprKind::Binary)
    return 0;
  if (e->binaryOp == BinaryOp::Sub && invariant(e->operands[1], facts))
    return denseParts(e->operands[0], facts);
  if (e->binaryOp != BinaryOp::Add)
    return 0;
  for (int k = 0; k < 2; ++k) {
    const ExprRef &a = e->operands[k], &b = e->operands[1 - k];
    if (invariant(b, facts))
      if (unsigned parts = denseParts(a, facts))
        return parts;
    // blockIdx.d * blockDim.d + threadIdx.d
    unsigned thread = partOf(builtinName(b));
    if ((thread & kThreadParts) &&
        isProductOf(a, kPartNames[__builtin_ctz(thread) + 3], extentOf(thread)))
      return thread | (thread << 3);
  }
  return 0;
}

unsigned ThreadIndices::distinguishes(const ExprRef &index, const Facts &facts) const {
  const ExprRef &e = withoutIntegerCasts(index);
  if (unsigned part = partOf(builtinName(e)))
    return part;
  if (e->kind == ExprKind::VarRef) {
    for (const Fact &f : facts)
      if (f.kind == Fact::Coordinate && f.var == e->var) {
        if (assumed_)
          assumed_->merge(f.limits);
        return f.parts;
      }
    return 0;
  }
  if (e->kind != ExprKind::Binary)
    return 0;
  switch (e->binaryOp) {
  case BinaryOp::Sub:
    return invariant(e->operands[1], facts) ? distinguishes(e->operands[0], facts) : 0;
  case BinaryOp::Mul: { // by a non-zero constant
    for (int k = 0; k < 2; ++k) {
      const ExprRef &c = withoutIntegerCasts(e->operands[1 - k]);
      if (c->kind == ExprKind::IntLit && c->intValue != 0)
        return distinguishes(e->operands[k], facts);
    }
    return 0;
  }
  case BinaryOp::Add: {
    unsigned parts = 0;
    for (int k = 0; k < 2; ++k) {
      const ExprRef &scaled = withoutIntegerCasts(e->operands[k]), &rest = e->operands[1 - k];
      if (invariant(rest, facts)) // a + c
        parts |= distinguishes(scaled, facts);
      // q * S + r with 0 <= r < S: one-to-one over the pairs (q, r)
      if (scaled->kind != ExprKind::Binary || scaled->binaryOp != BinaryOp::Mul ||
          !nonNegative(rest, facts))
        continue;
      for (int m = 0; m < 2; ++m) {
        const ExprRef &q = scaled->operands[m], &stride = scaled->operands[1 - m];
        if (invariant(stride, facts) && below(rest, stride, facts))
          parts |= distinguishes(q, facts) | distinguishes(rest, facts);
      }
    }
    return parts;
  }
  default:
    return 0;
  }
}

bool ThreadIndices::owned(const std::vector<ExprRef> &indices, const Var *buffer,
                          bool inBlock, LaunchLimits *limits) const {
  if (!kernelLevel_ || indices.empty())
    return false;
  unsigned need = inBlock ? used_ & kThreadParts : used_;
  if (!need)
    return false;
  static const Facts none;
  auto known = bufferFacts_.find(buffer);
  const Facts &facts = known == bufferFacts_.end() ? none : known->second;
  unsigned parts = 0;
  LaunchLimits assumed;
  assumed_ = &assumed;
  for (const ExprRef &i : indices)
    parts |= distinguishes(i, facts);
  assumed_ = nullptr;
  if ((parts & need) != need)
    return false;
  if (limits)
    limits->merge(assumed);
  return true;
}

//===----------------------------------------------------------------------===//
// Values that differ between threads
//===----------------------------------------------------------------------===//

bool ThreadIndices::taintedExpr(const ExprRef &e) const {
  if (!e)
    return false;
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    // An element of memory counts by its indices: threads that read the
    // same element read the same value (warpAdd checks the address anyway).
    found |= partOf(builtinName(x)) != 0 || x->kind == ExprKind::TapePop ||
             (x->kind == ExprKind::VarRef && tainted_.count(x->var));
  });
  return found;
}

bool ThreadIndices::sameInEveryThread(const ExprRef &index) const {
  return !taintedExpr(index);
}

void ThreadIndices::taintTemporaries(const std::vector<StmtRef> &code) {
  size_t before;
  do {
    before = tainted_.size();
    for (const StmtRef &s : code)
      taint(s, &writtenInPrimal_);
  } while (tainted_.size() != before);
}

void ThreadIndices::taint(const StmtRef &s, const std::set<const Var *> *skip) {
  // Data flow only: a value assigned under a condition that differs between
  // threads is the same in the threads that assign it (a loop's counter in
  // the threads that run the loop), which is what a warp sum needs; where
  // it is not, cgp::dev::warpAdd sees different addresses and adds per lane.
  forEachStmt(s, [&](const StmtRef &n) {
    const Var *v = n->kind == StmtKind::Assign ? lvalueVar(n->lhs)
                   : n->kind == StmtKind::Decl ? n->var
                                               : nullptr;
    if (v && !(skip && skip->count(v)) && taintedExpr(n->value))
      tainted_.insert(v);
  });
}

} // namespace cgp
