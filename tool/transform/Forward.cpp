//===- Forward.cpp - forward mode (CGP_JVP) on the IR ---------------------===//
//
// Works on prepared functions (see Prepare.h), like reverse mode, and uses
// the same activity analysis: a variable gets a tangent only where it both
// depends on a parameter with a tangent and influences the result or an
// output buffer; every other tangent is zero and is folded away. The
// tangent of an assignment is computed before the assignment itself, so it
// reads the operands' old values even when the target is among them.
//
//===----------------------------------------------------------------------===//
#include "transform/Forward.h"

#include "analysis/Activity.h"
#include "ir/MathTable.h"
#include "transform/Declarations.h"
#include "transform/Derivatives.h"
#include "transform/Prepare.h"

#include <functional>
#include <map>
#include <tuple>

namespace cgp {
namespace {

// Sums and products where null stands for an exact zero tangent.
ExprRef plus(const ExprRef &a, const ExprRef &b) { return !a ? b : !b ? a : add(a, b); }
ExprRef minus(const ExprRef &a, const ExprRef &b) { return !b ? a : !a ? neg(b) : sub(a, b); }
ExprRef times(const ExprRef &a, const ExprRef &b) { return a && b ? mul(a, b) : nullptr; }

/// A call of a helper with tangents: which arguments carry one, and
/// whether the caller wants the tangent of the result.
struct TangentKey {
  const Function *callee = nullptr;
  std::vector<bool> active;
  bool resultActive = false;
  bool operator<(const TangentKey &o) const {
    return std::tie(callee, active, resultActive) <
           std::tie(o.callee, o.active, o.resultActive);
  }
};

/// The tangent code of one function body.
class TangentBuilder {
public:
  using VariantFn = std::function<Function *(const TangentKey &)>;
  using FailFn = std::function<void(const SourcePos &, const std::string &)>;

  TangentBuilder(Module &m, const ActivityResult &act, Summaries &sums,
                 std::map<const Var *, Var *> &tangents, VariantFn variants, FailFn fail)
      : m_(m), act_(act), sums_(sums), tangents_(tangents), variants_(std::move(variants)),
        fail_(std::move(fail)) {}

  StmtRef stmt(const StmtRef &s);
  /// The tangent of `e`, or null where it is exactly zero. Temporaries the
  /// expression needs go to `pre`.
  ExprRef dot(const ExprRef &e, std::vector<StmtRef> &pre);

  /// The tangent of an lvalue: t_x for x, t_A[i] for A[i]; null without one.
  ExprRef tangentOf(const ExprRef &lvalue) const {
    auto it = tangents_.find(lvalue->var);
    if (!lvalue->var->isFloating() || it == tangents_.end())
      return nullptr;
    if (lvalue->kind == ExprKind::VarRef)
      return varRef(it->second);
    return index(it->second, lvalue->operands);
  }

private:
  StmtRef assignStmt(const StmtRef &s);
  StmtRef callStmt(const StmtRef &s);
  StmtRef customCall(const StmtRef &s, const ExprRef &lhsTangent);
  class MathContext; // how a math function's derivative rule reads values here
  ExprRef dotMath(const ExprRef &e, std::vector<StmtRef> &pre);
  ExprRef stable(const ExprRef &e, std::vector<StmtRef> &pre, const std::string &name);
  /// `t != 0 ? t * derivative : 0`: where the derivative can be infinite
  /// at a finite value (sqrt at 0), a zero tangent stays zero.
  ExprRef guarded(const ExprRef &t, const ExprRef &derivative, std::vector<StmtRef> &pre);
  Var *temp(const std::string &name, const ScalarType &t, bool isConst = true) {
    Var *v = makeVar(m_, name, t, Var::Scalar, Var::Temp);
    v->isConst = isConst;
    return v;
  }

  Module &m_;
  const ActivityResult &act_;
  Summaries &sums_;
  std::map<const Var *, Var *> &tangents_;
  VariantFn variants_;
  FailFn fail_;
  SourcePos at_; // the statement being transformed, for messages
  /// Values put into temporaries for the assignment being transformed.
  std::vector<std::pair<ExprRef, Var *>> stabled_;
};

StmtRef TangentBuilder::stmt(const StmtRef &s) {
  if (!s)
    return s;
  at_ = s->pos.file.empty() ? at_ : s->pos;
  switch (s->kind) {
  case StmtKind::Block: {
    std::vector<StmtRef> out;
    for (const StmtRef &c : s->stmts)
      appendFlat(out, stmt(c));
    return block(out);
  }
  case StmtKind::Assign:
  case StmtKind::Eval:
    if (isCallStmt(s))
      return callStmt(s);
    return s->kind == StmtKind::Assign ? assignStmt(s) : s;
  case StmtKind::For: {
    // A `for` header holds one statement: an init or step whose tangent
    // makes it two moves before the loop or to the end of the body.
    auto copy = std::make_shared<StmtNode>(*s);
    StmtRef init = stmt(s->init), step = stmt(s->step);
    copy->body = stmt(s->body);
    std::vector<StmtRef> out;
    copy->init = init;
    if (init && init->kind == StmtKind::Block) {
      out.push_back(init);
      copy->init = nullptr;
      copy->declaresIndex = false;
    }
    copy->step = step;
    if (step && step->kind == StmtKind::Block) {
      copy->body = block({copy->body, step});
      copy->step = nullptr;
    }
    if (out.empty())
      return copy;
    out.push_back(copy);
    return block(out);
  }
  case StmtKind::If:
  case StmtKind::While:
  case StmtKind::DoWhile:
  case StmtKind::Switch: {
    auto copy = std::make_shared<StmtNode>(*s);
    copy->init = stmt(s->init);
    copy->step = stmt(s->step);
    copy->body = stmt(s->body);
    copy->elseBody = stmt(s->elseBody);
    for (SwitchCase &c : copy->cases)
      for (StmtRef &b : c.body)
        b = stmt(b);
    return copy;
  }
  default:
    return s;
  }
}

StmtRef TangentBuilder::assignStmt(const StmtRef &s) {
  ExprRef t = tangentOf(s->lhs);
  if (!t)
    return s;
  std::vector<StmtRef> out;
  ExprRef zero = constant(0, s->lhs->type);
  switch (s->assignOp) {
  case AssignOp::Add:
  case AssignOp::Sub: {
    ExprRef d = dot(s->value, out);
    if (!d)
      return s;
    out.push_back(assign(t, d, s->assignOp));
    out.back()->atomicity = s->atomicity; // CUDA: added at once by other threads too
    break;
  }
  default: {
    stabled_.clear();
    ExprRef d = dot(storedValue(s), out);
    out.push_back(assign(t, d ? d : zero));
    // `y = tanh(a)`: the tangent needed tanh(a) in a temporary; y takes it
    // from there instead of calling tanh again.
    if (s->assignOp == AssignOp::Set)
      for (const auto &[value, var] : stabled_)
        if (sameExpr(value, s->value)) {
          StmtRef reuse = assign(s->lhs, varRef(var));
          reuse->pos = s->pos;
          out.push_back(reuse);
          return block(out);
        }
    break;
  }
  }
  out.push_back(s);
  return block(out);
}

StmtRef TangentBuilder::callStmt(const StmtRef &s) {
  const ExprRef &c = s->value;
  bool isAssign = s->kind == StmtKind::Assign;
  ExprRef lhsTangent = isAssign ? tangentOf(s->lhs) : nullptr;
  CallActivity ca = callActivity(s, c, act_.at(s), sums_);
  if (!ca.active) {
    if (!lhsTangent)
      return s;
    return block({s, assign(lhsTangent, constant(0, s->lhs->type))});
  }
  if (!c->callee->body)
    return customCall(s, lhsTangent);

  TangentKey key;
  key.callee = c->callee;
  key.active = ca.argActive;
  key.resultActive = ca.resultActive && lhsTangent;
  Function *variant = variants_(key);
  if (!variant)
    return s;

  std::vector<StmtRef> out;
  std::vector<ExprRef> args = c->operands;
  for (size_t i = 0; i < c->operands.size(); ++i) {
    if (!key.active[i])
      continue;
    const ExprRef &arg = c->operands[i];
    if (arg->kind == ExprKind::Address) {
      auto it = tangents_.find(arg->var);
      if (it == tangents_.end()) {
        fail_(at_, "internal error: '" + arg->var->name + "' has no tangent");
        return s;
      }
      args.push_back(address(it->second, arg->operands[0]));
    } else {
      ExprRef d = dot(arg, out);
      args.push_back(d ? d : constant(0, c->callee->params[i]->elem));
    }
  }
  Var *result = nullptr;
  if (key.resultActive) {
    result = temp("t_" + c->callee->name, c->type, false);
    out.push_back(decl(result, constant(0, c->type)));
    args.push_back(address(result, intLit(0)));
  }
  ExprRef callVariant = opaque(variant->qualifiedName(), c->type, args);
  StmtRef primal = isAssign ? assign(s->lhs, callVariant) : eval(callVariant);
  primal->pos = s->pos;
  out.push_back(primal);
  if (lhsTangent)
    out.push_back(assign(lhsTangent, result ? varRef(result) : constant(0, s->lhs->type)));
  return block(out);
}

/// A function with a custom pullback and no body: the pullback, seeded
/// with 1, gives the partial derivatives, whose dot product with the
/// arguments' tangents is the result's tangent. Only for scalar parameters.
StmtRef TangentBuilder::customCall(const StmtRef &s, const ExprRef &lhsTangent) {
  const ExprRef &c = s->value;
  const Function &g = *c->callee;
  if (g.linearArg >= 0) { // linear in one argument: the function of its tangent
    if (!lhsTangent)
      return s;
    std::vector<StmtRef> out;
    std::vector<ExprRef> args = c->operands;
    ExprRef t = dot(args[g.linearArg], out);
    args[g.linearArg] = t ? t : constant(0, args[g.linearArg]->type);
    Var *tv = temp("t_" + g.name.substr(g.name.find_first_not_of('_')), c->type);
    out.push_back(decl(tv, call(c->callee, c->type, args)));
    out.push_back(s);
    out.push_back(assign(lhsTangent, varRef(tv)));
    return block(out);
  }
  for (const Var *p : g.params)
    if (p->isMemory()) {
      fail_(at_, "forward mode cannot differentiate the call of '" + g.name +
                     "': it has no visible body, and its pullback (CGP_PULLBACK_OF) takes the "
                     "pointer '" + p->name + "', whose extent cgp-ad does not know");
      return s;
    }
  if (!lhsTangent)
    return s; // no tangent wanted: g only reads scalars and writes nothing
  std::vector<StmtRef> out;
  std::vector<ExprRef> args = c->operands;
  args.push_back(constant(1, g.returnType));
  ExprRef tangent;
  for (size_t i = 0; i < c->operands.size(); ++i) {
    if (!g.params[i]->isFloating())
      continue;
    Var *partial = temp("d_" + g.params[i]->name, g.params[i]->elem, false);
    out.push_back(decl(partial, constant(0, partial->elem)));
    args.push_back(address(partial, intLit(0)));
    tangent = plus(tangent, times(dot(c->operands[i], out), varRef(partial)));
  }
  out.push_back(comment("partial derivatives of '" + g.name + "' from its pullback"));
  out.push_back(eval(opaque(g.pullback, ScalarType::voidType(), args)));
  Var *t = temp("t_" + g.name, c->type);
  out.push_back(decl(t, tangent ? cast(c->type, tangent, true) : constant(0, c->type)));
  out.push_back(s);
  out.push_back(assign(lhsTangent, varRef(t)));
  return block(out);
}

ExprRef TangentBuilder::stable(const ExprRef &e, std::vector<StmtRef> &pre,
                               const std::string &name) {
  if (isCheapToRepeat(e))
    return e;
  Var *t = temp(name, e->type);
  pre.push_back(decl(t, e));
  stabled_.push_back({e, t});
  return varRef(t);
}

ExprRef TangentBuilder::guarded(const ExprRef &t, const ExprRef &derivative,
                                std::vector<StmtRef> &pre) {
  if (!t)
    return nullptr;
  if (t->kind == ExprKind::FloatLit)
    return mul(t, derivative);
  ExprRef st = stable(t, pre, "t_arg");
  return select(binary(BinaryOp::Ne, st, constant(0, st->type)), mul(st, derivative),
                constant(0, st->type));
}

ExprRef TangentBuilder::dot(const ExprRef &e, std::vector<StmtRef> &pre) {
  switch (e->kind) {
  case ExprKind::VarRef:
  case ExprKind::Index:
    return tangentOf(e);
  case ExprKind::Unary:
    if (e->unaryOp == UnaryOp::Neg) {
      ExprRef d = dot(e->operands[0], pre);
      return d ? neg(d) : nullptr;
    }
    return e->unaryOp == UnaryOp::Plus ? dot(e->operands[0], pre) : nullptr;
  case ExprKind::Cast: {
    if (!e->type.isFloating() || !e->operands[0]->type.isFloating())
      return nullptr; // to or from an integer: no derivative
    ExprRef d = dot(e->operands[0], pre);
    return d ? cast(e->type, d, e->implicitCast) : nullptr;
  }
  case ExprKind::Binary: {
    if (!e->type.isFloating())
      return nullptr; // predicates and integer arithmetic
    const ExprRef &a = e->operands[0], &b = e->operands[1];
    ExprRef da = dot(a, pre), db = dot(b, pre);
    switch (e->binaryOp) {
    case BinaryOp::Add:
      return plus(da, db);
    case BinaryOp::Sub:
      return minus(da, db);
    case BinaryOp::Mul:
      return plus(times(da, b), times(a, db));
    case BinaryOp::Div: // (da b - a db) / b^2, or da / b
      if (!db)
        return da ? div(da, b) : nullptr;
      return div(minus(times(da, b), mul(a, db)), mul(b, b));
    default:
      return nullptr;
    }
  }
  case ExprKind::Select: {
    std::vector<StmtRef> preA, preB;
    ExprRef da = dot(e->operands[1], preA), db = dot(e->operands[2], preB);
    if (!da && !db)
      return nullptr;
    ExprRef zero = constant(0, e->type);
    if (preA.empty() && preB.empty())
      return select(e->operands[0], da ? da : zero, db ? db : zero);
    // Temporaries of an arm are computed only when that arm is taken.
    Var *t = temp("t_choice", e->type, false);
    pre.push_back(decl(t, zero));
    preA.push_back(assign(varRef(t), da ? da : zero));
    preB.push_back(assign(varRef(t), db ? db : zero));
    pre.push_back(ifStmt(e->operands[0], block(preA), block(preB)));
    return varRef(t);
  }
  case ExprKind::Math:
    return dotMath(e, pre);
  case ExprKind::Opaque:
    for (const ExprRef &op : e->operands)
      if (op->type.isFloating() && dot(op, pre)) {
        std::string name = e->calleeName.substr(e->calleeName.rfind("::", 0) == 0 ? 2 : 0);
        fail_(at_, "the call of '" + name +
                       "' has no visible body and no derivative, and its arguments carry "
                       "derivatives");
        break;
      }
    return nullptr;
  default:
    return nullptr;
  }
}

/// Forward mode's answers to a derivative rule. The tangent is computed
/// before the call, so the call's value goes into a temporary (named after
/// the function, `exp_value`) that the primal assignment then reads
/// (assignStmt); every other value a rule needs twice gets one too.
class TangentBuilder::MathContext final : public DerivativeContext {
public:
  MathContext(TangentBuilder &builder, const ExprRef &call, std::vector<StmtRef> &pre)
      : DerivativeContext(call), builder_(builder), pre_(pre) {}

  ExprRef value() override { return shared(call_, mathValueName(call_->mathFn)); }
  ExprRef call(MathFn fn, std::vector<ExprRef> args) override {
    return math(fn, type(), std::move(args));
  }
  ExprRef temporary(const ExprRef &e, const std::string &name) override {
    return builder_.stable(e, pre_, name);
  }
  ExprRef shared(const ExprRef &e, const std::string &name) override {
    auto it = shared_.find(name);
    if (it == shared_.end())
      it = shared_.emplace(name, builder_.stable(e, pre_, name)).first;
    return it->second;
  }

private:
  TangentBuilder &builder_;
  std::vector<StmtRef> &pre_;
  std::map<std::string, ExprRef> shared_;
};

ExprRef TangentBuilder::dotMath(const ExprRef &e, std::vector<StmtRef> &pre) {
  const MathFunction &f = mathFunction(e->mathFn);
  std::vector<ExprRef> tangents(e->operands.size());
  bool any = false;
  for (size_t i = 0; i < tangents.size(); ++i) {
    if (f.differentiable(i))
      tangents[i] = dot(e->operands[i], pre);
    any |= tangents[i] != nullptr;
  }
  if (!any)
    return nullptr;
  MathContext context(*this, e, pre);
  // Where the derivative can be infinite at a finite value (sqrt at 0), a
  // zero tangent stays zero.
  bool guard = f.singular == Singularity::WhereValueFinite;
  auto sum = [&](const std::vector<PartialRule> &rules) {
    ExprRef total;
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!tangents[i] || !rules[i])
        continue;
      Partial p = rules[i](context);
      if (!p.isZero())
        total = plus(total, guard ? guarded(tangents[i], p.factor(), pre) : p.times(tangents[i]));
    }
    return total;
  };
  if (!f.condition)
    return sum(f.partials);
  // Piecewise: the tangent of the piece the value is on.
  ExprRef inside = sum(f.partials), outside = sum(f.otherwise);
  if (!inside && !outside)
    return nullptr;
  ExprRef zero = constant(0, e->type);
  return select(f.condition(context), inside ? inside : zero, outside ? outside : zero);
}

} // namespace

class ForwardMode::Impl {
public:
  Impl(Module &m, std::vector<TransformError> &errors) : module_(m), errors_(errors) {}

  bool kernel(Function &k, GeneratedCode &out) {
    out_ = &out;
    prepareFunction(k, module_); // sets k.result
    std::vector<bool> active;
    for (Var *p : k.params)
      active.push_back(std::find(k.tangents.begin(), k.tangents.end(), p) != k.tangents.end());
    size_t before = errors_.size();
    Function *f = generate(k, active, k.result && k.result->isFloating(), /*entry=*/true);
    if (!f || errors_.size() != before)
      return false;
    out.functions.push_back(f);
    out.tangents.push_back({f, &k});
    return true;
  }

private:
  Function *variant(const TangentKey &key) {
    auto known = variants_.find(key);
    if (known != variants_.end())
      return known->second;
    Function *f = generate(*const_cast<Function *>(key.callee), key.active, key.resultActive,
                           /*entry=*/false, &key);
    if (f)
      out_->functions.push_back(f);
    return variants_[key] = f;
  }

  void fail(const SourcePos &pos, const std::string &message) {
    errors_.push_back(TransformError{pos, message});
  }

  /// The tangent function of `f`: f_jvp for a kernel (`entry`), returning
  /// the tangent of f's value; g_tan for a helper, returning g's value and
  /// the tangent of it through `t_ret` when `resultActive`.
  /// A helper's variant is known by `key` before its body is built: a
  /// recursive call with the same tangents calls it.
  Function *generate(Function &f, const std::vector<bool> &active, bool resultActive,
                     bool entry, const TangentKey *key = nullptr);

  Module &module_;
  std::vector<TransformError> &errors_;
  Summaries summaries_;
  std::map<TangentKey, Function *> variants_;
  // Counted by scoped name: the instantiations of one template (f<3>,
  // f<4>) may have the same parameters, so their variants need numbers.
  std::map<std::string, int> variantCount_;
  GeneratedCode *out_ = nullptr;
};

Function *ForwardMode::Impl::generate(Function &f, const std::vector<bool> &active,
                                      bool resultActive, bool entry, const TangentKey *key) {
  prepareFunction(f, module_);
  ActivitySeeds seeds;
  for (size_t i = 0; i < f.params.size(); ++i) {
    Var *p = f.params[i];
    if (!active[i])
      continue;
    seeds.varied.insert(p);
    if (p->isMemory() && !p->isConst)
      seeds.useful.insert(p); // an output buffer: its tangent goes out
  }
  if (resultActive)
    seeds.useful.insert(f.result);
  ActivityResult act = analyzeActivity(f, seeds, summaries_);

  Function *g = module_.newFunction();
  // Helpers' variants are g_tan, g_tan_2...: g_jvp is the entry point of a
  // kernel g, which a kernel may also call as a helper.
  int n = entry ? 1 : ++variantCount_[f.scopedName()];
  g->name = f.name + (entry ? "_jvp" : "_tan") + (n == 1 ? "" : "_" + std::to_string(n));
  g->namespaces = f.namespaces;
  g->pos = f.pos;
  g->params = f.params;
  // CUDA: a helper's tangent runs where the helper does; a `__global__`
  // kernel's is a `__global__` kernel too.
  g->cuda = f.cuda;
  if (entry) {
    g->templateArgs = f.templateArgs;
    g->templateKernel = f.templateKernel;
    g->returnType = f.returnType;
    g->isStatic = f.isStatic;
    g->restrictPointers = true;
  } else {
    g->returnType = f.returnType;
    g->isStatic = g->isInline = true;
  }

  std::map<const Var *, Var *> tangents;
  for (size_t i = 0; i < f.params.size(); ++i) {
    Var *p = f.params[i];
    if (!active[i])
      continue;
    Var *t = makeVar(module_, "t_" + p->name, p->elem, p->isMemory() ? Var::Pointer : Var::Scalar,
                     Var::Param);
    t->isConst = p->isMemory() && p->isConst;
    g->params.push_back(t);
    tangents[p] = t;
  }
  Var *tRet = nullptr;
  if (resultActive && !entry) {
    tRet = makeVar(module_, "t_ret", f.returnType, Var::Pointer, Var::Param);
    g->params.push_back(tRet);
  }
  if (key)
    variants_[*key] = g;
  std::vector<StmtRef> tangentDecls;
  for (Var *v : act.withAdjoint) {
    if (tangents.count(v) || v->origin == Var::Global || !v->isFloating())
      continue;
    if (v->origin == Var::Param && v->isMemory()) {
      fail(f.pos, entry ? "parameter '" + v->name + "' of '" + f.name +
                              "' carries derivatives, but is not named in CGP_JVP; name it so "
                              "that its tangent has a t_" + v->name + " buffer"
                        : "internal error: pointer parameter '" + v->name + "' of helper '" +
                              f.name + "' needs a tangent its caller does not pass");
      return nullptr;
    }
    Var *t = v->ownsStorage // a std::vector local: its tangent is sized with it
                 ? makeShadow(module_, "t_" + v->name, v)
                 : makeVar(module_, "t_" + v->name, v->elem, v->isArray() ? Var::Array : Var::Scalar,
                           Var::Temp, v->dims);
    t->blockShared = v->blockShared; // written wherever its array is: no zeroing
    tangents[v] = t;
    tangentDecls.push_back(zeroDecl(t));
  }

  TangentBuilder builder(
      module_, act, summaries_, tangents,
      [this](const TangentKey &key) { return variant(key); },
      [this](const SourcePos &pos, const std::string &m) { fail(pos, m); });
  StmtRef body = builder.stmt(f.body);
  std::vector<StmtRef> code = body->stmts;
  if (f.result) {
    ExprRef tResult = f.result->isFloating() ? builder.tangentOf(varRef(f.result)) : nullptr;
    if (entry) {
      // f's value is computed (conditions may need it) but not returned.
      code.push_back(eval(cast(ScalarType::voidType(), varRef(f.result))));
      code.push_back(returnStmt(f.result->isFloating()
                                    ? (tResult ? tResult : constant(0, f.returnType))
                                    : intLit(0, f.returnType)));
    } else {
      if (tRet)
        code.push_back(assign(index(tRet, {intLit(0)}),
                              tResult ? tResult : constant(0, f.returnType)));
      code.push_back(returnStmt(varRef(f.result)));
    }
  }
  std::string about = entry ? "directional derivative of '" + f.name + "' (forward mode)"
                            : "tangents of '" + f.name + "'";
  std::vector<StmtRef> stmts{comment(about + ": t_<v> holds the derivative of <v> along the "
                                             "tangents of the parameters")};
  dropUnreadLocals({&code});
  appendAll(stmts, declareUsed(f.locals, code));
  std::vector<StmtRef> keptTangents = keepUsed(tangentDecls, code);
  appendAll(stmts, keptTangents);
  appendAll(stmts, code);
  g->body = block(stmts);
  std::set<const Var *> declared;
  for (const StmtRef &d : keptTangents)
    declared.insert(d->var);
  refreshShadows(g->body, [&](const Var *v) -> Var * {
    auto t = tangents.find(v);
    return t != tangents.end() && declared.count(t->second) ? t->second : nullptr;
  });
  markUnusedParams(*g);
  return g;
}

ForwardMode::ForwardMode(Module &module) : impl_(std::make_unique<Impl>(module, errors_)) {}
ForwardMode::~ForwardMode() = default;

bool ForwardMode::differentiate(Function &kernel, GeneratedCode &out) {
  return impl_->kernel(kernel, out);
}

} // namespace cgp
