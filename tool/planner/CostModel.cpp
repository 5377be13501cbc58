//===- CostModel.cpp - how long values take and how often they run --------===//
#include "planner/CostModel.h"

#include "ir/MathTable.h"

#include <algorithm>

namespace cgp {

double scalarBytes(const ScalarType &t) {
  switch (t.kind) {
  case ScalarType::Bool:
    return 1;
  case ScalarType::Float:
    return 4;
  case ScalarType::Double:
    return 8;
  case ScalarType::Integer:
    for (const char *wide : {"long", "int64", "size_t", "ptrdiff", "intptr"})
      if (t.spelling.find(wide) != std::string::npos)
        return 8;
    if (t.spelling.find("short") != std::string::npos)
      return 2;
    if (t.spelling.find("char") != std::string::npos)
      return 1;
    return 4;
  default:
    return 8;
  }
}

namespace {
/// The functions whose cost is being estimated, callers first: a call of
/// one of them (recursion) counts as one pass over its body, which the
/// estimate of its caller already holds.
std::vector<const Function *> &costStack() {
  static thread_local std::vector<const Function *> stack;
  return stack;
}

double calleeCost(const Function &callee) {
  std::vector<const Function *> &stack = costStack();
  if (std::find(stack.begin(), stack.end(), &callee) != stack.end())
    return 0.0;
  stack.push_back(&callee);
  double cost = estimateFrequencies(callee).primalCost;
  stack.pop_back();
  return cost;
}
} // namespace

double exprCost(const ExprRef &e) {
  double cost = 0;
  forEachExpr(e, [&](const ExprRef &x) {
    switch (x->kind) {
    case ExprKind::Binary:
      cost += x->binaryOp == BinaryOp::Div || x->binaryOp == BinaryOp::Rem ? 4 : 1;
      break;
    case ExprKind::Unary:
    case ExprKind::Select:
    case ExprKind::Index:
      cost += 1;
      break;
    case ExprKind::Math:
      cost += mathFunction(x->mathFn).cost;
      break;
    case ExprKind::Opaque:
      cost += 20;
      break;
    case ExprKind::Foreign: // a read through the user's own members and methods
      cost += 2;
      break;
    case ExprKind::Call:
      cost += 5 + calleeCost(*x->callee); // the call and its body
      break;
    default:
      break;
    }
  });
  return cost;
}

namespace {
class FrequencyWalk {
public:
  FrequencyWalk(const KernelStats *profile, Frequencies &out) : profile_(profile), out_(out) {}

  void walk(const StmtRef &s, double times) {
    if (!s || isProfileHook(s))
      return;
    out_.runs[s.get()] = times;
    for (const ExprRef &e : ownExprs(s))
      out_.primalCost += times * exprCost(e);
    switch (s->kind) {
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: {
      walk(s->init, times);
      double trips = tripsOf(s);
      walk(s->body, times * trips);
      walk(s->step, times * trips);
      return;
    }
    case StmtKind::If: {
      std::optional<double> share = thenShare(s);
      walk(s->body, share ? times * *share : times);
      walk(s->elseBody, share ? times * (1.0 - *share) : times);
      return;
    }
    default:
      for (const StmtRef &c : s->stmts)
        walk(c, times);
      walk(s->body, times);
      walk(s->elseBody, times);
    }
  }

private:
  double tripsOf(const StmtRef &loop) {
    double trips = static_cast<double>(kDefaultTripCount);
    const char *source = "default";
    if (std::optional<int64_t> known = knownTripCount(loop)) {
      trips = static_cast<double>(*known);
      source = "constant";
    } else if (profile_) {
      auto found = profile_->loops.find({static_cast<int>(loop->pos.line),
                                         static_cast<int>(loop->pos.column)});
      if (found != profile_->loops.end() && found->second.starts > 0) {
        trips = static_cast<double>(found->second.iterations) /
                static_cast<double>(found->second.starts);
        source = "profile";
      }
    }
    out_.trips[loop.get()] = {trips, source};
    return trips;
  }

  /// The share of the runs of an `if` that take its then-arm, if measured
  /// (without, both arms count as always run).
  std::optional<double> thenShare(const StmtRef &branch) {
    if (!profile_)
      return std::nullopt;
    auto found = profile_->branches.find({static_cast<int>(branch->pos.line),
                                          static_cast<int>(branch->pos.column)});
    if (found == profile_->branches.end())
      return std::nullopt;
    double total = static_cast<double>(found->second.thenCount + found->second.elseCount);
    if (total <= 0)
      return std::nullopt;
    return static_cast<double>(found->second.thenCount) / total;
  }

  const KernelStats *profile_;
  Frequencies &out_;
};
} // namespace

Frequencies estimateFrequencies(const Function &f, const KernelStats *profile) {
  Frequencies out;
  FrequencyWalk(profile, out).walk(f.body, 1.0);
  return out;
}

} // namespace cgp
