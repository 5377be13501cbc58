//===- LowerForeign.cpp - constants of types cgp-ad does not model --------===//
//
// A parameter that carries no derivative is a constant, whatever its type
// (interface.md section 3): a `const Model&` holding vectors of vectors, a
// `const std::vector<Point>&`, a class with private members and methods.
// Where cgp-ad cannot take such a type apart into the IR's scalars and
// buffers, the parameter stays whole: a *foreign* variable, declared with
// the type the user wrote, passed on as it is, and read through the
// expressions the user wrote, kept as text with holes for the values cgp-ad
// computes (`$0[$1].x`, `$0.size()`, `$0->w[$1]`):
//
//   double accel(const std::vector<Point>& charges, const Point& x) {
//     for (std::size_t k = 0; k < charges.size(); ++k)    // foreign reads
//       a += 1 / dist(charges[k].x - x.x, ...);
//
// Their values are inactive (no derivative flows through a constant), and
// reading one has no effect, so the reverse sweep may read it again. Only
// const objects (by value, `const T&`, `const T*`) and const methods are
// read this way; a range-based `for` over one counts its elements with
// size() and reads them with [].
//
//===----------------------------------------------------------------------===//
#include "frontend/Lowering.h"

#include "frontend/TypeMapping.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace cgp {

bool Lowering::mayBeForeign(const clang::ParmVarDecl *p) const {
  clang::QualType t = p->getType();
  if (isLambdaType(t))
    return false;
  if (t->isReferenceType())
    return t.getNonReferenceType().isConstQualified();
  if (t->isPointerType())
    return t->getPointeeType().isConstQualified();
  return !t->isArrayType(); // by value: the callee's own copy
}

void Lowering::lowerForeignParam(const clang::ParmVarDecl *p, unsigned at, Function *f) {
  Var v; // not isConst: the type it is spelled with says const
  v.elem = ScalarType{ScalarType::Foreign, globalTypeName(p->getType(), ctx_)};
  addParam(p, at, f, std::move(v));
}

const Var *Lowering::foreignRoot(const clang::Expr *e) {
  while (e) {
    e = withoutTemporaries(e);
    if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      const auto *vd = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      auto it = vd ? vars_.find(vd) : vars_.end();
      return it != vars_.end() && it->second->elem.kind == ScalarType::Foreign ? it->second
                                                                                : nullptr;
    }
    if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(e))
      e = ice->getSubExpr();
    else if (const auto *me = llvm::dyn_cast<clang::MemberExpr>(e))
      e = me->getBase();
    else if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(e))
      e = mc->getImplicitObjectArgument();
    else if (const auto *oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e);
             oc && oc->getNumArgs() >= 1 &&
             (oc->getOperator() == clang::OO_Subscript || oc->getOperator() == clang::OO_Call ||
              oc->getOperator() == clang::OO_Star || oc->getOperator() == clang::OO_Arrow))
      e = oc->getArg(0);
    else if (const auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
      e = as->getBase();
    else if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e);
             u && u->getOpcode() == clang::UO_Deref)
      e = u->getSubExpr();
    else
      return nullptr;
  }
  return nullptr;
}

std::string Lowering::foreignPattern(const clang::Expr *e, std::vector<ExprRef> &operands) {
  e = withoutTemporaries(e);
  auto hole = [&](ExprRef value) {
    operands.push_back(std::move(value));
    return "$" + std::to_string(operands.size() - 1);
  };
  auto value = [&](const clang::Expr *arg) {
    if (foreignRoot(arg))
      return foreignPattern(arg, operands);
    return hole(lowerExpr(arg));
  };
  if (const auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    const Var *v = foreignRoot(ref);
    return hole(varRef(const_cast<Var *>(v)));
  }
  if (const auto *ice = llvm::dyn_cast<clang::ImplicitCastExpr>(e)) {
    switch (ice->getCastKind()) {
    case clang::CK_LValueToRValue:
    case clang::CK_NoOp:
    case clang::CK_DerivedToBase:
    case clang::CK_UncheckedDerivedToBase:
    case clang::CK_ArrayToPointerDecay:
      return foreignPattern(ice->getSubExpr(), operands);
    default:
      break;
    }
  }
  if (const auto *me = llvm::dyn_cast<clang::MemberExpr>(e)) // a field, or a method called
    return foreignPattern(me->getBase(), operands) + (me->isArrow() ? "->" : ".") +
           me->getMemberDecl()->getNameAsString();
  if (const auto *mc = llvm::dyn_cast<clang::CXXMemberCallExpr>(e)) {
    const clang::CXXMethodDecl *md = mc->getMethodDecl();
    if (!md || (!md->isConst() && !md->isStatic()))
      unsupported(e, "calls the method '" + (md ? md->getNameAsString() : std::string("?")) +
                         "', which is not const, on a constant that cgp-ad reads as written");
    std::string text = foreignPattern(mc->getCallee(), operands) + "(";
    for (unsigned i = 0; i < mc->getNumArgs(); ++i)
      text += (i ? ", " : "") + value(mc->getArg(i));
    return text + ")";
  }
  if (const auto *oc = llvm::dyn_cast<clang::CXXOperatorCallExpr>(e)) {
    const auto *md = llvm::dyn_cast_or_null<clang::CXXMethodDecl>(oc->getDirectCallee());
    if (md && !md->isConst() && !md->isStatic())
      unsupported(e, "calls the operator '" + md->getNameAsString() +
                         "', which is not const, on a constant that cgp-ad reads as written");
    std::string base = foreignPattern(oc->getArg(0), operands);
    switch (oc->getOperator()) {
    case clang::OO_Subscript:
      return base + "[" + value(oc->getArg(1)) + "]";
    case clang::OO_Call: {
      std::string text = base + "(";
      for (unsigned i = 1; i < oc->getNumArgs(); ++i)
        text += (i > 1 ? ", " : "") + value(oc->getArg(i));
      return text + ")";
    }
    case clang::OO_Star:
      return "(*" + base + ")";
    case clang::OO_Arrow:
      return base;
    default:
      break;
    }
  }
  if (const auto *as = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
    return foreignPattern(as->getBase(), operands) + "[" + value(as->getIdx()) + "]";
  if (const auto *u = llvm::dyn_cast<clang::UnaryOperator>(e);
      u && u->getOpcode() == clang::UO_Deref)
    return "(*" + foreignPattern(u->getSubExpr(), operands) + ")";
  const Var *root = foreignRoot(e);
  unsupported(e, "this use of '" + (root ? root->name : std::string("a constant")) +
                     "', whose type cgp-ad reads only through members, elements, const "
                     "methods and operators, is not supported");
}

ExprRef Lowering::lowerForeign(const clang::Expr *e) {
  clang::QualType t = e->getType();
  if (!t->isArithmeticType() && !t->isEnumeralType())
    unsupported(e, "'" + foreignRoot(e)->name + "' has a type cgp-ad does not take apart: a " +
                       "value of type '" + t.getAsString() + "' read from it can only be passed " +
                       "whole to a function whose body cgp-ad sees; read numbers from it");
  std::vector<ExprRef> operands;
  std::string pattern = foreignPattern(e, operands);
  return foreign(pattern, scalarType(t, e->getBeginLoc()), std::move(operands));
}

ExprRef Lowering::lowerForeignObject(const clang::Expr *e, const Var *param) {
  if (!foreignRoot(e))
    unsupported(e, "passes a value of type '" + e->getType().getAsString() + "' to '" +
                       param->name + "', whose type cgp-ad does not take apart; only a constant "
                       "parameter of that type (or a part of one) can be passed on");
  std::vector<ExprRef> operands;
  std::string pattern = foreignPattern(e, operands);
  return foreign(pattern, param->elem, std::move(operands));
}

void Lowering::copyForeignRecord(const RecordView &to, clang::QualType type,
                                 const std::string &pattern, const std::vector<ExprRef> &operands,
                                 std::vector<StmtRef> &out) {
  std::vector<RecordLeaf> leaves; // which leaves are parts of complex numbers
  if (!flattenRecord(type.getNonReferenceType(), ctx_, leaves).empty() ||
      leaves.size() != to.places.size())
    leaves.assign(to.places.size(), RecordLeaf());
  for (size_t i = 0; i < to.places.size(); ++i) {
    std::string leaf = pattern;
    for (const clang::FieldDecl *field : to.fields[i])
      leaf += "." + field->getNameAsString();
    if (leaves[i].complexPart >= 0)
      leaf += leaves[i].complexPart == 0 ? ".real()" : ".imag()";
    if (leaves[i].eigen)
      leaf += ".data()"; // an Eigen matrix's coefficients
    const ScalarType &t = to.places[i].var->elem;
    if (to.dims[i].empty()) {
      out.push_back(assign(leafRef(to.places[i]), foreign(leaf, t, operands)));
      continue;
    }
    int64_t count = 1;
    for (int64_t d : to.dims[i])
      count *= d;
    if (to.dims[i].size() != 1)
      unsupported(clang::SourceLocation(), "copying a two-dimensional member array out of a "
                                           "constant that cgp-ad reads as written is not "
                                           "supported");
    for (int64_t k = 0; k < count; ++k)
      out.push_back(assign(leafElement(to.places[i], k),
                           foreign(leaf + "[" + std::to_string(k) + "]", t, operands)));
  }
}

StmtRef Lowering::lowerForeignRangeFor(const clang::CXXForRangeStmt *s) {
  const clang::VarDecl *loopVar = s->getLoopVariable();
  std::string name = loopVar->getNameAsString();
  SourcePos pos = position(loopVar->getLocation());
  // for (k = 0; k < range.size(); ++k) { loopVar = range[k]; body }
  std::vector<ExprRef> operands;
  std::string range = foreignPattern(s->getRangeInit(), operands);
  Var *at = newLocal(name + "_at", ScalarType::intType(), pos);
  ExprRef count = cast(ScalarType::intType(),
                       foreign(range + ".size()", ScalarType{ScalarType::Integer, "std::size_t"},
                               operands));
  std::vector<ExprRef> elementOperands = operands;
  elementOperands.push_back(varRef(at));
  std::string element = range + "[$" + std::to_string(operands.size()) + "]";

  std::vector<StmtRef> body;
  clang::QualType t = loopVar->getType().getNonReferenceType();
  if (loopVar->getType()->isReferenceType() && !t.isConstQualified())
    unsupported(loopVar->getLocation(), "the loop variable '" + name + "' is a reference that "
                                        "could change a constant cgp-ad reads as written; make it "
                                        "a copy or a const reference");
  if (t->isRecordType()) {
    RecordLocal record = newRecordLocal(loopVar, "the loop variable '" + name + "'");
    records_[loopVar] = record;
    RecordView view = viewOf(record);
    for (const LeafPlace &p : view.places)
      body.push_back(decl(p.var));
    copyForeignRecord(view, t, element, elementOperands, body);
  } else {
    Var *var = scalarLoopVariable(loopVar, t);
    StmtRef d = decl(var, foreign(element, var->elem, elementOperands));
    d->pos = pos;
    body.push_back(d);
  }
  appendFlat(body, lowerStmt(s->getBody()));
  return rangeLoop(at, intLit(0), count, std::move(body), position(s->getBeginLoc()));
}

} // namespace cgp
