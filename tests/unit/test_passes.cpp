// Unit tests of the passes between the frontend and the reverse sweep:
// scalar replacement, control normalisation, call hoisting, counted loops,
// hoisted locals, and the analyses (summaries, activity, to-be-recorded).
#include "LowerSnippet.h"
#include "analysis/Activity.h"
#include "analysis/Appends.h"
#include "analysis/Summaries.h"
#include "analysis/ToBeRecorded.h"
#include "ir/Printer.h"
#include "transform/CountedLoops.h"
#include "transform/HoistCalls.h"
#include "transform/HoistDecls.h"
#include "transform/NormalizeControl.h"
#include "transform/ScalarReplacement.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace cgp;
using cgp_test::findStmt;
using cgp_test::lowerSnippet;

namespace {
/// The whole preparation the reverse transform runs.
std::vector<Var *> prepare(Function &f, Module &m) {
  normalizeControl(f, m);
  hoistCalls(f, m);
  markCountedLoops(f);
  return hoistDecls(f);
}

bool contains(const std::string &text, const std::string &piece) {
  return text.find(piece) != std::string::npos;
}

Var *findVar(const std::vector<Var *> &vars, const std::string &name) {
  for (Var *v : vars)
    if (v->name == name)
      return v;
  return nullptr;
}

/// The first `for` loop of `f` (the first counted by `index`, if named).
StmtRef findLoop(const Function &f, const std::string &index = "") {
  StmtRef loop;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (!loop && s->kind == StmtKind::For &&
        (index.empty() || (s->counted.index && s->counted.index->name == index)))
      loop = s;
  });
  return loop;
}

/// The std::vector locals `f` assigns, by name.
std::map<std::string, Var *> vectorLocals(const Function &f) {
  std::map<std::string, Var *> vectors;
  forEachStmt(f.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->var->ownsStorage)
      vectors[s->lhs->var->name] = s->lhs->var;
  });
  return vectors;
}
} // namespace

TEST_CASE("break, continue and return become flags", "[passes][control]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(const double *x, int n) {
      double s = 0;
      for (int i = 0; i < n; ++i) {
        if (x[i] < 0) continue;
        if (x[i] > 9) return s;
        s += x[i];
        if (s > 5) break;
      }
      return s * 2;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  normalizeControl(k, l->module);
  std::string text = printFunction(k);
  CHECK(contains(text, "for (int i = 0; !returned && !break_i && i < n; ++i)"));
  CHECK(contains(text, "continue_i = false;"));
  CHECK(contains(text, "if (!continue_i)"));
  CHECK(contains(text, "result = s;"));
  CHECK(contains(text, "returned = true;"));
  // The last return ends the function: no flag, only a guard.
  CHECK(contains(text, "if (!returned) {\n    result = s * 2;"));
  bool jumps = false;
  forEachStmt(k.body, [&](const StmtRef &s) {
    jumps |= s->kind == StmtKind::Break || s->kind == StmtKind::Continue ||
             s->kind == StmtKind::Return || s->kind == StmtKind::Switch;
  });
  CHECK_FALSE(jumps);
}

TEST_CASE("a switch with fall-through enters at the first matching case", "[passes][control]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(double x, int m) {
      switch (m) { case 0: x *= 2; [[fallthrough]]; case 1: x += 1; break; default: x = -x; }
      return x;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  normalizeControl(k, l->module);
  std::string text = printFunction(k);
  CHECK(contains(text, "first_case = m == 0 ? 0 : m == 1 ? 1 : 2;"));
  CHECK(contains(text, "if (first_case <= 0)"));
  CHECK(contains(text, "if (!break_switch && first_case <= 2)"));
}

TEST_CASE("helper calls get their own statements, keeping short circuits", "[passes][calls]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    static double g(double v) { return v * v; }
    CGP_GRAD(x) double k(double x) {
      double y = g(x) + g(2 * x);
      if (x > 0 && g(x) > 1) y = -y;
      while (g(y) < 100) y = y * 2;
      return y;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  normalizeControl(k, l->module);
  hoistCalls(k, l->module);
  std::string text = printFunction(k);
  CHECK(contains(text, "double g_ret = ::g(x);"));
  CHECK(contains(text, "double g_ret = ::g(2 * x);"));
  CHECK(contains(text, "bool cond = x > 0;\n  if (cond) {"));
  CHECK(contains(text, "bool loop_cond = g_ret < 100;"));
  CHECK(contains(text, "while (loop_cond)"));
}

TEST_CASE("counted loops and hoisted locals", "[passes]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(const double *x, int n) {
      double s = 0;
      for (int i = 0; i < n; i += 2) { double a = x[i]; s += a; }
      int j;
      for (j = n - 1; j >= 0; --j) s *= x[j];
      for (int m = 0; m < n; ++m) { if (x[m] > 0) m += 1; }
      return s;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  std::vector<Var *> locals = prepare(k, l->module);
  std::vector<StmtRef> loops;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::For)
      loops.push_back(s);
  });
  REQUIRE(loops.size() == 3);
  CHECK(loops[0]->counted.index);
  CHECK(loops[0]->counted.step == 2);
  CHECK(loops[1]->counted.step == -1);
  CHECK_FALSE(loops[2]->counted.index); // the body moves m
  CHECK(findVar(locals, "a"));          // declared in a loop body, now at the top
  CHECK(findVar(locals, "j"));
  CHECK_FALSE(findVar(locals, "i")); // a counted loop keeps its own index
}

TEST_CASE("appends: loops that only push_back onto a vector local", "[analysis][appends]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <vector>
    CGP_GRAD(x) double k(const double *x, int n) {
      std::vector<double> h, g, f, e;
      h.push_back(1.0); g.push_back(1.0); f.push_back(1.0); e.push_back(1.0);
      for (int i = 0; i < n; ++i) {
        h.push_back(x[i] * h[i / 2]);
        if (x[i] > 0) { h.push_back(x[i]); h.back() *= 2.0; }
        g.push_back(x[i]);
        g[0] = x[i];
        f.push_back(x[i]);
        if (i % 2) f.pop_back();
        e.resize(i + 2, x[i]);
      }
      return h[0] + g[0] + f[0] + e[0];
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  prepare(k, l->module);
  StmtRef loop = findLoop(k);
  REQUIRE(loop);
  std::map<std::string, Var *> vectors = vectorLocals(k);
  auto vector = [&](const std::string &name) { return vectors[name]; };
  REQUIRE(vector("h"));
  CHECK(onlyAppends(loop, vector("h")));       // push_back, and the new last element
  CHECK_FALSE(onlyAppends(loop, vector("g"))); // writes an element it had
  CHECK_FALSE(onlyAppends(loop, vector("f"))); // shrinks
  CHECK_FALSE(onlyAppends(loop, vector("e"))); // sets its size
  CHECK_FALSE(clearedFirst(loop, vector("h")));
  // Only h never shrinks: its push_backs write memory it never held (not
  // `h.back() *= 2.0`, which reads the element it writes).
  std::set<const StmtNode *> fresh = freshElementWrites(k);
  std::set<const Var *> freshVectors;
  for (const StmtNode *s : fresh)
    freshVectors.insert(s->lhs->var);
  CHECK(freshVectors == std::set<const Var *>{vector("h"), vector("g")});
  size_t hWrites = 0;
  forEachStmt(k.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign && s->lhs->var == vector("h"))
      hWrites += fresh.count(s.get()) ? 1 : 0;
  });
  CHECK(hWrites == 3); // before the loop, and two in it
}

TEST_CASE("appends: a vector emptied first at every iteration", "[analysis][appends]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <vector>
    CGP_GRAD(x) double k(const double *x, int n) {
      std::vector<double> work, kept;
      double s = 0;
      for (int t = 0; t < n; ++t) {
        work.clear();
        s += kept.empty() ? 0.0 : kept.back();
        kept.clear();
        for (int i = 0; i < n; ++i) { work.push_back(x[i] * s); kept.push_back(s); }
        for (double w : work) s += w;
      }
      return s;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  prepare(k, l->module);
  StmtRef loop = findLoop(k);
  REQUIRE(loop);
  std::map<std::string, Var *> vectors = vectorLocals(k);
  Var *work = vectors["work"], *kept = vectors["kept"];
  REQUIRE(work);
  REQUIRE(kept);
  CHECK(clearedFirst(loop, work));
  CHECK_FALSE(clearedFirst(loop, kept)); // read before it is emptied
  CHECK(freshElementWrites(k).empty());  // both shrink
  CHECK_FALSE(sizeNeverGrows(loop, work)); // refilled past its size
}

TEST_CASE("appends: vectors resized, never past their size", "[analysis][appends]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <vector>
    CGP_GRAD(x) double k(const double *x, int n) {
      std::vector<double> a(x, x + n), b(x, x + n), c(x, x + n);
      for (int t = 0; t < n; ++t) {
        std::vector<double> next = a;
        next[0] += 1.0;
        a = next;
        if (b.size() > 1) b.pop_back();
        b.back() = x[t];
        if (t % 2) c.pop_back(); else c.push_back(x[t]);
      }
      return a[0] + b[0] + c[0];
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  prepare(k, l->module);
  StmtRef loop = findLoop(k, "t");
  REQUIRE(loop);
  std::map<std::string, Var *> vectors = vectorLocals(k);
  REQUIRE(vectors.count("a"));
  CHECK(sizeNeverGrows(loop, vectors["a"]));       // a copy of it assigned back
  CHECK(sizeNeverGrows(loop, vectors["b"]));       // popped
  CHECK_FALSE(sizeNeverGrows(loop, vectors["c"])); // popped or grown
}

TEST_CASE("summaries see through nested calls", "[analysis]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    static void fill(double *out, const double *in, int n) { for (int i = 0; i < n; ++i) out[i] = in[i]; }
    static void wrap(double *a, const double *b, const double *unused, int n) { fill(a, b, n); }
    CGP_GRAD(x) double k(const double *x) { double t[2]; wrap(t, x, x, 2); return t[0]; })");
  REQUIRE_FALSE(l->hasErrors);
  Summaries sums;
  const Function *wrap = nullptr;
  for (const auto &f : l->module.functions())
    if (f->name == "wrap")
      wrap = f.get();
  REQUIRE(wrap);
  const FunctionSummary &s = sums.of(wrap);
  CHECK(s.writesParam == std::vector<bool>{true, false, false, false});
  CHECK(s.readsParam == std::vector<bool>{false, true, false, false});
}

TEST_CASE("activity: values used only in conditions get no adjoint", "[analysis][activity]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <cmath>
    CGP_GRAD(x, y) double k(double x, double y, int mode) {
      double r = std::sqrt(x * x + y * y);
      double c = 3.0;
      double out = 0;
      if (r < 1) out = x * y * c; else out = y;
      return out;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  std::vector<Var *> locals = prepare(k, l->module);
  Summaries sums;
  ActivitySeeds seeds;
  for (Var *w : k.wrt)
    seeds.varied.insert(w);
  seeds.useful.insert(k.result);
  ActivityResult act = analyzeActivity(k, seeds, sums);
  CHECK_FALSE(act.hasAdjoint(findVar(locals, "r")));
  CHECK_FALSE(act.hasAdjoint(findVar(locals, "c")));
  CHECK(act.hasAdjoint(findVar(locals, "out")));
  StmtRef product = findStmt(k.body, [](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->lhs->var->name == "out" &&
           s->value->kind == ExprKind::Binary;
  });
  REQUIRE(product);
  CHECK(act.at(product).active);
  StmtRef radius = findStmt(k.body, [](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->lhs->var->name == "r";
  });
  CHECK_FALSE(act.at(radius).active);
}

TEST_CASE("to-be-recorded: only overwritten values that the reverse reads", "[analysis][tbr]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(const double *x, int n) {
      double s = 0, keep = 2.0;
      for (int i = 0; i < n; ++i) { double a = x[i] * keep; s += a * a; }
      return s;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  std::vector<Var *> locals = prepare(k, l->module);
  Var *a = findVar(locals, "a"), *keep = findVar(locals, "keep");
  // What the adjoint code of `s += a * a` reads: a.
  StmtRef accumulate = findStmt(k.body, [](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->assignOp == AssignOp::Add &&
           s->lhs->var->name == "s";
  });
  StmtRef define = findStmt(k.body, [&](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->lhs->var == a;
  });
  StmtRef init = findStmt(k.body, [&](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->lhs->var == keep;
  });
  std::map<const StmtNode *, VarSet> reads;
  reads[accumulate.get()] = {a};
  reads[define.get()] = {keep};
  Summaries sums;
  TbrResult tbr = analyzeToBeRecorded(k, reads, {}, sums);
  CHECK(tbr.pushes.count(define.get()));  // a: overwritten each iteration, read by the reverse
  CHECK_FALSE(tbr.pushes.count(init.get())); // keep: never overwritten afterwards
  CHECK(tbr.neededAtExit.count(a));
  CHECK(tbr.neededAtExit.count(keep));
}

TEST_CASE("to-be-recorded: integer updates with stable steps are inverted, not pushed",
          "[analysis][tbr][inverse]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(const double *x, int d, int stride) {
      double s = 0;
      int li = 0, off = 0, m = 0;
      for (int r = 0; r < d; ++r) {
        for (int c = 0; c < r; ++c) { s += x[li] * x[off] * x[m]; ++li; off += r; }
        off += stride;
        int t = r % 3;
        m += t;
        li = r;
      }
      return s;
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  std::vector<Var *> locals = prepare(k, l->module);
  auto update = [&](const char *name, AssignOp op) {
    return findStmt(k.body, [&](const StmtRef &s) {
      return s->kind == StmtKind::Assign && s->assignOp == op && s->lhs->var->name == name;
    });
  };
  StmtRef li = update("li", AssignOp::Add), offByIndex = findStmt(k.body, [](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->lhs->var->name == "off" &&
           s->value->kind == ExprKind::VarRef && s->value->var->name == "r";
  });
  StmtRef offByStride = findStmt(k.body, [](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->lhs->var->name == "off" &&
           s->value->kind == ExprKind::VarRef && s->value->var->name == "stride";
  });
  StmtRef m = update("m", AssignOp::Add), reset = findStmt(k.body, [](const StmtRef &s) {
    return s->kind == StmtKind::Assign && s->lhs->var->name == "li" &&
           s->value->kind == ExprKind::VarRef;
  });
  REQUIRE(reset);
  REQUIRE(offByIndex);
  REQUIRE(offByStride);
  // Steps: a constant, the index of a loop around, a parameter; not `t`,
  // which the loop writes.
  InverseUpdates inverses = findInverseUpdates(k);
  CHECK(inverses.find(li.get()));
  CHECK(inverses.find(offByIndex.get()));
  CHECK(inverses.find(offByStride.get()));
  CHECK_FALSE(inverses.find(m.get()));
  CHECK(printStmt(inverseUpdate(offByIndex)).find("off -= r") != std::string::npos);

  // The adjoint code of `s += ...` reads li, off and m.
  std::map<const StmtNode *, VarSet> reads;
  StmtRef accumulate = update("s", AssignOp::Add);
  reads[accumulate.get()] = {findVar(locals, "li"), findVar(locals, "off"), findVar(locals, "m")};
  Summaries sums;
  TbrResult tbr = analyzeToBeRecorded(k, reads, {}, sums, inverses);
  CHECK(tbr.inverts.count(li.get()));
  CHECK(tbr.inverts.count(offByIndex.get()));
  CHECK(tbr.inverts.count(offByStride.get()));
  CHECK_FALSE(tbr.pushes.count(li.get()));
  CHECK(tbr.pushes.count(m.get()));
  // The plain assignment after the updates: its old value is needed by the
  // inverses of the row before, so it is pushed (once per row).
  CHECK(tbr.pushes.count(reset.get()));
  // Without the list (store-all), the updates are pushed. (`off += stride`
  // is not: the pops of the row's `off += r` give the reverse what it needs.)
  TbrResult all = analyzeToBeRecorded(k, reads, {}, sums);
  CHECK(all.inverts.empty());
  CHECK(all.pushes.count(li.get()));
  CHECK(all.pushes.count(offByIndex.get()));
  CHECK_FALSE(all.pushes.count(reset.get()));
}

TEST_CASE("small arrays become scalars, with the helpers and loops that fill them",
          "[passes][scalars]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <cmath>
    static void half(const double *p, double t, const double *y, double *dy) {
      dy[0] = y[1];
      dy[1] = std::sin(p[0] * t) * y[0];
    }
    CGP_GRAD(p) double k(const double *p, int steps) {
      double y[2] = {1.0, 0.0};
      for (int s = 0; s < steps; ++s) {
        double k1[2], tmp[2];
        half(p, s * 0.1, y, k1);
        for (int i = 0; i < 2; ++i) tmp[i] = y[i] + k1[i];
        for (int i = 0; i < 2; ++i) tmp[i] = tmp[i] * 0.5;
        for (int i = 0; i < 2; ++i) y[i] = tmp[i];
      }
      return y[0];
    })");
  REQUIRE_FALSE(l->hasErrors);
  Function &k = *l->kernels[0];
  REQUIRE(replaceSmallArrays(k, l->module));
  std::string text = printFunction(k);
  CHECK(contains(text, "// inlined: ::half(p, s * 0.1, y, k1)"));
  CHECK(contains(text, "half_t = s * 0.1;"));
  CHECK(contains(text, "k1_0 = y_1;"));
  CHECK(contains(text, "k1_1 = std::sin(*p * half_t) * y_0;"));
  CHECK(contains(text, "tmp_0 = y_0 + k1_0;"));
  // tmp_0's second value gets its own variable; y's values live on, so not.
  CHECK(contains(text, "tmp_0_2 = tmp_0 * 0.5;"));
  CHECK(contains(text, "y_0 = tmp_0_2;"));
  CHECK_FALSE(contains(text, "for (int i"));
  CHECK_FALSE(contains(text, "k1["));

  // An element chosen at run time keeps the array, its fill loop and the call.
  auto m = lowerSnippet(R"(
    #include <cgp/cgp.h>
    static void twice(const double *a, double *out) { out[0] = 2.0 * a[0]; }
    CGP_GRAD(x) double k(const double *x, const int *pick, int n) {
      double loss = 0;
      for (int i = 0; i < n; ++i) {
        double w[3], o[5];
        for (int j = 0; j < 3; ++j) w[j] = x[i + j];
        twice(w, o);
        loss += o[0] + w[pick[i]];
      }
      return loss;
    })");
  REQUIRE_FALSE(m->hasErrors);
  Function &k2 = *m->kernels[0];
  StmtRef before = k2.body;
  CHECK_FALSE(replaceSmallArrays(k2, m->module)); // o has 5 elements: more than split
  CHECK(k2.body == before);
}
