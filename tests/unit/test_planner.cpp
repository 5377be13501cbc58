// Unit tests of the CGP planner's cost model and value decisions.
#include "LowerSnippet.h"
#include "planner/CostModel.h"
#include "planner/Planner.h"
#include "transform/CountedLoops.h"
#include "transform/HoistCalls.h"
#include "transform/HoistDecls.h"
#include "transform/NormalizeControl.h"

#include <catch2/catch.hpp>

using namespace cgp;

/// The snippet's kernel as the sweep builder gets it: control normalized,
/// calls as statements, counted loops marked, locals hoisted.
static Function &prepared(cgp_test::Lowered &l) {
  Function &k = *l.kernels[0];
  normalizeControl(k, l.module);
  hoistCalls(k, l.module);
  markCountedLoops(k);
  hoistDecls(k);
  return k;
}

TEST_CASE("the cost model counts operations and loop trips", "[planner]") {
  Module m;
  Var v;
  v.name = "x";
  v.elem = ScalarType::doubleType();
  Var *x = m.newVar(v);
  CHECK(exprCost(binary(BinaryOp::Add, varRef(x), varRef(x))) == 1);
  CHECK(exprCost(binary(BinaryOp::Div, varRef(x), varRef(x))) == 4);
  CHECK(exprCost(math(MathFn::Tanh, x->elem, {binary(BinaryOp::Mul, varRef(x), varRef(x))})) == 26);

  auto l = cgp_test::lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(const double *x, int n) {
      double s = 0;
      for (int i = 0; i < 8; ++i) s += x[i];
      for (int i = 0; i < n; ++i) s += x[i];
      return s;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  markCountedLoops(k);
  Frequencies f = estimateFrequencies(k);
  std::vector<double> loopRuns;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->assignOp == AssignOp::Add && s->lhs->var->name == "s")
      loopRuns.push_back(f.of(s.get()));
  });
  REQUIRE(loopRuns.size() == 2);
  CHECK(loopRuns[0] == 8);
  CHECK(loopRuns[1] == kDefaultTripCount);
}

TEST_CASE("cheap values are recomputed, accumulators and elements stored", "[planner]") {
  auto l = cgp_test::lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <cmath>
    CGP_GRAD(W) double k(const double *W, int T) {
      double h[16] = {};
      double loss = 0;
      for (int t = 0; t < T; ++t) {
        for (int i = 0; i < 16; ++i) {
          double z = 0;
          for (int j = 0; j < 16; ++j) z += W[i * 16 + j] * h[j];
          double g = std::tanh(z);
          h[i] = g * h[i] + g;
        }
        loss += h[0];
      }
      return loss;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = prepared(*l);
  // What the reverse code reads, as the sweep builder would find it.
  std::map<const StmtNode *, VarSet> reads;
  Var *z = nullptr, *g = nullptr, *h = nullptr;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind != StmtKind::Assign)
      return;
    Var *v = s->lhs->var;
    if (v->name == "z" && s->assignOp == AssignOp::Add)
      z = v, h = s->value->operands[1]->var, reads[s.get()] = {h};
    if (v->name == "g")
      g = v, reads[s.get()] = {z};
    if (v->name == "h" && s->value->kind == ExprKind::Binary)
      reads[s.get()] = {g, h};
  });
  REQUIRE(z);
  REQUIRE(g);
  Summaries sums;
  TbrResult storeAll = analyzeToBeRecorded(k, reads, {}, sums);
  PlanOptions options;
  FunctionPlan plan = planValues(k, reads, storeAll, options, sums);
  const ValueDecision *gd = nullptr, *zd = nullptr;
  for (const ValueDecision &v : plan.values) {
    if (v.var == g)
      gd = &v;
    if (v.var == z)
      zd = &v;
  }
  REQUIRE(gd);
  CHECK(gd->candidate);
  CHECK(gd->recompute);
  CHECK(gd->score == Approx(options.alpha * gd->G + options.beta * gd->T - options.gamma * gd->M));
  if (zd)
    CHECK_FALSE(zd->recompute);
  CHECK(plan.plannedBytes < plan.storeAllBytes);

  options.storeAll = true;
  FunctionPlan all = planValues(k, reads, storeAll, options, sums);
  for (const ValueDecision &v : all.values)
    CHECK_FALSE(v.recompute);
  CHECK(all.plannedBytes == all.storeAllBytes);

  // A recompute allowance of zero keeps everything on the tape.
  options.storeAll = false;
  options.recomputeAllowance = 0;
  FunctionPlan none = planValues(k, reads, storeAll, options, sums);
  for (const ValueDecision &v : none.values)
    CHECK_FALSE(v.recompute);
}

TEST_CASE("the replay allowance goes to a loop whose tape outweighs its time", "[planner]") {
  auto l = cgp_test::lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(W) double k(const double *W, int T) {
      double h[16] = {};
      for (int t = 0; t < T; ++t)
        for (int i = 0; i < 16; ++i)
          h[i] = W[i] * h[i] * h[i] + W[i + 16];
      double loss = 0;
      for (int i = 0; i < 16; ++i)
        loss += h[i];
      return loss;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = prepared(*l);
  std::map<const StmtNode *, VarSet> reads;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::Index &&
        s->lhs->var->name == "h" && s->value->kind == ExprKind::Binary)
      reads[s.get()] = {s->lhs->var};
  });
  Summaries sums;
  TbrResult storeAll = analyzeToBeRecorded(k, reads, {}, sums);
  // Both loops can keep snapshots of h (16 doubles): the one over t frees
  // most of its tape so, the one over i (16 iterations of 8 bytes) none.
  std::map<const StmtNode *, double> snapshots;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::For && s->counted.index && s->counted.index->origin != Var::Temp &&
        (s->counted.index->name == "t" || s->counted.index->name == "i"))
      snapshots[s.get()] = 128;
  });
  auto shareOf = [&](const PlanOptions &options) {
    FunctionPlan plan = planValues(k, reads, storeAll, options, sums, snapshots);
    std::vector<double> shares;
    for (const LoopDecision &loop : plan.loops)
      if (loop.label != "zero fill")
        shares.push_back(loop.replayShare);
    return shares;
  };
  PlanOptions options;
  // The loop over t is nearly all of the primal and all of the tape: with
  // the default weights (time weighs three times memory) running part of
  // it again costs more than the tape it frees is worth.
  std::vector<double> shares = shareOf(options);
  REQUIRE(shares.size() == 3);
  CHECK(shares[0] == 0);
  // Weights where memory counts more than time: a fifth of its iterations
  // (an outermost loop's schedule, paid once a call, is not counted); the
  // loop inside it (whose snapshots would hold as much as its tape) and
  // the sum after it (which tapes nothing) get none.
  options.gamma = 0.5;
  options.beta = 0.1;
  shares = shareOf(options);
  CHECK(shares[0] >= 0.2);
  CHECK(shares[0] < 0.21);
  CHECK(shares[1] == 0);
  CHECK(shares[2] == 0);
  // On the device the whole loop, whatever the weights: its allowance is
  // the primal's time.
  CHECK(shareOf(deviceOptions(PlanOptions{}))[0] == 1);
  // A budget, store-all or no allowance: no share.
  options.memoryBudget = 1 << 20;
  CHECK(shareOf(options)[0] == 0);
  options.memoryBudget = -1;
  options.storeAll = true;
  CHECK(shareOf(options)[0] == 0);
  options.storeAll = false;
  options.replayAllowance = 0;
  CHECK(shareOf(options)[0] == 0);
  // A loop a tenth of the primal would run every iteration again.
  options.replayAllowance = 10;
  CHECK(shareOf(options)[0] == 1);
}

TEST_CASE("a cheap loop inside a costly one takes the replay allowance", "[planner]") {
  auto l = cgp_test::lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <cmath>
    CGP_GRAD(w) double k(const double *w, const double *data, int n, int m) {
      double loss = 0;
      for (int i = 0; i < n; ++i) {
        double drive = 0;
        for (int j = 0; j < m; ++j)
          for (int h = 0; h < 8; ++h)
            drive += std::cos(data[j] * h) / (1.0 + j);
        double x = w[0];
        for (int t = 0; t < m; ++t)
          x = x * x * w[1] + drive;
        loss += x;
      }
      return loss;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = prepared(*l);
  std::map<const StmtNode *, VarSet> reads;
  const StmtNode *outer = nullptr, *recurrence = nullptr;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->var->name == "x" &&
        s->value->kind == ExprKind::Binary)
      reads[s.get()] = {s->lhs->var};
    if (s->kind == StmtKind::For && s->counted.index && s->counted.index->name == "i")
      outer = s.get();
    if (s->kind == StmtKind::For && s->counted.index && s->counted.index->name == "t")
      recurrence = s.get();
  });
  REQUIRE(outer);
  REQUIRE(recurrence);
  Summaries sums;
  TbrResult storeAll = analyzeToBeRecorded(k, reads, {}, sums);
  auto decisionsWith = [&](std::map<const StmtNode *, double> snapshots) {
    FunctionPlan plan = planValues(k, reads, storeAll, PlanOptions{}, sums, snapshots);
    std::map<const StmtNode *, LoopDecision> out;
    for (const LoopDecision &loop : plan.loops)
      out[loop.loop] = loop;
    return out;
  };
  // The outer loop holds all of the tape and all of the time: taped. The
  // recurrence inside it holds all of the tape too, but the drive (no
  // derivative, no tape) is most of the time: it runs all of its
  // iterations again, at each run, from snapshots of x.
  auto loops = decisionsWith({{outer, 8}, {recurrence, 8}});
  CHECK(loops[outer].replayShare == 0);
  CHECK_FALSE(loops[outer].replayPays);
  CHECK(loops[recurrence].replayPays);
  CHECK(loops[recurrence].replayShare == 1);
  // A run of 100 iterations (assumed) tapes 800 bytes; with segments of
  // sqrt(100 x 8 / 8) = 10 iterations it holds 2 sqrt(100 x 8 x 8) = 160.
  CHECK(loops[recurrence].tapeShare == Approx(1));
  CHECK(loops[recurrence].freedShare == Approx(0.8));
  CHECK(loops[recurrence].timeShare < 0.2);
  // With a state as large as its whole tape, replaying frees nothing.
  loops = decisionsWith({{outer, 8}, {recurrence, 800}});
  CHECK(loops[recurrence].freedShare == 0);
  CHECK(loops[recurrence].replayShare == 0);
  // A loop that cannot keep snapshots gets no share.
  loops = decisionsWith({{outer, 8}});
  CHECK(loops[recurrence].replayShare == 0);
}

TEST_CASE("arrays filled by a loop from values at hand are filled again", "[planner]") {
  auto l = cgp_test::lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(mu) double k(const double *x, const double *mu, int n) {
      double loss = 0;
      for (int p = 0; p < n; ++p) {
        double xc[4], z[4];
        for (int i = 0; i < 4; ++i) xc[i] = x[p * 4 + i] - mu[i];
        for (int i = 0; i < 4; ++i) z[i] = xc[i] * xc[i];
        z[1] = 2.0 * z[1];
        for (int i = 0; i < 4; ++i) loss += z[i] * xc[i];
      }
      return loss;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = prepared(*l);
  // The reverse of the last loop reads xc and z; z's fill reads xc.
  std::map<const StmtNode *, VarSet> reads;
  Var *xc = nullptr, *z = nullptr;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::Index) {
      if (s->lhs->var->name == "xc")
        xc = s->lhs->var;
      if (s->lhs->var->name == "z")
        z = s->lhs->var;
    }
  });
  REQUIRE(xc);
  REQUIRE(z);
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::VarRef &&
        s->lhs->var->name == "loss" && mentions(s->value, xc))
      reads[s.get()] = {xc, z};
    if (s->kind == StmtKind::Assign && s->lhs->kind == ExprKind::Index && s->lhs->var == z &&
        mentions(s->value, xc))
      reads[s.get()] = {xc};
  });
  Summaries sums;
  TbrResult storeAll = analyzeToBeRecorded(k, reads, {}, sums);
  PlanOptions options;
  options.recomputeAllowance = 1; // the fill is much of this small kernel's time
  FunctionPlan plan = planValues(k, reads, storeAll, options, sums);
  const ValueDecision *xd = nullptr;
  std::vector<const ValueDecision *> zd;
  for (const ValueDecision &v : plan.values) {
    if (v.var == xc)
      xd = &v;
    if (v.var == z)
      zd.push_back(&v);
  }
  // xc: recomputed by its whole fill loop, before the last loop's reverse.
  REQUIRE(xd);
  INFO(xd->reason);
  CHECK(xd->candidate);
  CHECK(xd->recompute);
  REQUIRE(xd->refill);
  CHECK(xd->refill->kind == StmtKind::For);
  CHECK(xd->recomputeBefore);
  CHECK(xd->recomputeBefore != xd->refill.get());
  // z is written again after its fill: stored.
  REQUIRE_FALSE(zd.empty());
  for (const ValueDecision *v : zd) {
    CHECK_FALSE(v->recompute);
    CHECK_FALSE(v->refill);
  }
  // store-all stores them all.
  options.storeAll = true;
  for (const ValueDecision &v : planValues(k, reads, storeAll, options, sums).values)
    CHECK_FALSE(v.recompute);
}
