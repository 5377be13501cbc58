//===- ProfileHooks.cpp - counting hooks for --instrument -----------------===//
#include "transform/ProfileHooks.h"

#include <cctype>

namespace cgp {

namespace {

ProfileTable &tableOf(Function &kernel, Module &module) {
  for (ProfileTable &t : module.profileTables)
    if (t.kernel == &kernel)
      return t;
  std::string name = "cgp_profile_";
  for (char c : kernel.name)
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  int same = 0;
  for (const ProfileTable &t : module.profileTables)
    same += t.kernel->name == kernel.name; // overloads: one object each
  if (same)
    name += "_" + std::to_string(same + 1);
  Var v;
  v.name = name;
  v.qualifiedName = name;
  v.origin = Var::Global;
  v.elem = ScalarType{ScalarType::Void, kProfileObjectType};
  v.pos = kernel.pos;
  ProfileTable table;
  table.kernel = &kernel;
  table.object = module.newVar(v);
  module.profileTables.push_back(table);
  return module.profileTables.back();
}

StmtRef hook(const ProfileTable &t, const char *what, std::vector<ExprRef> args) {
  return eval(method(t.object, what, ScalarType::voidType(), std::move(args)));
}

/// `first` at the top of `body` (a Block, or made one).
StmtRef prepend(StmtRef first, StmtRef body) {
  if (body && body->kind == StmtKind::Block) {
    body->stmts.insert(body->stmts.begin(), first);
    return body;
  }
  std::vector<StmtRef> stmts{first};
  if (body)
    stmts.push_back(body);
  return block(stmts);
}

bool isLoop(const StmtRef &s) {
  return s && (s->kind == StmtKind::For || s->kind == StmtKind::While ||
               s->kind == StmtKind::DoWhile);
}

class BranchHooks {
public:
  BranchHooks(Function &kernel, Module &module) : kernel_(kernel), module_(module) {}

  void visit(const StmtRef &s) {
    if (!s)
      return;
    for (const StmtRef &c : s->stmts)
      visit(c);
    for (SwitchCase &c : s->cases)
      for (const StmtRef &b : c.body)
        visit(b);
    visit(s->init);
    visit(s->step);
    visit(s->body);
    visit(s->elseBody);
    if (s->kind != StmtKind::If || s->pos.line == 0)
      return;
    ProfileTable &t = tableOf(kernel_, module_);
    ExprRef site = intLit(static_cast<int64_t>(t.sites.size()));
    t.sites.push_back({false, s->pos});
    s->body = prepend(hook(t, "branch", {site, boolLit(true)}), s->body);
    s->elseBody = prepend(hook(t, "branch", {site, boolLit(false)}), s->elseBody);
  }

private:
  Function &kernel_;
  Module &module_;
};

class LoopHooks {
public:
  LoopHooks(ProfileTable &table) : t_(table) {}

  /// Rewrites the statement in `slot` (and what it holds).
  void visit(StmtRef &slot) {
    if (!slot)
      return;
    if (slot->kind != StmtKind::Block && isLoop(slot) && slot->pos.line != 0)
      slot = block({slot}); // a loop as the whole body of another statement
    StmtRef s = slot;
    if (s->kind == StmtKind::Block) {
      std::vector<StmtRef> out;
      for (StmtRef c : s->stmts) {
        if (!isLoop(c) || c->pos.line == 0) {
          visit(c);
          out.push_back(c);
          continue;
        }
        ExprRef site = intLit(static_cast<int64_t>(t_.sites.size()));
        t_.sites.push_back({true, c->pos});
        visit(c->body);
        c->body = prepend(hook(t_, "iterate", {site}), c->body);
        out.push_back(hook(t_, "loopEnter", {site}));
        out.push_back(c);
        out.push_back(hook(t_, "loopExit", {site}));
      }
      s->stmts = out;
      return;
    }
    visit(s->body);
    visit(s->elseBody);
  }

private:
  ProfileTable &t_;
};

} // namespace

void addBranchHooks(Function &kernel, Module &module) {
  tableOf(kernel, module); // a kernel without branches is counted too
  BranchHooks(kernel, module).visit(kernel.body);
}

void addLoopHooks(Function &kernel, Module &module) {
  ProfileTable &t = tableOf(kernel, module);
  LoopHooks(t).visit(kernel.body);
  kernel.body = prepend(hook(t, "callBegin", {}), kernel.body);
}

} // namespace cgp
