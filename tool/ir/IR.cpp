//===- IR.cpp - constructors and queries of the kernel IR -----------------===//
//
// Small factory functions that keep node construction in one place, and the
// queries every pass needs (variables an expression reads, the variable an
// assignment writes, structural equality).
//
//===----------------------------------------------------------------------===//
#include "ir/IR.h"

#include <cassert>
#include <cstdint>

namespace cgp {

ExprRef floatLit(double value, ScalarType type, std::string spelling) {
  auto e = std::make_shared<ExprNode>(ExprKind::FloatLit, std::move(type));
  e->floatValue = value;
  e->spelling = std::move(spelling);
  return e;
}

ExprRef intLit(int64_t value, ScalarType type) {
  auto e = std::make_shared<ExprNode>(ExprKind::IntLit, std::move(type));
  e->intValue = value;
  return e;
}

ExprRef boolLit(bool value) { return intLit(value ? 1 : 0, ScalarType::boolType()); }

ExprRef varRef(Var *var) {
  assert(var && var->isScalar());
  return wholeVarRef(var);
}

ExprRef wholeVarRef(Var *var) {
  auto e = std::make_shared<ExprNode>(ExprKind::VarRef, var->elem);
  e->var = var;
  return e;
}

ExprRef index(Var *base, std::vector<ExprRef> indices) {
  assert(base && base->isMemory());
  auto e = std::make_shared<ExprNode>(ExprKind::Index, base->elem);
  e->var = base;
  e->operands = std::move(indices);
  return e;
}

ExprRef unary(UnaryOp op, ExprRef a) {
  ScalarType t = op == UnaryOp::Not ? ScalarType::boolType() : a->type;
  auto e = std::make_shared<ExprNode>(ExprKind::Unary, t);
  e->unaryOp = op;
  e->operands = {std::move(a)};
  return e;
}

bool isPredicate(BinaryOp op) {
  switch (op) {
  case BinaryOp::Lt:
  case BinaryOp::Le:
  case BinaryOp::Gt:
  case BinaryOp::Ge:
  case BinaryOp::Eq:
  case BinaryOp::Ne:
  case BinaryOp::LAnd:
  case BinaryOp::LOr:
    return true;
  default:
    return false;
  }
}

ExprRef binary(BinaryOp op, ExprRef a, ExprRef b) {
  ScalarType t = isPredicate(op) ? ScalarType::boolType() : a->type;
  auto e = std::make_shared<ExprNode>(ExprKind::Binary, t);
  e->binaryOp = op;
  e->operands = {std::move(a), std::move(b)};
  return e;
}

ExprRef select(ExprRef c, ExprRef a, ExprRef b) {
  auto e = std::make_shared<ExprNode>(ExprKind::Select, a->type);
  e->operands = {std::move(c), std::move(a), std::move(b)};
  return e;
}

ExprRef cast(ScalarType to, ExprRef a, bool implicit) {
  auto e = std::make_shared<ExprNode>(ExprKind::Cast, std::move(to));
  e->implicitCast = implicit;
  e->operands = {std::move(a)};
  return e;
}

ExprRef math(MathFn fn, ScalarType type, std::vector<ExprRef> args) {
  auto e = std::make_shared<ExprNode>(ExprKind::Math, std::move(type));
  e->mathFn = fn;
  e->operands = std::move(args);
  return e;
}

ExprRef call(Function *callee, ScalarType type, std::vector<ExprRef> args) {
  auto e = std::make_shared<ExprNode>(ExprKind::Call, std::move(type));
  e->callee = callee;
  e->operands = std::move(args);
  return e;
}

ExprRef opaque(std::string name, ScalarType type, std::vector<ExprRef> args) {
  auto e = std::make_shared<ExprNode>(ExprKind::Opaque, std::move(type));
  e->calleeName = std::move(name);
  e->operands = std::move(args);
  return e;
}

ExprRef runtimeConstant(std::string name, ScalarType type) {
  auto e = std::make_shared<ExprNode>(ExprKind::Opaque, std::move(type));
  e->spelling = std::move(name);
  return e;
}

ExprRef foreign(std::string pattern, ScalarType type, std::vector<ExprRef> operands) {
  auto e = std::make_shared<ExprNode>(ExprKind::Foreign, std::move(type));
  e->spelling = std::move(pattern);
  e->operands = std::move(operands);
  return e;
}

ExprRef address(Var *base, ExprRef offset) {
  auto e = std::make_shared<ExprNode>(ExprKind::Address, base->elem);
  e->var = base;
  e->operands = {std::move(offset)};
  return e;
}

ExprRef referenceArgument(const ExprRef &address) {
  auto a = std::make_shared<ExprNode>(*address);
  a->byReference = true;
  return a;
}

ExprRef elementAddress(const ExprRef &element) {
  Var *v = element->var;
  ExprRef flat = element->operands[0];
  if (element->operands.size() == 2)
    flat = binary(BinaryOp::Add, binary(BinaryOp::Mul, flat, intLit(v->dims[1])),
                  element->operands[1]);
  return address(v, flat);
}

ExprRef method(Var *object, std::string name, ScalarType type, std::vector<ExprRef> args) {
  auto e = std::make_shared<ExprNode>(ExprKind::Opaque, std::move(type));
  e->var = object;
  e->calleeName = std::move(name);
  e->operands = std::move(args);
  return e;
}

ExprRef member(Var *object, std::string name, ScalarType type) {
  auto e = std::make_shared<ExprNode>(ExprKind::Member, std::move(type));
  e->var = object;
  e->calleeName = std::move(name);
  return e;
}

ExprRef tapePop(ScalarType type) {
  return std::make_shared<ExprNode>(ExprKind::TapePop, std::move(type));
}

const char *spelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "-";
  case UnaryOp::Plus: return "+";
  case UnaryOp::Not: return "!";
  case UnaryOp::BitNot: return "~";
  }
  return "?";
}

const char *spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::LAnd: return "&&";
  case BinaryOp::LOr: return "||";
  case BinaryOp::BitAnd: return "&";
  case BinaryOp::BitOr: return "|";
  case BinaryOp::BitXor: return "^";
  case BinaryOp::Shl: return "<<";
  case BinaryOp::Shr: return ">>";
  }
  return "?";
}

//===----------------------------------------------------------------------===//

static StmtRef make(StmtKind k) { return std::make_shared<StmtNode>(k); }

StmtRef block(std::vector<StmtRef> stmts) {
  StmtRef s = make(StmtKind::Block);
  for (const StmtRef &c : stmts)
    appendFlat(s->stmts, c);
  return s;
}

StmtRef decl(Var *var, ExprRef init) {
  StmtRef s = make(StmtKind::Decl);
  s->var = var;
  s->value = std::move(init);
  return s;
}

StmtRef assign(ExprRef lhs, ExprRef rhs, AssignOp op) {
  StmtRef s = make(StmtKind::Assign);
  s->lhs = std::move(lhs);
  s->value = std::move(rhs);
  s->assignOp = op;
  return s;
}

StmtRef eval(ExprRef callExpr) {
  StmtRef s = make(StmtKind::Eval);
  s->value = std::move(callExpr);
  return s;
}

StmtRef ifStmt(ExprRef cond, StmtRef thenBody, StmtRef elseBody) {
  StmtRef s = make(StmtKind::If);
  s->value = std::move(cond);
  s->body = thenBody ? std::move(thenBody) : block();
  s->elseBody = std::move(elseBody);
  return s;
}

StmtRef forStmt(StmtRef init, ExprRef cond, StmtRef step, StmtRef body) {
  StmtRef s = make(StmtKind::For);
  s->init = std::move(init);
  s->value = std::move(cond);
  s->step = std::move(step);
  s->body = std::move(body);
  return s;
}

StmtRef whileStmt(ExprRef cond, StmtRef body) {
  StmtRef s = make(StmtKind::While);
  s->value = std::move(cond);
  s->body = std::move(body);
  return s;
}

StmtRef doWhile(StmtRef body, ExprRef cond) {
  StmtRef s = make(StmtKind::DoWhile);
  s->value = std::move(cond);
  s->body = std::move(body);
  return s;
}

StmtRef breakStmt() { return make(StmtKind::Break); }
StmtRef continueStmt() { return make(StmtKind::Continue); }

StmtRef returnStmt(ExprRef value) {
  StmtRef s = make(StmtKind::Return);
  s->value = std::move(value);
  return s;
}

StmtRef comment(std::string text) {
  StmtRef s = make(StmtKind::Comment);
  s->text = std::move(text);
  return s;
}

StmtRef push(ExprRef value) {
  StmtRef s = make(StmtKind::Push);
  s->value = std::move(value);
  return s;
}

StmtRef refreshElements(Var *v) {
  return eval(opaque("cgp::rt::refresh", ScalarType::voidType(),
                     {wholeVarRef(v), address(v, intLit(0))}));
}

bool isRefresh(const StmtRef &s, Var *&v) {
  if (!s || s->kind != StmtKind::Eval || s->value->kind != ExprKind::Opaque ||
      s->value->calleeName != "cgp::rt::refresh")
    return false;
  v = s->value->operands[0]->var;
  return true;
}

StmtRef sizeStorage(Var *v) {
  return eval(opaque("cgp::rt::allocate", ScalarType::voidType(),
                     {wholeVarRef(v), varRef(v->sizeVar)}));
}

bool isStorageUpkeep(const StmtRef &s) {
  Var *v = nullptr;
  return isRefresh(s, v) || (s && s->kind == StmtKind::Eval && s->value->kind == ExprKind::Opaque &&
                             s->value->calleeName == "cgp::rt::allocate");
}

StmtRef assertion(ExprRef cond) {
  return eval(opaque("assert", ScalarType::voidType(), {std::move(cond)}));
}

StmtRef raw(std::string text) {
  StmtRef s = make(StmtKind::Raw);
  s->text = std::move(text);
  return s;
}

StmtRef scope(std::vector<StmtRef> stmts) {
  StmtRef s = block(std::move(stmts));
  s->label = "scope";
  return s;
}

void appendFlat(std::vector<StmtRef> &list, const StmtRef &s) {
  if (!s)
    return;
  if (s->kind == StmtKind::Block && s->label != "scope") {
    for (const StmtRef &c : s->stmts)
      appendFlat(list, c);
    return;
  }
  list.push_back(s);
}

bool isEmpty(const StmtRef &s) {
  if (!s)
    return true;
  if (s->kind != StmtKind::Block)
    return false;
  for (const StmtRef &c : s->stmts)
    if (!isEmpty(c))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//

/// "::ns::inner::" + `name`, skipping anonymous namespaces.
static std::string inNamespaces(const std::vector<std::string> &namespaces,
                                const std::string &name) {
  std::string q;
  for (const std::string &ns : namespaces)
    if (!ns.empty())
      q += "::" + ns;
  return q + "::" + name;
}

std::string Function::scopedName() const { return inNamespaces(namespaces, name); }

std::string Function::qualifiedName() const {
  if (!primalName.empty())
    return inNamespaces(namespaces, primalName);
  return scopedName() + templateArgs;
}

Var *Module::newVar(Var v) {
  v.id = nextVarId_++;
  vars_.push_back(std::make_unique<Var>(std::move(v)));
  return vars_.back().get();
}

Function *Module::newFunction() {
  functions_.push_back(std::make_unique<Function>());
  return functions_.back().get();
}

//===----------------------------------------------------------------------===//

std::vector<ExprRef> ownExprs(const StmtRef &s) {
  std::vector<ExprRef> out;
  if (s->lhs)
    out.push_back(s->lhs);
  if (s->value)
    out.push_back(s->value);
  return out;
}

void collectVars(const ExprRef &e, std::vector<Var *> &out) {
  forEachExpr(e, [&](const ExprRef &n) {
    if (n->var)
      out.push_back(n->var);
  });
}

bool mentions(const ExprRef &e, const Var *v) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &n) {
    if (n->var == v)
      found = true;
  });
  return found;
}

Var *lvalueVar(const ExprRef &lhs) {
  assert(lhs->kind == ExprKind::VarRef || lhs->kind == ExprKind::Index);
  return lhs->var;
}

void collectWrittenVars(const StmtRef &s, std::set<const Var *> &out, bool opaqueCalls) {
  forEachStmt(s, [&](const StmtRef &n) {
    if (n->kind == StmtKind::Assign)
      out.insert(n->lhs->var);
    if (n->kind == StmtKind::Decl)
      out.insert(n->var);
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Call || (opaqueCalls && x->kind == ExprKind::Opaque))
          for (const ExprRef &arg : x->operands)
            if (arg->kind == ExprKind::Address)
              out.insert(arg->var); // a helper may write what it is given
      });
  });
}

bool isPure(const ExprRef &e) {
  bool pure = true;
  forEachExpr(e, [&](const ExprRef &x) {
    // An Opaque without a callee name is a runtime constant (threadIdx.x).
    bool opaqueCall = x->kind == ExprKind::Opaque && !x->calleeName.empty();
    if (x->kind == ExprKind::Call || opaqueCall || x->kind == ExprKind::TapePop)
      pure = false;
  });
  return pure;
}

bool callsGeneratedCode(const ExprNode &x) {
  return x.kind == ExprKind::Opaque && !x.calleeName.empty() &&
         (x.callee || x.var || x.calleeName.rfind("cgp", 0) == 0 ||
          x.calleeName.find("_fwd") != std::string::npos);
}

bool ordersOperands(const ExprNode &e) {
  return e.kind == ExprKind::Select ||
         (e.kind == ExprKind::Binary &&
          (e.binaryOp == BinaryOp::LAnd || e.binaryOp == BinaryOp::LOr));
}

bool sameExpr(const ExprRef &a, const ExprRef &b) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  if (a->kind != b->kind || a->type != b->type || a->var != b->var ||
      a->operands.size() != b->operands.size())
    return false;
  switch (a->kind) {
  case ExprKind::FloatLit:
    if (a->floatValue != b->floatValue)
      return false;
    break;
  case ExprKind::IntLit:
    if (a->intValue != b->intValue)
      return false;
    break;
  case ExprKind::Unary:
    if (a->unaryOp != b->unaryOp)
      return false;
    break;
  case ExprKind::Binary:
    if (a->binaryOp != b->binaryOp)
      return false;
    break;
  case ExprKind::Math:
    if (a->mathFn != b->mathFn)
      return false;
    break;
  case ExprKind::Call:
    if (a->callee != b->callee)
      return false;
    break;
  case ExprKind::Opaque:
    if (a->calleeName != b->calleeName)
      return false;
    break;
  case ExprKind::Foreign:
    if (a->spelling != b->spelling)
      return false;
    break;
  case ExprKind::TapePop:
    return false; // every pop is a different value
  default:
    break;
  }
  for (size_t i = 0; i < a->operands.size(); ++i)
    if (!sameExpr(a->operands[i], b->operands[i]))
      return false;
  return true;
}

ExprRef countedBound(const StmtRef &s) {
  if (s->kind != StmtKind::For || !s->counted.index || !s->init || !s->init->value)
    return nullptr;
  const ExprRef &cond = s->value;
  if (!cond || cond->kind != ExprKind::Binary || cond->operands[0]->kind != ExprKind::VarRef ||
      cond->operands[0]->var != s->counted.index)
    return nullptr;
  BinaryOp op = cond->binaryOp;
  int64_t by = s->counted.step;
  bool upwards = (op == BinaryOp::Lt || op == BinaryOp::Le) && by > 0;
  bool downwards = (op == BinaryOp::Gt || op == BinaryOp::Ge) && by < 0;
  return upwards || downwards ? cond->operands[1] : nullptr;
}

namespace {
/// Whether an integer type spelled `spelling` holds `value`: types are told
/// apart by their spelling, and a spelling not known holds what a 32-bit
/// `int` holds.
bool integerTypeHolds(const std::string &spelling, int64_t value) {
  if (value >= 0 && value <= 127)
    return true;
  const bool isUnsigned = spelling.find("unsigned") != std::string::npos ||
                          spelling.find("size_t") != std::string::npos ||
                          spelling.find("uint") != std::string::npos;
  if (isUnsigned && value < 0)
    return false;
  if (spelling.find("char") != std::string::npos || spelling == "bool")
    return false;
  if (spelling.find("short") != std::string::npos)
    return isUnsigned ? value <= 65535 : value >= -32768 && value <= 32767;
  if (spelling.find("long") != std::string::npos || spelling.find("64") != std::string::npos ||
      spelling.find("size_t") != std::string::npos)
    return true;
  return isUnsigned ? value <= 4294967295LL : value >= INT32_MIN && value <= INT32_MAX;
}
} // namespace

std::optional<int64_t> knownInteger(const ExprRef &e) {
  if (!e)
    return std::nullopt;
  if (e->kind == ExprKind::IntLit)
    return e->intValue;
  if (e->kind == ExprKind::VarRef && e->var->hasKnownValue)
    return e->var->knownValue;
  if (e->kind == ExprKind::Cast && e->type.kind == ScalarType::Integer &&
      e->operands[0]->type.kind == ScalarType::Integer)
    if (std::optional<int64_t> inner = knownInteger(e->operands[0]);
        inner && integerTypeHolds(e->type.spelling, *inner))
      return inner;
  return std::nullopt;
}

std::optional<int64_t> knownTripCount(const StmtRef &s) {
  const ExprRef rhs = countedBound(s);
  if (!rhs)
    return std::nullopt; // a != bound, or a loop that would not end
  std::optional<int64_t> start = knownInteger(s->init->value), end = knownInteger(rhs);
  if (!start || !end)
    return std::nullopt;
  BinaryOp op = s->value->binaryOp;
  const int64_t bound = *end;
  int64_t first = *start, by = s->counted.step;
  bool upwards = op == BinaryOp::Lt || op == BinaryOp::Le;
  bool runs = op == BinaryOp::Lt   ? first < bound
              : op == BinaryOp::Le ? first <= bound
              : op == BinaryOp::Gt ? first > bound
                                   : first >= bound;
  if (!runs)
    return 0;
  int64_t span = upwards ? bound - first : first - bound; // >= 0 here
  int64_t stride = upwards ? by : -by;
  bool inclusive = op == BinaryOp::Le || op == BinaryOp::Ge;
  return inclusive ? span / stride + 1 : (span + stride - 1) / stride;
}

ExprRef withoutCasts(ExprRef e) {
  while (e && e->kind == ExprKind::Cast)
    e = e->operands[0];
  return e;
}

namespace {

/// The one value `v` holds in `body` after it is set: a parameter that
/// nothing assigns, or a local set once, at the top level of `body` (by its
/// declaration or, once declarations are hoisted, by a plain assignment),
/// that no call is handed. Null otherwise.
ExprRef onlyValue(const StmtRef &body, Var *v) {
  std::set<const StmtNode *> topLevel;
  for (const StmtRef &c : body->stmts)
    topLevel.insert(c.get());
  ExprRef value = v->origin == Var::Param ? varRef(v) : nullptr;
  int sets = v->origin == Var::Param ? 1 : 0;
  bool other = false;
  forEachStmt(body, [&](const StmtRef &n) {
    bool writes = (n->kind == StmtKind::Decl && n->var == v && n->value) ||
                  (n->kind == StmtKind::Assign && n->lhs->var == v);
    if (writes) {
      ++sets;
      value = n->value;
      other |= !topLevel.count(n.get()) ||
               (n->kind == StmtKind::Assign && n->assignOp != AssignOp::Set);
    }
    for (const ExprRef &e : ownExprs(n))
      forEachExpr(e, [&](const ExprRef &x) {
        if (x->kind == ExprKind::Address && x->var == v)
          other = true;
      });
  });
  return other || sets != 1 ? nullptr : value;
}

/// Whether the condition `i < bound` keeps `i` below the size of the
/// std::vector local `a` throughout `f`: `bound` is its size, or what it
/// was sized with, and neither changes.
bool boundIsVectorSize(const Function &f, const Var *a, const ExprRef &bound) {
  if (!a->sizeVar)
    return false;
  ExprRef size = onlyValue(f.body, a->sizeVar);
  ExprRef b = withoutCasts(bound);
  if (!size || !b || b->kind != ExprKind::VarRef)
    return false;
  if (b->var == a->sizeVar)
    return true;
  ExprRef sizedWith = withoutCasts(size);
  return sizedWith->kind == ExprKind::VarRef && sizedWith->var == b->var &&
         onlyValue(f.body, b->var) != nullptr;
}
} // namespace

bool writesEveryElement(const Function &f, const StmtRef &loop, const StmtNode *assign) {
  if (assign->kind != StmtKind::Assign || !loop->counted.index)
    return false;
  const ExprRef &lhs = assign->lhs;
  Var *a = lhs->var;
  if (lhs->operands.size() != 1 || lhs->operands[0]->kind != ExprKind::VarRef ||
      lhs->operands[0]->var != loop->counted.index)
    return false;
  if (a->isArray()) {
    std::optional<int64_t> trips = knownTripCount(loop);
    return a->dims.size() == 1 && trips && *trips == a->elementCount() &&
           (loop->counted.step == 1 || loop->counted.step == -1);
  }
  // A std::vector local: for (i = 0; i < size; ++i).
  const ExprRef &start = loop->init ? loop->init->value : nullptr;
  const ExprRef &cond = loop->value;
  return a->ownsStorage && loop->counted.step == 1 && start && start->kind == ExprKind::IntLit &&
         start->intValue == 0 && cond && cond->kind == ExprKind::Binary &&
         cond->binaryOp == BinaryOp::Lt && withoutCasts(cond->operands[0])->kind == ExprKind::VarRef &&
         withoutCasts(cond->operands[0])->var == loop->counted.index &&
         boundIsVectorSize(f, a, cond->operands[1]);
}

} // namespace cgp
