//===- LowerAlgorithms.cpp - the standard algorithms numeric code uses -----===//
//
// `std::fill(y, y + n, 0.0)`, `std::accumulate(v.begin(), v.end(), 0.0)` and
// their kin are loops over a range of one buffer. The IR has no iterators,
// so each call is lowered to the loop it stands for, over the buffer the
// range names, from its first index to its last:
//
//   std::fill(y + 1, y + n, 0.0);         const double fill_value = 0.0;
//                                         for (int fill_k = 1; fill_k < n; ++fill_k)
//                                           y[fill_k] = fill_value;
//   s = std::accumulate(v.begin(),        double accumulate_sum = 0.0;
//                       v.end(), 0.0);    for (int accumulate_k = 0; ...; ++accumulate_k)
//                                           accumulate_sum = accumulate_sum + v[accumulate_k];
//                                         s = accumulate_sum;
//
// The loops are then differentiated like the user's own. A range is two
// pointers into one buffer (`p`, `p + k`, `v.data()`, `&a[i]`, an array) or
// two iterators of one std::vector or std::array (`v.begin()`, `v.end()`,
// `std::begin(a)`, `std::end(a)`, `v.begin() + k`). The loops compute what
// libstdc++'s own bodies compute, in the same order (accumulate adds from
// the first element on), so gradients and values match the primal's bit for
// bit. Of the algorithms that take an operation, std::transform is lowered:
// its lambda becomes a call of the lambda's helper at each element
// (Lowering::lambdaOperation); the others are refused.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/ExprCXX.h"

namespace cgp {
namespace {

/// `e` without the copies, temporaries and conversions of an iterator
/// object passed by value.
const clang::Expr *iteratorValue(const clang::Expr *e) {
  while (true) {
    e = withoutTemporaries(e->IgnoreParenImpCasts());
    const auto *c = llvm::dyn_cast<clang::CXXConstructExpr>(e);
    if (!c || c->getNumArgs() < 1 || !c->getConstructor()->isConvertingConstructor(false))
      return e;
    e = c->getArg(0); // iterator -> const_iterator
  }
}

/// `name` if `e` calls a method or a std function of that family
/// (`v.begin()`, `std::begin(v)`, `cbegin`), with the object it ranges over.
bool rangeCall(const clang::Expr *e, const char *name, const clang::Expr *&object) {
  std::string which;
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    which = mc->getMethodDecl()->getNameAsString();
    object = mc->getImplicitObjectArgument();
  } else if (const auto *c = llvm::dyn_cast<clang::CallExpr>(e);
             c && c->getDirectCallee() && c->getNumArgs() == 1 &&
             c->getDirectCallee()->isInStdNamespace()) {
    which = c->getDirectCallee()->getNameAsString();
    object = c->getArg(0)->IgnoreParenImpCasts();
  } else {
    return false;
  }
  return which == name || which == std::string("c") + name;
}

bool isInteger(const ExprRef &e, int64_t v) {
  return e->kind == ExprKind::IntLit && e->intValue == v;
}

/// `offset + k`, without `0 +`.
ExprRef plus(const ExprRef &offset, const ExprRef &k) {
  return isInteger(offset, 0) ? k : binary(BinaryOp::Add, offset, k);
}

ExprRef asInt(const ExprRef &e) {
  return e->type == ScalarType::intType() ? e : cast(ScalarType::intType(), e);
}

/// The type C++ computes `a + b` in, for scalars of types `a` and `b`.
ScalarType sumType(const ScalarType &a, const ScalarType &b) {
  if (a.kind == ScalarType::Double || b.kind == ScalarType::Double)
    return a.kind == ScalarType::Double ? a : b;
  if (a.isFloating() || b.isFloating())
    return a.isFloating() ? a : b;
  return a; // integers: the (usually int) type of the initial value
}

} // namespace

ExprRef Lowering::iteratorAddress(const clang::Expr *e, const std::string &algorithm) {
  const clang::Expr *it = iteratorValue(e);
  const clang::Expr *object = nullptr;
  bool first = rangeCall(it, "begin", object);
  if (first || rangeCall(it, "end", object)) {
    if (containerTypeOf(object->getType(), ctx_)) {
      Var *v = memoryVar(object);
      if (v && !(v->isArray() && v->dims.size() == 2))
        return address(v, first ? intLit(0) : asInt(containerSize(object)));
    } else if (object->getType()->isConstantArrayType()) {
      Var *v = memoryVar(object);
      if (v && v->isArray() && v->dims.size() == 1)
        return address(v, first ? intLit(0) : intLit(v->dims[0]));
    }
  }
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(it);
      op && op->getNumArgs() == 2 &&
      (op->getOperator() == clang::OO_Plus || op->getOperator() == clang::OO_Minus)) {
    bool iteratorFirst = !op->getArg(0)->getType()->isIntegerType();
    ExprRef base = iteratorAddress(op->getArg(iteratorFirst ? 0 : 1), algorithm);
    ExprRef by = asInt(lowerExpr(op->getArg(iteratorFirst ? 1 : 0)));
    if (op->getOperator() == clang::OO_Minus)
      by = unary(UnaryOp::Neg, by);
    return address(base->var, plus(base->operands[0], by));
  }
  if (e->getType()->isPointerType() || e->getType()->isArrayType()) {
    ExprRef a = lowerAddress(e);
    if (a->var->isArray() && a->var->dims.size() == 2)
      unsupported(e, "'std::" + algorithm + "' over a two-dimensional array is not supported; "
                     "give it a row, or loop over the elements");
    return a;
  }
  unsupported(e, "the range of 'std::" + algorithm + "' must be pointers into one buffer or "
                 "begin()/end() of a std::vector or std::array (plus or minus a count)");
}

ExprRef Lowering::rangeEnd(const clang::Expr *firstArg, const ExprRef &first,
                             const ExprRef &last, const std::string &algorithm) {
  if (first->var != last->var)
    unsupported(firstArg, "the range of 'std::" + algorithm + "' starts in '" + first->var->name +
                              "' and ends in '" + last->var->name + "'; both ends must be in "
                              "one buffer");
  return last->operands[0];
}

/// The element at `offset + k` of the buffer an address names.
static ExprRef rangeElement(const ExprRef &place, const ExprRef &k) {
  return index(place->var, {plus(place->operands[0], k)});
}

StmtRef Lowering::lowerAlgorithmStmt(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !callee->isInStdNamespace() || !callee->getDeclName().isIdentifier())
    return nullptr;
  std::string name = callee->getName().str();
  unsigned n = e->getNumArgs();
  SourcePos pos = position(e->getBeginLoc());
  auto writable = [&](const clang::Expr *arg, const ExprRef &place) {
    if (isReadOnly(place->var))
      unsupported(arg, "'std::" + name + "' writes to the constant '" + place->var->name + "'");
  };
  // fill(first, last, value), fill_n(first, count, value), iota(first, last, value)
  if ((name == "fill" || name == "fill_n" || name == "iota") && n == 3) {
    ExprRef first = iteratorAddress(e->getArg(0), name);
    ExprRef last = name == "fill_n"
                       ? address(first->var, plus(first->operands[0],
                                                  asInt(lowerExpr(e->getArg(1)))))
                       : iteratorAddress(e->getArg(1), name);
    ExprRef end = rangeEnd(e->getArg(0), first, last, name);
    writable(e->getArg(0), first);
    // The value is evaluated once (fill takes it by reference, iota by value).
    const clang::Expr *valueArg = e->getArg(2);
    ScalarType t = name == "iota" ? scalarType(valueArg->getType(), valueArg->getBeginLoc())
                                  : first->var->elem;
    Var *value = newLocal(name + "_value", t, pos);
    std::vector<StmtRef> out{decl(value, convert(lowerExpr(valueArg), t))};
    ExprRef one = t.isFloating() ? floatLit(1.0, t) : intLit(1, t);
    out.push_back(rangeLoop(name, first->operands[0], end, [&](ExprRef k) {
      std::vector<StmtRef> body{
          assign(index(first->var, {k}), convert(varRef(value), first->var->elem))};
      if (name == "iota")
        body.push_back(assign(varRef(value), one, AssignOp::Add));
      return body;
    }, pos));
    return block(out);
  }
  // transform(first, last, out, op), transform(first1, last1, first2, out, op)
  if (name == "transform" && (n == 4 || n == 5)) {
    bool binaryOp = n == 5;
    ExprRef first = iteratorAddress(e->getArg(0), name);
    ExprRef end = rangeEnd(e->getArg(0), first, iteratorAddress(e->getArg(1), name), name);
    ExprRef second = binaryOp ? iteratorAddress(e->getArg(2), name) : nullptr;
    const clang::Expr *outArg = e->getArg(binaryOp ? 3 : 2);
    ExprRef to = iteratorAddress(outArg, name);
    writable(outArg, to);
    // In place only element for element (`v.begin()` to `v.begin()`).
    for (const ExprRef &in : {first, second})
      if (in && in->var == to->var &&
          !(isInteger(in->operands[0], 0) && isInteger(to->operands[0], 0)))
        unsupported(e, "'std::transform' from '" + to->var->name + "' into itself at another "
                       "position is not supported; transform into a local buffer");
    std::vector<StmtRef> out;
    auto element = [&](const ExprRef &place, const ExprRef &k) {
      return rangeElement(place, binary(BinaryOp::Sub, k, first->operands[0]));
    };
    ExprRef op = lambdaOperation(e->getArg(n - 1), e, binaryOp ? 2 : 1, out);
    out.push_back(rangeLoop(name, first->operands[0], end, [&](ExprRef k) {
      std::vector<ExprRef> args{index(first->var, {k})};
      if (second)
        args.push_back(isInteger(first->operands[0], 0) ? rangeElement(second, k)
                                                       : element(second, k));
      ExprRef result = applyOperation(op, args);
      ExprRef place = isInteger(first->operands[0], 0) ? rangeElement(to, k) : element(to, k);
      return std::vector<StmtRef>{assign(place, convert(result, to->var->elem))};
    }, pos));
    return block(out);
  }
  // copy(first, last, out), copy_n(first, count, out)
  if ((name == "copy" || name == "copy_n") && n == 3) {
    ExprRef first = iteratorAddress(e->getArg(0), name);
    ExprRef count;
    if (name == "copy_n") {
      count = asInt(lowerExpr(e->getArg(1)));
    } else {
      ExprRef end = rangeEnd(e->getArg(0), first, iteratorAddress(e->getArg(1), name), name);
      count = isInteger(first->operands[0], 0) ? end
                                               : binary(BinaryOp::Sub, end, first->operands[0]);
    }
    ExprRef to = iteratorAddress(e->getArg(2), name);
    writable(e->getArg(2), to);
    if (to->var == first->var)
      unsupported(e, "'std::" + name + "' within one buffer ('" + to->var->name +
                         "') is not supported; copy through a local buffer");
    return rangeLoop(name, intLit(0), count, [&](ExprRef k) {
      return std::vector<StmtRef>{
          assign(rangeElement(to, k), convert(rangeElement(first, k), to->var->elem))};
    }, pos);
  }
  return nullptr;
}

ExprRef Lowering::lowerAlgorithmValue(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !callee->isInStdNamespace() || !callee->getDeclName().isIdentifier())
    return nullptr;
  std::string name = callee->getName().str();
  unsigned n = e->getNumArgs();
  bool accumulate = name == "accumulate" && n == 3;
  bool inner = name == "inner_product" && n == 4;
  if (!accumulate && !inner) {
    if (name == "accumulate" || name == "inner_product" || name == "transform" ||
        name == "transform_reduce" || name == "reduce" || name == "for_each")
      unsupported(e, "'std::" + name + "' with an operation of its own is not supported; "
                     "write the loop");
    return nullptr;
  }
  if (!sideEffects_ || lazy_)
    unsupported(e, "'std::" + name + "' is not supported here (a condition, or a side of '&&', "
                   "'||' or '?:'); give its value to a local first");
  SourcePos pos = position(e->getBeginLoc());
  ExprRef first = iteratorAddress(e->getArg(0), name);
  ExprRef end = rangeEnd(e->getArg(0), first, iteratorAddress(e->getArg(1), name), name);
  ExprRef other = inner ? iteratorAddress(e->getArg(2), name) : nullptr;
  const clang::Expr *initArg = e->getArg(inner ? 3 : 2);
  ScalarType t = scalarType(e->getType(), e->getBeginLoc());
  Var *sum = newLocal(name + "_sum", t, pos);
  std::vector<StmtRef> out{decl(sum, convert(lowerExpr(initArg), t))};
  out.push_back(rangeLoop(name, first->operands[0], end, [&](ExprRef k) {
    // libstdc++: init = init + *first, or init = init + (*first1) * (*first2)
    ExprRef term = index(first->var, {k});
    if (inner) {
      ExprRef second = rangeElement(other, binary(BinaryOp::Sub, k, first->operands[0]));
      if (isInteger(first->operands[0], 0))
        second = rangeElement(other, k);
      ScalarType product = sumType(term->type, second->type);
      term = binary(BinaryOp::Mul, convert(term, product), convert(second, product));
    }
    ScalarType c = sumType(t, term->type);
    ExprRef added = binary(BinaryOp::Add, convert(varRef(sum), c), convert(term, c));
    return std::vector<StmtRef>{assign(varRef(sum), convert(added, t))};
  }, pos));
  appendAll(sideEffects_->before, out);
  return varRef(sum);
}

} // namespace cgp
