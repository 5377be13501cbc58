// Unit tests of the frontend: what the IR of a kernel looks like, and that
// unsupported code is an error rather than IR.
#include "LowerSnippet.h"
#include "ir/Printer.h"

#include <catch2/catch.hpp>

using namespace cgp;
using cgp_test::lowerSnippet;

TEST_CASE("a kernel and its helper are lowered", "[frontend]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <cmath>
    static double sq(double v) { return v * v; }
    CGP_GRAD(W) double k(const double *W, int n) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += sq(std::tanh(W[i]));
      return s;
    })");
  REQUIRE_FALSE(l->hasErrors);
  REQUIRE(l->kernels.size() == 1);
  Function *k = l->kernels[0];
  CHECK(k->isKernel);
  REQUIRE(k->wrt.size() == 1);
  CHECK(k->wrt[0]->name == "W");
  CHECK(k->wrt[0]->isPointer());
  CHECK(k->wrt[0]->isConst);
  std::string text = printFunction(*k);
  CHECK(text.find("s += ::sq(std::tanh(W[i]));") != std::string::npos);
  CHECK(text.find("for (int i = 0; i < n; ++i)") != std::string::npos);
}

TEST_CASE("compound assignments with a wider arithmetic type are spelled out", "[frontend]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) float k(float x, double d) { float y = x; y += d; y *= x; return y; })");
  REQUIRE_FALSE(l->hasErrors);
  std::string text = printFunction(*l->kernels[0]);
  CHECK(text.find("y = static_cast<float>(static_cast<double>(y) + d);") != std::string::npos);
  CHECK(text.find("y *= x;") != std::string::npos);
}

TEST_CASE("array initialisers become element assignments", "[frontend]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(double x) { double a[3] = {x, 2.0}; return a[0] + a[1] + a[2]; })");
  REQUIRE_FALSE(l->hasErrors);
  std::string text = printFunction(*l->kernels[0]);
  CHECK(text.find("a[k0] = 0.0;") != std::string::npos); // the zero fill
  CHECK(text.find("a[0] = x;") != std::string::npos);
  CHECK(text.find("a[1] = 2.0;") != std::string::npos);
}

TEST_CASE("std::min and std::max become selects", "[frontend]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    #include <algorithm>
    CGP_GRAD(x) double k(double x, double y) { return std::max(x, y) - std::min(x, 0.0); })");
  REQUIRE_FALSE(l->hasErrors);
  std::string text = printFunction(*l->kernels[0]);
  CHECK(text.find("(x < y ? y : x) - (0.0 < x ? 0.0 : x)") != std::string::npos);
}

TEST_CASE("switch cases are grouped by label", "[frontend]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(double x, int m) {
      switch (m) { case 1: case 2: x *= 2; break; default: x += 1; }
      return x;
    })");
  REQUIRE_FALSE(l->hasErrors);
  StmtRef sw = cgp_test::findStmt(l->kernels[0]->body,
                                  [](const StmtRef &s) { return s->kind == StmtKind::Switch; });
  REQUIRE(sw);
  REQUIRE(sw->cases.size() == 2);
  CHECK(sw->cases[0].values == std::vector<int64_t>{1, 2});
  CHECK(sw->cases[1].isDefault);
}

TEST_CASE("unsupported code is an error, not IR", "[frontend]") {
  auto l = lowerSnippet(R"(
    #include <cgp/cgp.h>
    CGP_GRAD(x) double k(double x) { int i = 0; again: x *= 2; if (++i < 3) goto again; return x; })");
  CHECK(l->hasErrors);
  CHECK(l->kernels.empty());
  CHECK(l->diagnostics.find("cannot differentiate 'k': labels are not supported") !=
        std::string::npos);
}
