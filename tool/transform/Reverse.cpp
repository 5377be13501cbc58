//===- Reverse.cpp - reverse mode on the IR -------------------------------===//
//
// Puts the pieces together: prepares each function once (control
// normalisation, calls as statements, counted loops, hoisted locals), runs
// activity, decides where each adjoint lives (the caller's d_ buffers, or
// zeroed locals), builds the sweeps, and wraps them into the generated
// functions. Helper variants are made on demand, callees first.
//
//===----------------------------------------------------------------------===//
#include "transform/Reverse.h"

#include "analysis/Activity.h"
#include "analysis/ThreadIndices.h"
#include "transform/Declarations.h"
#include "transform/Derivatives.h"
#include "transform/DeviceAdjoints.h"
#include "transform/EarlyPushes.h"
#include "transform/ReuseMath.h"
#include "transform/Prepare.h"
#include "transform/Sweeps.h"
#include "transform/TapeBound.h"

#include <algorithm>
#include <set>
#include <string>

namespace cgp {

namespace {

/// True if the statements push or pop (with `helpers`, or call a device
/// helper that takes the thread's tape, or name it in generated text).
bool usesTape(const std::vector<StmtRef> &stmts, bool helpers = false) {
  bool found = false;
  for (const StmtRef &s : stmts)
    forEachStmt(s, [&](const StmtRef &n) {
      if (n->kind == StmtKind::Push ||
          (helpers && n->kind == StmtKind::Raw && n->text.find("cgp_tape") != std::string::npos))
        found = true;
      for (const ExprRef &e : ownExprs(n))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->kind == ExprKind::TapePop ||
              (x->kind == ExprKind::Opaque && x->calleeName.rfind("cgp_tape.", 0) == 0) ||
              (helpers && x->callee && x->callee->tapeParam) ||
              (helpers && x->var && x->var->name.rfind("cgp_tape", 0) == 0))
            found = true;
        });
    });
  return found;
}

/// True if the statements keep values on the redo tape, themselves or in
/// the reverse sweeps of the helpers they call (`keepers`: the names of the
/// helpers' reverse sweeps that do).
bool usesRedo(const std::vector<StmtRef> &stmts, const std::set<std::string> &keepers) {
  bool found = false;
  for (const StmtRef &s : stmts)
    forEachStmt(s, [&](const StmtRef &n) {
      for (const ExprRef &e : ownExprs(n))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->kind == ExprKind::Opaque &&
              (x->calleeName == "cgp_redo.keep" || x->calleeName == "cgp_redo.keepElements" ||
               keepers.count(x->calleeName)))
            found = true;
        });
    });
  return found;
}

/// `cgp_tape.push(h);` for a scalar or a whole array.
StmtRef pushVar(Var *v) { return push(wholeVarRef(v)); }

/// `cgp_tape.pop(h);` for a scalar or a whole array (a std::vector local:
/// then its elements' pointer is set again).
StmtRef popVar(Var *v) {
  StmtRef pop = eval(opaque("cgp_tape.pop", ScalarType::voidType(), {wholeVarRef(v)}));
  return v->ownsStorage ? block({pop, refreshElements(v)}) : pop;
}

/// The declared adjoint of a std::vector local, whose elements' pointer is
/// set again with the local's (refreshShadows), or null.
std::function<Var *(const Var *)> declaredShadow(const AdjointMap &adj,
                                                 const std::vector<StmtRef> &decls) {
  std::set<const Var *> declared;
  for (const StmtRef &d : decls)
    if (d->kind == StmtKind::Decl)
      declared.insert(d->var);
  return [&adj, declared](const Var *v) -> Var * {
    return adj.has(v) && declared.count(adj.of(v)) ? adj.of(v) : nullptr;
  };
}

} // namespace

class ReverseMode::Impl {
public:
  Impl(Module &m, const PlanOptions &options, std::vector<TransformError> &errors,
       std::vector<TransformError> &warnings)
      : module_(m), options_(options), errors_(errors), warnings_(warnings) {}

  bool gradient(Function &kernel, GeneratedCode &out);

private:
  void fail(const SourcePos &pos, const std::string &message) {
    errors_.push_back(TransformError{pos, message});
  }

  /// Adjoint variables for everything in `act.withAdjoint` that `adj` does
  /// not already place. Returns false for a pointer without a buffer.
  bool placeAdjoints(const Function &f, const ActivityResult &act, AdjointMap &adj,
                     std::vector<StmtRef> &decls);

  const CallVariant *variant(const CallVariantKey &key);

  /// The `T* d_p` parameter that carries the adjoint of parameter `p` in
  /// and out. A pointer's adjoint is that buffer; a scalar's is a local
  /// that the epilogue adds into `*d_p`.
  Var *adjointParam(Var *p, AdjointMap &adj, std::vector<StmtRef> &decls,
                    std::vector<StmtRef> &epilogue) {
    Var *d = makeVar(module_, "d_" + p->name, p->elem, Var::Pointer, Var::Param);
    if (p->isPointer()) {
      adj.set(p, d);
      return d;
    }
    Var *local = makeVar(module_, "d_" + p->name + "_local", p->elem, Var::Scalar, Var::Temp);
    adj.set(p, local);
    decls.push_back(zeroDecl(local));
    epilogue.push_back(assign(index(d, {intLit(0)}), varRef(local), AssignOp::Add));
    return d;
  }

  SweepBuilder sweepBuilder(const Function &f, const ActivityResult &act, AdjointMap &adj) {
    return SweepBuilder(
        f, act, adj, summaries_, sweepOptions_,
        [this](const CallVariantKey &key) { return variant(key); },
        [this](const SourcePos &pos, const std::string &m) { fail(pos, m); },
        [this](const SourcePos &pos, const std::string &m) {
          warnings_.push_back(TransformError{pos, m});
        });
  }

  Module &module_;
  PlanOptions options_;
  /// options_, or for a CUDA kernel deviceOptions(options_).
  PlanOptions sweepOptions_;
  std::vector<TransformError> &errors_;
  std::vector<TransformError> &warnings_;
  Summaries summaries_;
  std::map<CallVariantKey, CallVariant> variants_;
  // Counted by scoped name: the instantiations of one template (f<3>,
  // f<4>) may have the same parameters, so their variants need numbers.
  std::map<std::string, int> variantCount_;
  /// The helpers' reverse sweeps that keep values on the redo tape (by the
  /// name calls print): a caller's gradient then replays it at its end.
  std::set<std::string> redoKeepers_;
  GeneratedCode *out_ = nullptr;
};

bool ReverseMode::Impl::placeAdjoints(const Function &f, const ActivityResult &act,
                                      AdjointMap &adj, std::vector<StmtRef> &decls) {
  for (Var *v : act.withAdjoint) {
    if (adj.has(v) || v->origin == Var::Global)
      continue;
    if (v->ownsStorage) { // a std::vector local: its adjoint is sized with it
      Var *d = makeShadow(module_, "d_" + v->name, v);
      adj.set(v, d);
      decls.push_back(zeroDecl(d));
      continue;
    }
    if (v->isPointer()) {
      fail(f.pos, f.isKernel
                      ? "parameter '" + v->name + "' of '" + f.name +
                            "' carries derivatives, but is not named in CGP_GRAD; name it so "
                            "that its adjoint has a d_" + v->name + " buffer"
                      : "internal error: pointer parameter '" + v->name + "' of helper '" +
                            f.name + "' needs an adjoint its caller does not pass");
      return false;
    }
    Var *d = makeVar(module_, "d_" + v->name, v->elem, v->isArray() ? Var::Array : Var::Scalar,
                     Var::Temp, v->dims);
    d->blockShared = v->blockShared;
    adj.set(v, d);
    decls.push_back(zeroDecl(d));
  }
  return true;
}

bool ReverseMode::Impl::gradient(Function &k, GeneratedCode &out) {
  out_ = &out;
  prepareFunction(k, module_);
  sweepOptions_ = k.onDevice() ? deviceOptions(options_) : options_;

  ActivitySeeds seeds;
  for (Var *w : k.wrt) {
    seeds.varied.insert(w);
    if (w->isPointer() && !w->isConst)
      seeds.useful.insert(w); // an in/out buffer: its d_ buffer holds a seed
  }
  if (k.result && k.result->isFloating())
    seeds.useful.insert(k.result);
  if (seeds.useful.empty())
    warnings_.push_back(TransformError{
        k.pos, "the gradient of '" + k.name + "' is always zero: it returns no floating-point "
               "value and no parameter named in CGP_GRAD is a buffer it writes; name its output "
               "buffers in CGP_GRAD"});
  ActivityResult act = analyzeActivity(k, seeds, summaries_);

  Function *g = module_.newFunction();
  g->name = k.name + "_grad";
  g->templateArgs = k.templateArgs;
  g->templateKernel = k.templateKernel;
  g->namespaces = k.namespaces;
  g->returnType = k.returnType;
  g->isStatic = k.isStatic;
  g->cuda = k.cuda;
  // Not inline even when the kernel is: callers in other files reach the
  // gradient through the generated header, so it needs one definition.
  g->isInline = false;
  g->restrictPointers = true;
  g->pos = k.pos;
  g->params = k.params;

  AdjointMap adj(module_);
  std::vector<StmtRef> adjointDecls, epilogue;
  // CUDA: a `__global__` kernel's buffers are global memory, shared by its
  // threads, and so is the d_ of a parameter by value, into which every
  // thread adds its share at the end. (A `__device__` kernel's d_ buffers
  // belong to its caller, who gives each thread its own or reduces them.)
  bool global = k.cuda == CudaSpace::Global;
  std::map<const Var *, const Var *> sharedAdjoints; // adjoint -> its primal
  for (Var *w : k.wrt) {
    Var *d = adjointParam(w, adj, adjointDecls, epilogue);
    g->params.push_back(d);
    if (global && !w->isPointer())
      sharedAdjoints[d] = w;
  }
  if (!placeAdjoints(k, act, adj, adjointDecls))
    return false;

  SweepBuilder sweeps = sweepBuilder(k, act, adj);
  if (global) {
    for (Var *p : k.params)
      if (p->isPointer()) {
        sweeps.sharedMemory.insert(p);
        if (adj.has(p))
          sharedAdjoints[adj.of(p)] = p;
      }
    for (Var *v : k.locals)
      if (v->blockShared) {
        sweeps.sharedMemory.insert(v); // a helper given it adds atomically
        if (adj.has(v))
          sharedAdjoints[adj.of(v)] = v;
      }
  }
  // The caller's buffers: what the reverse sweep restores there is logged
  // and put back at the end, so they hold what the kernel left in them.
  VarSet callerBuffers;
  for (Var *p : k.params)
    if (p->isPointer() && !p->isConst)
      callerBuffers.insert(p);
  if (!sweeps.build({}, callerBuffers))
    return false;
  sweeps.plan.function = k.name;
  sweeps.plan.device = k.onDevice();
  size_t planIndex = out.plans.size();
  out.plans.push_back(sweeps.plan);

  hoistPushes(sweeps.forward);
  hoistPushes(sweeps.reverse); // its checkpointed loops run iterations taped
  reuseMathValues(sweeps.reverse, module_);
  std::vector<StmtRef> rev;
  if (k.result && adj.has(k.result))
    rev.push_back(assign(varRef(adj.of(k.result)), floatLit(1, k.result->elem)));
  appendAll(rev, sweeps.reverse);
  {
    std::vector<StmtRef> end;
    if (k.result)
      end.push_back(returnStmt(varRef(k.result)));
    dropUnreadLocals({&sweeps.topDecls, &sweeps.forward, &rev, &epilogue, &end});
  }
  unsigned launchParts = kAllParts;
  LaunchLimits launchLimits;
  if (!sharedAdjoints.empty()) {
    std::vector<StmtRef> adds = rev;
    appendAll(adds, epilogue);
    std::set<const StmtNode *> atEnd; // every thread of the block gets there
    for (const StmtRef &e : epilogue)
      atEnd.insert(e.get());
    SharedAdjointChoices choices = chooseSharedAdjointAdds(adds, k, sharedAdjoints, true, atEnd);
    out.plans[planIndex].sharedAdjoints = choices.adds;
    out.plans[planIndex].launchParts = launchParts = choices.launchParts;
    out.plans[planIndex].launchLimits = launchLimits = choices.launchLimits;
  }
  std::vector<StmtRef> sweepsAndEnd{block(sweeps.forward), block(rev)};
  appendAll(sweepsAndEnd, epilogue);
  if (k.result)
    sweepsAndEnd.push_back(returnStmt(varRef(k.result)));
  std::vector<StmtRef> localDecls = declareUsed(k.locals, sweepsAndEnd);
  adjointDecls = keepUsed(adjointDecls, sweepsAndEnd);

  // Device code: each thread has its own tape, made here (include/cgp/device.h),
  // in an array of its local memory: as large as the most the forward sweep
  // tapes when TapeBound knows it, else the budget per thread, which the
  // loops that plan keep to (up to 4 KiB either way), else kLocalTapeBytes.
  bool device = k.onDevice();
  std::vector<StmtRef> body;
  if (launchParts != kAllParts || launchLimits.any()) {
    std::string limits;
    for (int64_t most : launchLimits.maxBlockDim)
      limits += ", " + std::to_string(most);
    body.push_back(comment("its plain += rely on each thread owning its elements, as in a launch "
                           "that varies only in " + describeParts(launchParts) +
                           (launchLimits.any() ? " with " + launchLimits.describe() : "")));
    body.push_back(raw("if (!cgp::dev::launchVariesOnlyIn(" + partsExpression(launchParts) +
                       ", \"" + k.name + "\"" + (launchLimits.any() ? limits : "") + "))"));
    body.push_back(raw("  return;"));
  }
  // A device gradient that tapes nothing (its conditions evaluated again,
  // its loads repeated) makes no tape.
  bool redo = usesRedo(sweeps.forward, redoKeepers_) || usesRedo(rev, redoKeepers_);
  bool tapeless = device && !redo && !usesTape(sweeps.topDecls, true) &&
                  !usesTape(sweeps.forward, true) && !usesTape(rev, true);
  if (tapeless) {
    // nothing to make
  } else if (device) {
    TapeBound bound = boundTape(sweeps.forward);
    const double kMostLocal = 4096;
    auto rounded = [](double b) {
      return std::to_string(std::max<long long>(16, (static_cast<long long>(b) + 15) / 16 * 16));
    };
    std::string bytes = "cgp::dev::kLocalTapeBytes";
    if (bound.known && bound.most <= kMostLocal)
      bytes = rounded(bound.most);
    else if (!bound.known && options_.memoryBudget >= 0 && options_.memoryBudget <= kMostLocal)
      bytes = rounded(static_cast<double>(options_.memoryBudget));
    body.push_back(raw("unsigned char cgp_tape_space[" + bytes + "];"));
    body.push_back(raw("cgp::dev::Tape cgp_tape(cgp_tape_space, sizeof cgp_tape_space);"));
  } else {
    body.push_back(raw("cgp::rt::Tape &cgp_tape = cgp::rt::Tape::current();"));
    // CGP_STATS's figures for this gradient (interface.md section 5).
    std::string statsName;
    for (const std::string &ns : k.namespaces)
      statsName += (ns.empty() ? "(anonymous)" : ns) + "::";
    statsName += k.name + "_grad";
    body.push_back(raw("static cgp::rt::GradientStats &cgp_stats = cgp::rt::gradientStats(\"" +
                       statsName + "\");"));
    body.push_back(raw("cgp::rt::countCall(cgp_stats);"));
  }
  appendAll(body, sweeps.topDecls);
  if (redo) {
    if (device) {
      body.push_back(raw("cgp::dev::Tape cgp_redo;"));
      body.push_back(raw("cgp_tape.attachRedo(cgp_redo);"));
    } else {
      body.push_back(raw("cgp::rt::Tape &cgp_redo = cgp::rt::Tape::redo();"));
    }
    body.push_back(raw("const std::size_t cgp_redo_mark = cgp_redo.bytes();"));
  }
  if (!localDecls.empty())
    body.push_back(comment("the kernel's locals, shared by both sweeps"));
  appendAll(body, localDecls);
  if (!adjointDecls.empty())
    body.push_back(comment("adjoints: d_<v> holds the derivative of the result with respect to <v>"));
  appendAll(body, adjointDecls);
  // A __shared__ adjoint: the block's threads zero it together, then wait.
  for (const StmtRef &d : adjointDecls)
    if (d->var->blockShared)
      body.push_back(eval(opaque("cgp::dev::zeroBlockShared", ScalarType::voidType(),
                                 {wholeVarRef(d->var)})));
  body.push_back(comment(tapeless ? "forward sweep: the kernel (it tapes nothing: what the "
                                    "reverse sweep reads stays at hand)"
                                  : "forward sweep: the kernel, recording on the tape what the "
                                    "reverse sweep needs"));
  body.push_back(block(sweeps.forward));
  if (!device)
    body.push_back(raw("cgp_tape.notePeak();"));
  body.push_back(comment("reverse sweep: adjoints, statement by statement, last to first"));
  body.push_back(block(rev));
  if (redo) {
    body.push_back(comment("put back what the reverse sweep restored in the caller's buffers"));
    body.push_back(raw("cgp_redo.replayTo(cgp_redo_mark);"));
  }
  appendAll(body, epilogue);
  if (!device)
    body.push_back(raw("cgp::rt::endCall(" + std::to_string(options_.memoryBudget) + ");"));
  if (k.result)
    body.push_back(returnStmt(varRef(k.result)));
  g->body = block({});
  g->body->stmts = body; // keep the sweep blocks as blocks (scopes)
  refreshShadows(g->body, declaredShadow(adj, adjointDecls));
  markUnusedParams(*g);

  out.functions.push_back(g);
  out.gradients.push_back({g, &k});
  return true;
}

const CallVariant *ReverseMode::Impl::variant(const CallVariantKey &key) {
  auto known = variants_.find(key);
  if (known != variants_.end())
    return &known->second;
  Function &h = *const_cast<Function *>(key.callee);
  prepareFunction(h, module_);

  ActivitySeeds seeds;
  VarSet keep, logged;
  for (size_t i = 0; i < h.params.size(); ++i) {
    Var *param = h.params[i];
    if (key.logs[i])
      logged.insert(param);
    if (key.active[i]) {
      seeds.varied.insert(param);
      if (param->isPointer())
        seeds.useful.insert(param);
    }
    if (key.keeps[i])
      keep.insert(param);
  }
  if (key.resultActive)
    seeds.useful.insert(h.result);
  ActivityResult act = analyzeActivity(h, seeds, summaries_);

  int n = ++variantCount_[h.scopedName()];
  std::string suffix = n == 1 ? "" : "_" + std::to_string(n);
  Function *fwd = module_.newFunction();
  fwd->name = h.name + "_fwd" + suffix;
  fwd->namespaces = h.namespaces;
  fwd->returnType = h.returnType;
  fwd->isStatic = fwd->isInline = true;
  fwd->pos = h.pos;
  fwd->params = h.params;
  Function *rev = module_.newFunction();
  rev->name = h.name + "_rev" + suffix;
  rev->namespaces = h.namespaces;
  rev->returnType = ScalarType::voidType();
  rev->isStatic = rev->isInline = true;
  rev->pos = h.pos;
  rev->params = h.params;
  if (key.device) {
    fwd->cuda = rev->cuda = CudaSpace::Device;
    fwd->tapeParam = rev->tapeParam = true;
  }

  AdjointMap adj(module_);
  std::vector<StmtRef> adjointDecls, epilogue, seed;
  if (key.resultActive) {
    Var *dret = makeVar(module_, "d_" + h.name, h.returnType, Var::Scalar, Var::Param);
    rev->params.push_back(dret);
    Var *local = makeVar(module_, "d_result", h.returnType, Var::Scalar, Var::Temp);
    adj.set(h.result, local);
    adjointDecls.push_back(zeroDecl(local));
    seed.push_back(assign(varRef(local), varRef(dret)));
  }
  for (size_t i = 0; i < h.params.size(); ++i)
    if (key.active[i])
      rev->params.push_back(adjointParam(h.params[i], adj, adjointDecls, epilogue));
  // Known before its sweeps are built: a recursive call of the helper, with
  // the same derivatives, calls this pair.
  variants_[key] = CallVariant{fwd, rev};
  auto failed = [&] {
    variants_.erase(key);
    return nullptr;
  };
  if (!placeAdjoints(h, act, adj, adjointDecls))
    return failed();

  SweepBuilder sweeps = sweepBuilder(h, act, adj);
  std::map<const Var *, const Var *> sharedAdjoints; // adjoint -> its primal
  for (size_t i = 0; i < h.params.size() && i < key.shared.size(); ++i)
    if (key.shared[i]) {
      sweeps.sharedMemory.insert(h.params[i]);
      if (adj.has(h.params[i]))
        sharedAdjoints[adj.of(h.params[i])] = h.params[i];
    }
  if (!sweeps.build(keep, logged))
    return failed();
  sweeps.plan.function = h.name + " (helper, as " + fwd->name + "/" + rev->name + ")";
  sweeps.plan.device = key.device;
  size_t planIndex = out_->plans.size();
  out_->plans.push_back(sweeps.plan);

  // What the reverse sweep reads of the helper's own variables at its start
  // must survive the helper's return: pushed at exit, popped at entry.
  // A parameter the helper never assigns holds at exit what the caller
  // passes to the pullback: it needs no push.
  std::set<const Var *> assigned;
  forEachStmt(h.body, [&](const StmtRef &s) {
    if (s->kind == StmtKind::Assign)
      assigned.insert(s->lhs->var);
  });
  std::vector<Var *> atExit;
  for (Var *v : sweeps.tbr.neededAtExit)
    if (v->origin != Var::Global && !v->isPointer() &&
        !(v->origin == Var::Param && !assigned.count(v)))
      atExit.push_back(v);
  // A std::vector local that the reverse sweep uses (or whose adjoint it
  // uses, sized with it) goes whole: its elements and its size.
  std::set<const Var *> usedInReverse = mentioned(sweeps.reverse);
  for (Var *v : h.locals)
    if (v->ownsStorage && (usedInReverse.count(v) || (adj.has(v) && usedInReverse.count(adj.of(v)))))
      atExit.push_back(v);

  // Floating-point scalars go first, the one written last first: the
  // pushes gather after the last statement that touches the tape
  // (hoistPushes below cannot move them above it), and a value that
  // statement (a loop) computes is then pushed at once, not kept live across
  // the other pushes' calls for room; x86-64 keeps no floating-point register
  // across a call, so that would keep it in memory through the loop. Integers
  // have registers that calls keep; arrays go last (a push of memory passes
  // no write through a pointer, so it stops early and would hold the others
  // back).
  std::map<const Var *, size_t> lastWrite;
  for (size_t k = 0; k < sweeps.forward.size(); ++k) {
    std::set<const Var *> written;
    collectWrittenVars(sweeps.forward[k], written, /*opaqueCalls=*/true);
    for (const Var *v : written)
      lastWrite[v] = k;
  }
  auto pushClass = [](const Var *v) {
    if (v->isArray() || v->ownsStorage)
      return 2;
    return v->elem.isFloating() ? 0 : 1;
  };
  std::stable_sort(atExit.begin(), atExit.end(), [&](Var *a, Var *b) {
    if (pushClass(a) != pushClass(b))
      return pushClass(a) < pushClass(b);
    return lastWrite[a] > lastWrite[b];
  });

  std::string activity;
  for (size_t i = 0; i < h.params.size(); ++i)
    if (key.active[i])
      activity += (activity.empty() ? "" : ", ") + h.params[i]->name;
  std::string about = "'" + h.name + "' called with derivatives for " +
                      (activity.empty() ? std::string("no argument") : activity) +
                      (key.resultActive ? " and its result" : "");

  std::vector<StmtRef> fcode = sweeps.forward;
  for (Var *v : atExit)
    fcode.push_back(pushVar(v));
  // Pushes go up to where their values are ready, those at exit too: a
  // value kept to the end of the sweep is live across every call there.
  hoistPushes(fcode);
  if (h.result)
    fcode.push_back(returnStmt(varRef(h.result)));
  dropUnreadLocals({&fcode});
  std::vector<StmtRef> fbody{comment("forward sweep of " + about)};
  if (usesTape(fcode) && !key.device)
    fbody.push_back(raw("cgp::rt::Tape &cgp_tape = cgp::rt::Tape::current();"));
  if (!usesTape(fcode) && key.device)
    fbody.push_back(raw("(void)cgp_tape;"));
  appendAll(fbody, declareUsed(h.locals, fcode));
  appendAll(fbody, fcode);
  fwd->body = block(fbody);

  std::vector<StmtRef> rcode;
  for (auto it = atExit.rbegin(); it != atExit.rend(); ++it)
    rcode.push_back(popVar(*it));
  appendAll(rcode, seed);
  reuseMathValues(sweeps.reverse, module_);
  appendAll(rcode, sweeps.reverse);
  appendAll(rcode, epilogue);
  dropUnreadLocals({&rcode});
  if (!sharedAdjoints.empty())
    out_->plans[planIndex].sharedAdjoints =
        chooseSharedAdjointAdds(rcode, h, sharedAdjoints, false).adds;
  std::vector<StmtRef> rbody{comment("reverse sweep of " + about)};
  if (usesTape(rcode) && !key.device)
    rbody.push_back(raw("cgp::rt::Tape &cgp_tape = cgp::rt::Tape::current();"));
  // It keeps values on the redo tape itself, or through the helpers it calls.
  const bool keeps = usesRedo(rcode, {});
  if (keeps || usesRedo(rcode, redoKeepers_))
    redoKeepers_.insert(rev->qualifiedName());
  if (!usesTape(rcode) && !keeps && key.device)
    rbody.push_back(raw("(void)cgp_tape;"));
  if (keeps)
    rbody.push_back(raw(key.device ? "cgp::dev::Tape &cgp_redo = cgp_tape.redo();"
                                   : "cgp::rt::Tape &cgp_redo = cgp::rt::Tape::redo();"));
  appendAll(rbody, declareUsed(h.locals, rcode));
  std::vector<StmtRef> keptAdjoints = keepUsed(adjointDecls, rcode);
  appendAll(rbody, keptAdjoints);
  appendAll(rbody, rcode);
  rev->body = block(rbody);
  refreshShadows(rev->body, declaredShadow(adj, keptAdjoints));
  markUnusedParams(*fwd);
  markUnusedParams(*rev);

  CallVariant &made = variants_.at(key);
  out_->functions.push_back(fwd);
  out_->functions.push_back(rev);
  return &made;
}

ReverseMode::ReverseMode(Module &module, const PlanOptions &options)
    : impl_(std::make_unique<Impl>(module, options, errors_, warnings_)) {}
ReverseMode::~ReverseMode() = default;

bool ReverseMode::differentiate(Function &kernel, GeneratedCode &out) {
  return impl_->gradient(kernel, out);
}

} // namespace cgp
