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
// bit: std::reduce and std::transform_reduce, which libstdc++ computes four
// elements at a time on random-access ranges, in that order. Operations are
// lambdas, each called through the lambda's helper at each element
// (Lowering::lambdaOperation), or <functional>'s std::plus, minus,
// multiplies and divides.
//
// An iterator held in a variable (`auto it = v.begin();`, `auto it =
// std::lower_bound(...)`) is what a local pointer is (LowerAliases.cpp): the
// buffer it points into and an offset variable that `++it`, `it += k` and
// `it = other` move; `*it`, `it[k]`, comparisons, `it - other`, std::next,
// std::prev and std::distance read the offset. lower_bound and upper_bound
// are libstdc++'s binary search, placed before the statement.
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"
#include "ir/Fold.h"

#include "clang/AST/ExprCXX.h"

#include <map>

namespace cgp {
namespace {

/// `e` without the copies, temporaries and conversions of an iterator
/// object passed by value.
const clang::Expr *iteratorValue(const clang::Expr *e) {
  while (true) {
    e = withoutTemporaries(e->IgnoreParenImpCasts())->IgnoreParenImpCasts();
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
  if (ExprRef place = iteratorPosition(e))
    return place;
  const clang::Expr *it = iteratorValue(e);
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(it);
      op && op->getNumArgs() == 2 &&
      (op->getOperator() == clang::OO_Plus || op->getOperator() == clang::OO_Minus)) {
    bool iteratorFirst = !op->getArg(0)->getType()->isIntegerType();
    ExprRef base = iteratorAddress(op->getArg(iteratorFirst ? 0 : 1), algorithm);
    ExprRef by = asInt(lowerIndex(op->getArg(iteratorFirst ? 1 : 0)));
    if (op->getOperator() == clang::OO_Minus)
      return address(base->var, isInteger(base->operands[0], 0)
                                    ? unary(UnaryOp::Neg, by)
                                    : binary(BinaryOp::Sub, base->operands[0], by));
    return address(base->var, plus(base->operands[0], by));
  }
  if (e->getType()->isPointerType() || e->getType()->isArrayType()) {
    ExprRef a = lowerAddress(e);
    if (a->var->isArray() && a->var->dims.size() == 2)
      unsupported(e, "'std::" + algorithm + "' over a two-dimensional array is not supported; "
                     "give it a row, or loop over the elements");
    return a;
  }
  if (algorithm.empty())
    unsupported(e, "this iterator is not supported; an iterator must point into one std::vector "
                   "or std::array (begin(), end(), another iterator, plus or minus a count)");
  unsupported(e, "the range of 'std::" + algorithm + "' must be pointers into one buffer or "
                 "begin()/end() of a std::vector or std::array (plus or minus a count)");
}

void Lowering::refuseIteratorMoveInExpression(const clang::Expr *op) {
  unsupported(op, "moving an iterator inside an expression ('*it++') is not supported; move it "
                  "in a statement of its own ('++it;')");
}

bool Lowering::isIteratorType(clang::QualType t) {
  const clang::CXXRecordDecl *rd = t.getNonReferenceType()->getAsCXXRecordDecl();
  return rd && isStandardLibraryRecord(rd) && rd->getName().contains("iterator");
}

ExprRef Lowering::iteratorPosition(const clang::Expr *e) {
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
  if (const auto *dr = llvm::dyn_cast<clang::DeclRefExpr>(it))
    if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(dr->getDecl());
        vd && isIteratorType(vd->getType()))
      if (auto a = aliases_.find(vd); a != aliases_.end() && a->second.offset)
        return address(a->second.base, varRef(a->second.offset));
  if (const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(it);
      op &&
      (op->getOperator() == clang::OO_PlusPlus || op->getOperator() == clang::OO_MinusMinus) &&
      isIteratorType(op->getType()))
    refuseIteratorMoveInExpression(op);
  const auto *call = llvm::dyn_cast<clang::CallExpr>(it);
  const clang::FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || !callee->isInStdNamespace() || !callee->getDeclName().isIdentifier() ||
      llvm::isa<clang::CXXMethodDecl>(callee))
    return nullptr;
  std::string name = callee->getName().str();
  unsigned n = call->getNumArgs();
  if ((name == "next" || name == "prev") && (n == 1 || n == 2)) {
    ExprRef from = iteratorAddress(call->getArg(0), name);
    bool counted = n == 2 && !llvm::isa<clang::CXXDefaultArgExpr>(call->getArg(1));
    ExprRef by = counted ? asInt(lowerIndex(call->getArg(1))) : intLit(1);
    if (name == "prev")
      return address(from->var, binary(BinaryOp::Sub, from->operands[0], by));
    return address(from->var, plus(from->operands[0], by));
  }
  if ((name == "max_element" || name == "min_element") && n == 2) {
    ExprRef first = iteratorAddress(call->getArg(0), name);
    ExprRef at = lowerExtremeElement(call, call->getArg(0));
    return address(first->var, plus(first->operands[0], at));
  }
  if ((name == "lower_bound" || name == "upper_bound") && n >= 3) {
    if (n != 3)
      unsupported(call, "'std::" + name + "' with a comparison of its own is not supported; "
                        "write the search");
    requireStatementsBefore(call, "'std::" + name + "'");
    return binarySearch(call, name == "upper_bound");
  }
  return nullptr;
}

ExprRef Lowering::binarySearch(const clang::CallExpr *call, bool upper) {
  std::string name = upper ? "upper_bound" : "lower_bound";
  SourcePos pos = position(call->getBeginLoc());
  const IteratorRange range = iteratorRange(call->getArg(0), call->getArg(1), name);
  Var *buffer = range.first->var;
  // libstdc++: len = last - first; while (len > 0) { half = len >> 1;
  // if (*(first + half) < value) (upper: !(value < *(first + half)))
  // { first += half + 1; len -= half + 1; } else len = half; }
  Var *found = newLocal(name + "_at", ScalarType::intType(), pos);
  Var *len = newLocal(name + "_len", ScalarType::intType(), pos);
  Var *half = newLocal(name + "_half", ScalarType::intType(), pos);
  ExprRef middle = index(buffer, {binary(BinaryOp::Add, varRef(found), varRef(half))});
  // Compared as C++ compares them: a float element with a double value in
  // double (integers compare as written).
  ExprRef value = lowerExpr(call->getArg(2));
  if (value->type.isFloating() || buffer->elem.isFloating()) {
    ScalarType common = sumType(buffer->elem, value->type);
    value = convert(value, common);
    middle = convert(middle, common);
  }
  ExprRef before = upper ? unary(UnaryOp::Not, binary(BinaryOp::Lt, value, middle))
                         : binary(BinaryOp::Lt, middle, value);
  ExprRef step = binary(BinaryOp::Add, varRef(half), intLit(1));
  std::vector<StmtRef> body{
      decl(half, binary(BinaryOp::Shr, varRef(len), intLit(1))),
      ifStmt(before,
             block({assign(varRef(found), step, AssignOp::Add),
                    assign(varRef(len), step, AssignOp::Sub)}),
             block({assign(varRef(len), varRef(half))}))};
  std::vector<StmtRef> out{
      decl(found, asInt(range.first->operands[0])),
      decl(len, binary(BinaryOp::Sub, asInt(range.end), varRef(found))),
      whileStmt(binary(BinaryOp::Gt, varRef(len), intLit(0)), block(body))};
  out.back()->pos = pos;
  appendAll(sideEffects_->before, out);
  return address(buffer, varRef(found));
}

StmtRef Lowering::lowerIteratorDecl(const clang::VarDecl *vd) {
  std::string name = vd->getNameAsString();
  if (!vd->getInit())
    unsupported(vd->getLocation(), "the iterator '" + name + "' must be initialised where it is "
                                   "declared, so that cgp-ad knows which container it points into");
  return withSideEffects([&] {
    ExprRef where = iteratorAddress(vd->getInit(), "");
    return declareMovingAlias(vd, address(where->var, asInt(where->operands[0])));
  });
}

StmtRef Lowering::lowerIteratorMove(const clang::Expr *e) {
  const auto *op = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e->IgnoreParens());
  if (!op || op->getNumArgs() < 1 || !isIteratorType(op->getArg(0)->getType()))
    return nullptr;
  const Alias *a = pointerAlias(op->getArg(0));
  clang::OverloadedOperatorKind kind = op->getOperator();
  bool moves = kind == clang::OO_PlusPlus || kind == clang::OO_MinusMinus ||
               kind == clang::OO_PlusEqual || kind == clang::OO_MinusEqual ||
               kind == clang::OO_Equal;
  if (!moves)
    return nullptr;
  if (!a)
    unsupported(op, "only iterators held in local variables can be moved");
  if (kind == clang::OO_PlusPlus || kind == clang::OO_MinusMinus)
    return assign(varRef(a->offset), intLit(1),
                  kind == clang::OO_PlusPlus ? AssignOp::Add : AssignOp::Sub);
  if (kind == clang::OO_Equal) {
    ExprRef where = iteratorAddress(op->getArg(1), "");
    if (where->var != a->base)
      unsupported(op, "the iterator '" + a->name + "' points into '" + a->base->name +
                          "' and is set here to point into '" + where->var->name +
                          "'; an iterator must stay in the container it was initialised with");
    return assign(varRef(a->offset), asInt(where->operands[0]));
  }
  return assign(varRef(a->offset), asInt(lowerIndex(op->getArg(1))),
                kind == clang::OO_PlusEqual ? AssignOp::Add : AssignOp::Sub);
}

ExprRef Lowering::lowerIteratorOperation(const clang::CXXOperatorCallExpr *op) {
  if (op->getNumArgs() < 1 || !isIteratorType(op->getArg(0)->getType()))
    return nullptr;
  clang::OverloadedOperatorKind kind = op->getOperator();
  if (kind == clang::OO_Star && op->getNumArgs() == 1) {
    ExprRef at = iteratorAddress(op->getArg(0), "");
    return index(at->var, {at->operands[0]});
  }
  if (kind == clang::OO_Subscript) {
    ExprRef at = iteratorAddress(op->getArg(0), "");
    return index(at->var, {plus(at->operands[0], asInt(lowerIndex(op->getArg(1))))});
  }
  if (kind == clang::OO_Arrow)
    unsupported(op, "'->' on an iterator is not supported; index the container");
  if (kind == clang::OO_PlusPlus || kind == clang::OO_MinusMinus)
    refuseIteratorMoveInExpression(op);
  static const std::map<clang::OverloadedOperatorKind, BinaryOp> compare = {
      {clang::OO_EqualEqual, BinaryOp::Eq}, {clang::OO_ExclaimEqual, BinaryOp::Ne},
      {clang::OO_Less, BinaryOp::Lt},       {clang::OO_LessEqual, BinaryOp::Le},
      {clang::OO_Greater, BinaryOp::Gt},    {clang::OO_GreaterEqual, BinaryOp::Ge},
      {clang::OO_Minus, BinaryOp::Sub}};
  auto c = compare.find(kind);
  if (c == compare.end() || op->getNumArgs() != 2 || !isIteratorType(op->getArg(1)->getType()))
    return nullptr; // it + k and it - k are places (iteratorAddress)
  ExprRef a = iteratorAddress(op->getArg(0), ""), b = iteratorAddress(op->getArg(1), "");
  if (a->var != b->var)
    unsupported(op, "compares iterators of different containers ('" + a->var->name + "' and '" +
                        b->var->name + "')");
  if (c->second == BinaryOp::Sub) // `it - v.begin()`: the offset itself
    return convert(sub(asInt(a->operands[0]), asInt(b->operands[0])),
                   scalarType(op->getType(), op->getBeginLoc()));
  return binary(c->second, asInt(a->operands[0]), asInt(b->operands[0]));
}

ExprRef Lowering::lowerDistance(const clang::CallExpr *e, const ScalarType &type) {
  if (foreignRoot(e->getArg(0)) || foreignRoot(e->getArg(1)))
    return nullptr; // iterators of a constant kept whole
  ExprRef a = iteratorAddress(e->getArg(0), "distance");
  ExprRef b = iteratorAddress(e->getArg(1), "distance");
  if (a->var != b->var)
    unsupported(e, "'std::distance' from '" + a->var->name + "' to '" + b->var->name +
                       "' is not supported; both must be in one container");
  return convert(sub(asInt(b->operands[0]), asInt(a->operands[0])), type);
}

Lowering::IteratorRange Lowering::iteratorRange(const clang::Expr *firstArg,
                                                const clang::Expr *lastArg,
                                                const std::string &algorithm) {
  ExprRef first = iteratorAddress(firstArg, algorithm);
  ExprRef last = iteratorAddress(lastArg, algorithm);
  if (first->var != last->var)
    unsupported(firstArg, "the range of 'std::" + algorithm + "' starts in '" + first->var->name +
                              "' and ends in '" + last->var->name + "'; both ends must be in "
                              "one buffer");
  return {first, last->operands[0]};
}

void Lowering::requireStatementsBefore(const clang::Expr *e, const std::string &what) {
  if (!sideEffects_ || lazy_)
    unsupported(e, what + " is not supported here (a condition, or a side of '&&', '||' or "
                          "'?:'); give its value to a local first");
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
    ExprRef first, end;
    if (name == "fill_n") {
      first = iteratorAddress(e->getArg(0), name);
      end = plus(first->operands[0], asInt(lowerExpr(e->getArg(1))));
    } else {
      const IteratorRange range = iteratorRange(e->getArg(0), e->getArg(1), name);
      first = range.first;
      end = range.end;
    }
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
    const IteratorRange range = iteratorRange(e->getArg(0), e->getArg(1), name);
    ExprRef first = range.first, end = range.end;
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
  // for_each(first, last, f): f called on each element, for what it does
  // to what it captures by reference.
  if (name == "for_each" && n == 3) {
    const IteratorRange range = iteratorRange(e->getArg(0), e->getArg(1), name);
    ExprRef first = range.first, end = range.end;
    std::vector<StmtRef> out;
    ExprRef op = lambdaOperation(e->getArg(2), e, 1, out);
    out.push_back(rangeLoop(name, first->operands[0], end, [&](ExprRef k) {
      return std::vector<StmtRef>{eval(applyOperation(op, {index(first->var, {k})}))};
    }, pos));
    return block(out);
  }
  // copy(first, last, out), copy_n(first, count, out)
  if ((name == "copy" || name == "copy_n") && n == 3) {
    ExprRef first, count;
    if (name == "copy_n") {
      first = iteratorAddress(e->getArg(0), name);
      count = asInt(lowerExpr(e->getArg(1)));
    } else {
      const IteratorRange range = iteratorRange(e->getArg(0), e->getArg(1), name);
      first = range.first;
      count = isInteger(first->operands[0], 0)
                  ? range.end
                  : binary(BinaryOp::Sub, range.end, first->operands[0]);
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

namespace {

/// `std::plus<>()` and its kin given as an algorithm's operation: the
/// operator, and the functor's type argument where it names one (std::plus<double>).
struct ArithmeticFunctor {
  BinaryOp op;
  const clang::Type *type; // null for the transparent std::plus<>
};

std::optional<ArithmeticFunctor> arithmeticFunctor(const clang::Expr *arg) {
  const auto *record = arg->getType()->getAsCXXRecordDecl();
  const auto *spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(record);
  if (!spec || !spec->isInStdNamespace() || spec->getTemplateArgs().size() != 1)
    return std::nullopt;
  static const std::pair<const char *, BinaryOp> kFunctors[] = {
      {"plus", BinaryOp::Add}, {"minus", BinaryOp::Sub}, {"multiplies", BinaryOp::Mul},
      {"divides", BinaryOp::Div}};
  for (const auto &[name, op] : kFunctors)
    if (spec->getName() == name) {
      clang::QualType t = spec->getTemplateArgs()[0].getAsType();
      return ArithmeticFunctor{op, t->isVoidType() ? nullptr : t.getTypePtr()};
    }
  return std::nullopt;
}

} // namespace

ExprRef Lowering::lowerExtremeElement(const clang::Expr *iterator, const clang::Expr *from) {
  const auto *e = llvm::dyn_cast<clang::CallExpr>(iteratorValue(iterator));
  const clang::FunctionDecl *callee = e ? e->getDirectCallee() : nullptr;
  if (!callee || !callee->isInStdNamespace() || !callee->getDeclName().isIdentifier())
    return nullptr;
  const std::string name = callee->getName().str();
  if (name != "max_element" && name != "min_element")
    return nullptr;
  if (e->getNumArgs() != 2)
    unsupported(e, "'std::" + name + "' with a comparison of its own is not supported; write "
                   "the loop");
  requireStatementsBefore(e, "'std::" + name + "'");
  SourcePos pos = position(e->getBeginLoc());
  const IteratorRange range = iteratorRange(e->getArg(0), e->getArg(1), name);
  ExprRef first = range.first, end = range.end;
  ExprRef origin;
  if (from) { // std::distance(from, it): the position from `from`, in the same buffer
    origin = iteratorAddress(from, "distance");
    if (origin->var != first->var)
      unsupported(from, "'std::distance' from '" + origin->var->name + "' to an element of '" +
                            first->var->name + "' is not supported; both must be in one buffer");
  }
  // libstdc++ keeps the first of equal elements: the largest moves on when
  // `largest < element`, the smallest when `element < smallest`.
  Var *best = newLocal(name == "max_element" ? "largest" : "smallest", first->var->elem, pos);
  Var *at = from ? newLocal(name == "max_element" ? "largest_at" : "smallest_at",
                            ScalarType::intType(), pos)
                 : nullptr;
  std::vector<StmtRef> out{decl(best, index(first->var, {first->operands[0]}))};
  if (at)
    out.push_back(decl(at, asInt(first->operands[0])));
  out.push_back(rangeLoop(name, plus(first->operands[0], intLit(1)), end, [&](ExprRef k) {
    ExprRef element = index(first->var, {k});
    ExprRef better = name == "max_element" ? binary(BinaryOp::Lt, varRef(best), element)
                                           : binary(BinaryOp::Lt, element, varRef(best));
    std::vector<StmtRef> found{assign(varRef(best), element)};
    if (at)
      found.push_back(assign(varRef(at), k));
    return std::vector<StmtRef>{ifStmt(better, block(found))};
  }, pos));
  appendAll(sideEffects_->before, out);
  if (!at)
    return varRef(best);
  return isInteger(origin->operands[0], 0)
             ? varRef(at)
             : binary(BinaryOp::Sub, varRef(at), asInt(origin->operands[0]));
}

ExprRef Lowering::lowerListExtreme(const clang::CallExpr *e, bool largest,
                                   const ScalarType &type) {
  const auto *list = llvm::dyn_cast<clang::CXXStdInitializerListExpr>(
      withoutTemporaries(e->getArg(0)->IgnoreImplicit()));
  if (!list)
    return nullptr;
  const auto *elements =
      llvm::dyn_cast<clang::InitListExpr>(withoutTemporaries(list->getSubExpr()->IgnoreImplicit()));
  const std::string name = largest ? "std::max" : "std::min";
  if (!elements || elements->getNumInits() == 0)
    unsupported(e, "'" + name + "' of this list is not supported; list its values");
  requireStatementsBefore(e, "'" + name + "' of a list");
  SourcePos pos = position(e->getBeginLoc());
  // The list's elements are all evaluated first, in order; then, as
  // libstdc++'s max_element (min_element) over them, the running extreme
  // moves on when `extreme < element` (`element < extreme`).
  std::vector<StmtRef> out;
  std::vector<Var *> values;
  for (const clang::Expr *init : elements->inits()) {
    Var *v = newLocal(largest ? "max_of" : "min_of", type, pos);
    out.push_back(decl(v, convert(lowerExpr(init), type)));
    values.push_back(v);
  }
  Var *extreme = newLocal(largest ? "largest" : "smallest", type, pos);
  out.push_back(decl(extreme, varRef(values[0])));
  for (size_t i = 1; i < values.size(); ++i) {
    ExprRef better = largest ? binary(BinaryOp::Lt, varRef(extreme), varRef(values[i]))
                             : binary(BinaryOp::Lt, varRef(values[i]), varRef(extreme));
    out.push_back(ifStmt(better, block({assign(varRef(extreme), varRef(values[i]))})));
  }
  appendAll(sideEffects_->before, out);
  return varRef(extreme);
}

ExprRef Lowering::lowerAlgorithmValue(const clang::CallExpr *e) {
  const clang::FunctionDecl *callee = e->getDirectCallee();
  if (!callee || !callee->isInStdNamespace() || !callee->getDeclName().isIdentifier())
    return nullptr;
  std::string name = callee->getName().str();
  unsigned n = e->getNumArgs();
  // The forms: accumulate(first, last, init[, op]), inner_product(first1,
  // last1, first2, init[, op1, op2]), reduce(first, last[, init[, op]]),
  // transform_reduce(first1, last1, first2, init[, op1, op2]) and
  // transform_reduce(first, last, init, op, unary).
  const bool accumulate = name == "accumulate" && (n == 3 || n == 4);
  const bool inner = name == "inner_product" && (n == 4 || n == 6);
  const bool reduce = name == "reduce" && n >= 2 && n <= 4;
  const bool pairs = name == "transform_reduce" && (n == 4 || n == 6);
  const bool unary = name == "transform_reduce" && n == 5;
  if (!accumulate && !inner && !reduce && !pairs && !unary) {
    if (name == "accumulate" || name == "inner_product" || name == "transform" ||
        name == "transform_reduce" || name == "reduce" || name == "for_each")
      unsupported(e, "'std::" + name + "' in this form is not supported; write the loop");
    return nullptr;
  }
  if (n > 0 && e->getArg(0)->getType().getAsString().find("execution") != std::string::npos)
    unsupported(e, "'std::" + name + "' with an execution policy is not supported; call it "
                   "without one");
  requireStatementsBefore(e, "'std::" + name + "'");
  SourcePos pos = position(e->getBeginLoc());
  const IteratorRange range = iteratorRange(e->getArg(0), e->getArg(1), name);
  ExprRef first = range.first, end = range.end;
  const bool twoRanges = inner || pairs;
  ExprRef other = twoRanges ? iteratorAddress(e->getArg(2), name) : nullptr;
  const unsigned initAt = twoRanges ? 3 : 2;
  ScalarType t = scalarType(e->getType(), e->getBeginLoc());
  std::vector<StmtRef> out;
  // The operations, from their arguments: a lambda (called through its
  // helper) or an arithmetic functor of <functional>; by default `+`, and
  // `*` to combine two ranges' elements.
  struct Operation {
    ExprRef lambda;
    BinaryOp op = BinaryOp::Add;
    std::optional<ScalarType> type; // the functor's argument type, if not transparent
  };
  auto operation = [&](unsigned at, unsigned arity, BinaryOp otherwise) {
    Operation op;
    op.op = otherwise;
    if (at >= n)
      return op;
    const clang::Expr *arg = e->getArg(at);
    if (std::optional<ArithmeticFunctor> f = arithmeticFunctor(arg); f && arity == 2) {
      op.op = f->op;
      if (f->type)
        op.type = scalarType(clang::QualType(f->type, 0), arg->getBeginLoc());
      return op;
    }
    op.lambda = lambdaOperation(arg, e, arity, out);
    return op;
  };
  auto apply = [&](const Operation &op, std::vector<ExprRef> args) -> ExprRef {
    if (op.lambda)
      return applyOperation(op.lambda, args);
    ScalarType c = op.type ? *op.type : sumType(args[0]->type, args[1]->type);
    return binary(op.op, convert(args[0], c), convert(args[1], c));
  };
  // The reduction, and how each element (or pair) enters it.
  const Operation combine = operation(accumulate || reduce ? 3 : inner || pairs ? 4 : 3,
                                      2, BinaryOp::Add);
  const Operation pairUp = operation(unary ? 4 : 5, unary ? 1 : 2, BinaryOp::Mul);
  auto element = [&](const ExprRef &k) {
    ExprRef term = index(first->var, {k});
    if (unary)
      return apply(pairUp, {term});
    if (!twoRanges)
      return term;
    ExprRef second = isInteger(first->operands[0], 0)
                         ? rangeElement(other, k)
                         : rangeElement(other, binary(BinaryOp::Sub, k, first->operands[0]));
    return apply(pairUp, {term, second});
  };
  Var *sum = newLocal(name + "_sum", t, pos);
  ExprRef init = initAt < n ? convert(lowerExpr(e->getArg(initAt)), t)
                 : t.isFloating() ? floatLit(0.0, t)
                                  : intLit(0, t);
  out.push_back(decl(sum, init));
  auto fold = [&](const ExprRef &value) {
    return assign(varRef(sum), convert(apply(combine, {varRef(sum), value}), t));
  };
  ExprRef from = first->operands[0];
  if (reduce || pairs || unary) {
    // libstdc++'s order for random-access ranges: four elements at a
    // time, `init = op(init, op(op(x0, x1), op(x2, x3)))`, then the rest
    // one by one; so values and gradients match the primal's bits.
    Var *groups = newLocal(name + "_groups", ScalarType::intType(), pos);
    ExprRef count = isInteger(from, 0) ? end : binary(BinaryOp::Sub, end, from);
    out.push_back(decl(groups, binary(BinaryOp::Div, asInt(count), intLit(4))));
    out.push_back(rangeLoop(name + "_group", intLit(0), varRef(groups), [&](ExprRef g) {
      ExprRef at = binary(BinaryOp::Mul, g, intLit(4));
      if (!isInteger(from, 0))
        at = binary(BinaryOp::Add, from, at);
      auto nth = [&](int j) {
        return element(j == 0 ? at : binary(BinaryOp::Add, at, intLit(j)));
      };
      std::vector<StmtRef> body;
      Var *halves[2];
      for (int h = 0; h < 2; ++h) {
        halves[h] = newLocal(name + (h == 0 ? "_low" : "_high"), t, pos);
        body.push_back(decl(halves[h], convert(apply(combine, {nth(2 * h), nth(2 * h + 1)}), t)));
      }
      Var *both = newLocal(name + "_four", t, pos);
      body.push_back(decl(both, convert(apply(combine, {varRef(halves[0]), varRef(halves[1])}), t)));
      body.push_back(fold(varRef(both)));
      return body;
    }, pos));
    ExprRef rest = binary(BinaryOp::Mul, varRef(groups), intLit(4));
    from = isInteger(from, 0) ? rest : binary(BinaryOp::Add, from, rest);
  }
  // One by one: accumulate and inner_product from the first element on.
  out.push_back(rangeLoop(name, from, end, [&](ExprRef k) {
    return std::vector<StmtRef>{fold(element(k))};
  }, pos));
  appendAll(sideEffects_->before, out);
  return varRef(sum);
}

} // namespace cgp
