//===- CheckpointCode.cpp - code shared by loops reversed from snapshots --===//
//
// See CheckpointCode.h.
//
//===----------------------------------------------------------------------===//
#include "transform/CheckpointCode.h"

#include "planner/CostModel.h"

#include "transform/Declarations.h"

#include <cctype>
#include <cstdio>

namespace cgp {

Var *newRuntimeObject(Module &m, const std::string &name, const std::string &type) {
  return makeTemp(m, name, ScalarType{ScalarType::Void, type});
}

std::string loopObjectPrefix(const StmtRef &loop) {
  if (loop->kind == StmtKind::For && loop->counted.index)
    return loop->counted.index->name;
  std::string name = loop->label.empty() ? "loop" : loop->label;
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

StmtRef siteDecl(Var *site, const StmtRef &loop, bool device) {
  if (device || !loop->pos.line)
    return decl(site);
  return decl(site, opaque("cgp::rt::LoopSite", ScalarType{ScalarType::Void, "cgp::rt::LoopSite"},
                           {intLit(static_cast<int64_t>(loop->pos.line))}));
}

std::string stateNames(const std::vector<Var *> &state, bool asWritten) {
  std::string names;
  for (const Var *v : state)
    names += (names.empty() ? "" : ", ") + (asWritten ? sourceName(*v) : v->name);
  return names;
}

std::string shareText(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * share);
  return text;
}

bool hasEffectfulCall(const ExprRef &e) {
  bool found = false;
  forEachExpr(e, [&](const ExprRef &x) {
    found |= x->kind == ExprKind::Call || x->kind == ExprKind::Opaque ||
             x->kind == ExprKind::TapePop;
  });
  return found;
}

bool codeMentions(const std::vector<StmtRef> &code, const Var *v) {
  bool found = false;
  for (const StmtRef &st : code)
    forEachStmt(st, [&](const StmtRef &n) {
      for (const ExprRef &e : ownExprs(n))
        found |= mentions(e, v);
    });
  return found;
}

bool iterationsReadIndex(const StmtRef &loop, const std::vector<StmtRef> &forward,
                         const std::vector<StmtRef> &reverse, const Var *index) {
  return codeMentions(forward, index) || codeMentions(reverse, index) ||
         codeMentions({loop->body}, index);
}

std::vector<StmtRef> withIndex(Var *i, Var *first, int64_t by, const ExprRef &number,
                               std::vector<StmtRef> stmts) {
  ScalarType i64 = ScalarType::int64Type();
  if (codeMentions(stmts, i))
    stmts.insert(stmts.begin(),
                 decl(i, cast(i->elem, binary(BinaryOp::Add, cast(i64, varRef(first)),
                                              binary(BinaryOp::Mul, number, intLit(by, i64))))));
  return stmts;
}

ExprRef spanStart(Var *span) {
  return address(span->spanOf, member(span, "first", ScalarType::int64Type()));
}

ExprRef spanSize(Var *span) {
  return method(span, "size", ScalarType{ScalarType::Integer, "std::size_t"});
}

std::vector<StmtRef> keepSpans(const std::vector<Var *> &state) {
  // For the reverse phase: what the spans come from may change after the
  // loop, and a loop inside another has a span at each run.
  std::vector<StmtRef> code;
  for (Var *v : state)
    if (v->spanOf)
      code.push_back(push(varRef(v)));
  return code;
}

std::vector<StmtRef> takeSpans(const std::vector<Var *> &state) {
  std::vector<StmtRef> code;
  for (auto v = state.rbegin(); v != state.rend(); ++v) {
    if (!(*v)->spanOf)
      continue;
    code.push_back(decl(*v, tapePop((*v)->elem)));
    if ((*v)->spanOf->origin == Var::Local)
      continue; // a vector local: what the loop left there is no one else's
    // Restoring snapshots overwrites what the loop left in the caller's
    // buffer: keep it on the redo tape, which puts it back at the end.
    code.push_back(eval(opaque("cgp_redo.keepElements", ScalarType::voidType(),
                               {spanStart(*v), spanSize(*v)})));
  }
  return code;
}

StmtRef putState(Var *checkpoints, Var *v) {
  if (v->spanOf) // the elements of the caller's buffer the loop overwrites
    return eval(method(checkpoints, "putElements", ScalarType::voidType(),
                       {spanStart(v), spanSize(v)}));
  if (v->ownsStorage) // a std::vector local: as many elements as it holds
    return eval(method(checkpoints, "putElements", ScalarType::voidType(),
                       {address(v, intLit(0)), varRef(v->sizeVar)}));
  // Scalars go in and out by value (their address is never taken).
  return eval(method(checkpoints, "put", ScalarType::voidType(), {wholeVarRef(v)}));
}

StmtRef getState(Var *checkpoints, Var *v) {
  if (v->spanOf)
    return eval(method(checkpoints, "getElements", ScalarType::voidType(),
                       {spanStart(v), spanSize(v)}));
  if (v->ownsStorage)
    return eval(method(checkpoints, "getElements", ScalarType::voidType(),
                       {address(v, intLit(0)), varRef(v->sizeVar)}));
  if (v->isScalar())
    return assign(varRef(v), method(checkpoints, "getValue<" + v->elem.spelling + ">", v->elem));
  return eval(method(checkpoints, "get", ScalarType::voidType(), {wholeVarRef(v)}));
}

double snapshotBytes(const std::vector<Var *> &state) {
  double bytes = 0;
  for (Var *v : state)
    bytes += v->spanOf ? scalarBytes(v->spanOf->elem) *
                             (v->extent > 0 ? static_cast<double>(v->extent) : kAssumedElements)
                       : scalarBytes(v->elem) * (v->ownsStorage
                                                     ? kAssumedElements
                                                     : static_cast<double>(v->elementCount()));
  return bytes;
}

ExprRef snapshotBytesValue(const std::vector<Var *> &state) {
  ScalarType i64 = ScalarType::int64Type();
  int64_t fixed = 0;
  ExprRef sized;
  for (Var *v : state) {
    int64_t each = static_cast<int64_t>(scalarBytes(v->spanOf ? v->spanOf->elem : v->elem));
    if (!v->ownsStorage && !v->spanOf) {
      fixed += each * v->elementCount();
      continue;
    }
    ExprRef size = v->spanOf ? spanSize(v) : varRef(v->sizeVar);
    ExprRef bytes = binary(BinaryOp::Mul, cast(i64, size), intLit(each, i64));
    sized = sized ? binary(BinaryOp::Add, sized, bytes) : bytes;
  }
  if (!sized)
    return intLit(fixed, i64);
  return fixed ? binary(BinaryOp::Add, intLit(fixed, i64), sized) : sized;
}

ExprRef budgetInForce(int64_t compiledBudget) {
  ScalarType i64 = ScalarType::int64Type();
  return binary(BinaryOp::Ge, opaque("cgp::rt::memoryBudget", i64, {intLit(compiledBudget, i64)}),
                intLit(0, i64));
}

ExprRef roomLeftBy(Var *outerSite, ExprRef inForce) {
  if (!outerSite)
    return inForce;
  return binary(BinaryOp::LAnd, member(outerSite, "leavesRoom", ScalarType::boolType()),
                std::move(inForce));
}

ExprRef planReversal(bool online, std::vector<ExprRef> args, const PlanCallOptions &options,
                     Var *outerSite) {
  std::vector<ExprRef> optional{boolLit(options.nestedPlans)};
  std::vector<bool> given{options.nestedPlans};
  if (online) {
    optional.push_back(boolLit(options.mostBytes));
    given.push_back(options.mostBytes);
  }
  optional.push_back(floatLit(options.laterLoopsBytes, ScalarType::doubleType()));
  given.push_back(options.laterLoopsBytes > 0);
  if (!online) {
    using Tapes = PlanCallOptions::Tapes;
    const char *name = options.iterationTapes == Tapes::Unevenly ? "Unevenly"
                       : options.iterationTapes == Tapes::UnevenlyKeepingLocals
                           ? "UnevenlyKeepingLocals"
                           : "Alike";
    optional.push_back(runtimeConstant(std::string("cgp::rt::IterationTapes::") + name,
                                       ScalarType{ScalarType::Integer, "cgp::rt::IterationTapes"}));
    given.push_back(options.iterationTapes != Tapes::Alike);
    optional.push_back(floatLit(options.keptBytes, ScalarType::doubleType()));
    given.push_back(options.iterationTapes == Tapes::UnevenlyKeepingLocals);
    optional.push_back(floatLit(options.replayShare, ScalarType::doubleType()));
    given.push_back(options.replayShare > 0);
    optional.push_back(floatLit(options.runsPerCall, ScalarType::doubleType()));
    given.push_back(options.replayShare > 0 && options.runsPerCall > 1);
  }
  // Up to the last one that differs from its default.
  std::size_t count = given.size();
  while (count > 0 && !given[count - 1])
    --count;
  args.insert(args.end(), optional.begin(), optional.begin() + static_cast<std::ptrdiff_t>(count));
  ExprRef plan = opaque(online ? "cgp::rt::planOnlineReversal" : "cgp::rt::planLoopReversal",
                        ScalarType::intType(), std::move(args));
  if (!outerSite)
    return plan;
  return select(member(outerSite, "leavesRoom", ScalarType::boolType()), std::move(plan),
                intLit(0));
}

std::vector<StmtRef> probeIteration(Var *checkpoints, const std::vector<Var *> &state,
                                    Var *measured, Var *mark, std::vector<StmtRef> before,
                                    const std::vector<StmtRef> &iteration) {
  std::vector<StmtRef> probe{
      eval(method(checkpoints, "beginProbe", ScalarType::voidType(), {snapshotBytesValue(state)})),
      eval(method(checkpoints, "beginSave", ScalarType::voidType(), {intLit(0)}))};
  for (Var *v : state)
    probe.push_back(putState(checkpoints, v));
  probe.push_back(decl(mark, opaque("cgp_tape.bytes", mark->elem, {})));
  appendAll(probe, before);
  probe.push_back(scope(iteration));
  probe.push_back(assign(varRef(measured),
                         cast(ScalarType::doubleType(),
                              binary(BinaryOp::Sub, opaque("cgp_tape.bytes", mark->elem, {}),
                                     varRef(mark)))));
  probe.push_back(eval(opaque("cgp_tape.discardTo", ScalarType::voidType(), {varRef(mark)})));
  probe.push_back(eval(method(checkpoints, "beginLoad", ScalarType::voidType(), {intLit(0)})));
  for (Var *v : state)
    probe.push_back(getState(checkpoints, v));
  probe.push_back(eval(method(checkpoints, "endProbe", ScalarType::voidType())));
  return probe;
}

StmtRef scheduleLoop(Var *checkpoints, Var *action, Var *counter,
                     const std::vector<Var *> &state, const IterationCode &replay,
                     const IterationCode &tape, const IterationCode &reverse,
                     const std::vector<Var *> &kept) {
  ScalarType i64 = ScalarType::int64Type();
  auto is = [&](const char *what) { return method(action, what, ScalarType::boolType()); };
  auto field = [&](const char *name, ScalarType t) { return member(action, name, std::move(t)); };
  std::vector<StmtRef> save{eval(method(checkpoints, "beginSave", ScalarType::voidType(),
                                        {field("slot", ScalarType::intType())}))};
  std::vector<StmtRef> load{eval(method(checkpoints, "beginLoad", ScalarType::voidType(),
                                        {field("slot", ScalarType::intType())}))};
  for (Var *v : state) {
    save.push_back(putState(checkpoints, v));
    load.push_back(getState(checkpoints, v));
  }
  // for (k = step; k < to; ++k), and for (k = to - 1; k >= step; --k).
  auto upwards = [&](const IterationCode &code) {
    return forStmt(decl(counter, field("step", i64)),
                   binary(BinaryOp::Lt, varRef(counter), field("to", i64)),
                   assign(varRef(counter), intLit(1, i64), AssignOp::Add),
                   block(code(varRef(counter))));
  };
  auto downwards = [&](const IterationCode &code) {
    return forStmt(decl(counter, binary(BinaryOp::Sub, field("to", i64), intLit(1, i64))),
                   binary(BinaryOp::Ge, varRef(counter), field("step", i64)),
                   assign(varRef(counter), intLit(1, i64), AssignOp::Sub),
                   block(code(varRef(counter))));
  };
  StmtRef last = block({breakStmt()});
  if (reverse)
    last = ifStmt(is("isReverse"),
                  block({comment("reverse the iterations just taped, last first"),
                         downwards(reverse)}),
                  last);
  if (!kept.empty()) {
    std::vector<StmtRef> keep;
    if (!reverse) {
      keep.push_back(comment("the iterations taped first end here: keep the variables declared "
                             "in the body, which snapshots leave out"));
      for (Var *v : kept) // scalars by value, arrays whole
        keep.push_back(eval(opaque("cgp_tape.push", ScalarType::voidType(), {wholeVarRef(v)})));
    } else {
      keep.push_back(comment("before the reverse of the iterations taped first: the variables "
                             "declared in the body, as the last of them left them"));
      for (auto v = kept.rbegin(); v != kept.rend(); ++v)
        keep.push_back((*v)->isScalar() ? assign(varRef(*v), tapePop((*v)->elem))
                                        : eval(opaque("cgp_tape.pop", ScalarType::voidType(),
                                                      {wholeVarRef(*v)})));
    }
    last = ifStmt(is("isKeep"), block(keep), last);
  }
  StmtRef dispatch = ifStmt(
      is("isStore"), block(save),
      ifStmt(is("isRestore"), block(load),
             ifStmt(is("isAdvance"),
                    block({comment("replay iterations without taping them"), upwards(replay)}),
                    ifStmt(is("isTape"),
                           block({comment("run iterations taped"), upwards(tape)}), last))));
  return forStmt(nullptr, nullptr, nullptr,
                 block({decl(action, method(checkpoints, "next", ScalarType::voidType())), dispatch}));
}

} // namespace cgp
