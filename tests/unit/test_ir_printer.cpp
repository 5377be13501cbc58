// Unit tests of the IR constructors and of the printer that both the IR
// dumps and the emitter use: precedence, literals, casts, statements.
#include "ir/IR.h"
#include "ir/Printer.h"

#include <catch2/catch.hpp>

using namespace cgp;

namespace {
Var *scalar(Module &m, const char *name, ScalarType t = ScalarType::doubleType()) {
  Var v;
  v.name = name;
  v.elem = t;
  return m.newVar(v);
}
} // namespace

TEST_CASE("expressions print with the fewest parentheses", "[ir][printer]") {
  Module m;
  Var *a = scalar(m, "a"), *b = scalar(m, "b"), *c = scalar(m, "c");
  ExprRef sum = binary(BinaryOp::Add, varRef(a), varRef(b));
  CHECK(printExpr(binary(BinaryOp::Mul, sum, varRef(c))) == "(a + b) * c");
  CHECK(printExpr(binary(BinaryOp::Add, varRef(c), sum)) == "c + (a + b)");
  CHECK(printExpr(binary(BinaryOp::Sub, sum, varRef(c))) == "a + b - c");
  CHECK(printExpr(unary(UnaryOp::Neg, unary(UnaryOp::Neg, varRef(a)))) == "-(-a)");
  CHECK(printExpr(select(binary(BinaryOp::Lt, varRef(a), varRef(b)), varRef(a), varRef(b))) ==
        "a < b ? a : b");
  CHECK(printExpr(math(MathFn::Atan2, ScalarType::doubleType(), {varRef(a), varRef(b)})) ==
        "std::atan2(a, b)");
}

TEST_CASE("literals keep their type and round-trip", "[ir][printer]") {
  CHECK(printFloat(0.1, ScalarType::doubleType()) == "0.1");
  CHECK(printFloat(2.0, ScalarType::doubleType()) == "2.0");
  CHECK(printFloat(0.1, ScalarType::floatType()) == "0.1f");
  CHECK(printFloat(1e-300, ScalarType::doubleType()) == "1e-300");
  double third = 1.0 / 3.0;
  CHECK(std::strtod(printFloat(third, ScalarType::doubleType()).c_str(), nullptr) == third);
  CHECK(printExpr(intLit(3)) == "3");
  CHECK(printExpr(intLit(3, ScalarType{ScalarType::Integer, "unsigned long"})) == "3UL");
  CHECK(printExpr(boolLit(true)) == "true");
}

TEST_CASE("conversions between float and double are always written", "[ir][printer]") {
  Module m;
  Var *f = scalar(m, "f", ScalarType::floatType());
  Var *i = scalar(m, "i", ScalarType::intType());
  CHECK(printExpr(cast(ScalarType::doubleType(), varRef(f), /*implicit=*/true)) ==
        "static_cast<double>(f)");
  CHECK(printExpr(cast(ScalarType::doubleType(), varRef(i), /*implicit=*/true)) == "i");
  CHECK(printExpr(cast(ScalarType::intType(), varRef(f))) == "static_cast<int>(f)");
  CHECK(printExpr(cast(ScalarType::floatType(), floatLit(0.5, ScalarType::doubleType()))) ==
        "0.5f");
}

TEST_CASE("statements print as C++", "[ir][printer]") {
  Module m;
  Var *x = scalar(m, "x");
  Var *i = scalar(m, "i", ScalarType::intType());
  Var arr;
  arr.name = "h";
  arr.elem = ScalarType::doubleType();
  arr.shape = Var::Array;
  arr.dims = {4, 3};
  Var *h = m.newVar(arr);
  StmtRef loop = forStmt(decl(i, intLit(0)), binary(BinaryOp::Lt, varRef(i), intLit(4)),
                         assign(varRef(i), intLit(1), AssignOp::Add),
                         block({assign(index(h, {varRef(i), intLit(0)}), varRef(x), AssignOp::Mul)}));
  CHECK(printStmt(loop) == "for (int i = 0; i < 4; ++i) {\n  h[i][0] *= x;\n}\n");
  CHECK(printStmt(push(varRef(x))) == "cgp_tape.push(x);\n");
  CHECK(printStmt(push(boolLit(true))) == "cgp_tape.push<bool>(true);\n");
  CHECK(printStmt(assign(varRef(x), tapePop(ScalarType::doubleType()))) ==
        "x = cgp_tape.pop<double>();\n");
}

TEST_CASE("variables get stable ids and sameExpr compares structure", "[ir]") {
  Module m;
  Var *a = scalar(m, "a"), *b = scalar(m, "b");
  CHECK(a->id < b->id);
  VarLess less;
  CHECK(less(a, b));
  CHECK(sameExpr(binary(BinaryOp::Add, varRef(a), varRef(b)),
                 binary(BinaryOp::Add, varRef(a), varRef(b))));
  CHECK_FALSE(sameExpr(binary(BinaryOp::Add, varRef(a), varRef(b)),
                       binary(BinaryOp::Add, varRef(b), varRef(a))));
  CHECK_FALSE(sameExpr(tapePop(ScalarType::doubleType()), tapePop(ScalarType::doubleType())));
}
