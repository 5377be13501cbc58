//===- CustomCallAdapters.cpp - custom pullbacks of functions on structs --===//
//
// See CustomCallAdapters.h. The adapters' bodies are lines of C++ built
// here from the split parameters' descriptions (SplitParam); their
// parameters are g's split parameters, printed by the usual declarator, and
// for the pullback's adapter the result's adjoint and a pointer per
// floating parameter, in the order the reverse sweep passes them
// (SweepBuilder::sweepCustomCall).
//
// What the user's pullback receives for a split parameter: a struct, array
// of structs or container built from the members' current values, and an
// adjoint object of the same type. A read-only parameter's adjoint starts
// at zero and is added into the members' adjoints afterwards; an in/out
// one (`Cam&`, `std::vector<double>&`) starts as the members' adjoints and
// is copied back, so that a pullback may clear what the function
// overwrote. A member without adjoint in this call (a null pointer) reads
// as zero and takes nothing back.
//
//===----------------------------------------------------------------------===//
#include "transform/CustomCallAdapters.h"

#include "transform/EntryWrappers.h"

#include <map>
#include <set>

namespace cgp {
namespace {

using Leaf = SplitParam::Leaf;

/// The lines of an adapter's body, and names that do not clash with its
/// parameters.
struct Body {
  std::vector<StmtRef> lines;
  std::set<std::string> taken;

  void add(const std::string &line) { lines.push_back(raw(line)); }
  std::string fresh(std::string name) {
    while (taken.count(name))
      name += "_";
    taken.insert(name);
    return name;
  }
};

bool isVector(const SplitParam &sp) {
  return sp.isContainer && sp.type.rfind("std::vector", 0) == 0;
}

/// The member a leaf reaches, as an lvalue of object `object`: a std::array
/// member is indexed itself (`q[k]`, not `q.data()[k]`).
std::string member(const std::string &object, const Leaf &leaf) {
  std::string access = leaf.access;
  const std::string data = ".data()";
  if (access.size() >= data.size() && access.compare(access.size() - data.size(), data.size(),
                                                    data) == 0)
    access.erase(access.size() - data.size());
  return object + access;
}

/// A flat buffer of scalars seen as the array of structs it holds.
std::string asStructs(const SplitParam &sp, const std::string &name, bool isConst) {
  return "reinterpret_cast<" + std::string(isConst ? "const " : "") + sp.type + " *>(" + name +
         ")";
}

std::string loop(const std::string &count, const std::string &statement) {
  return "for (std::size_t k = 0; k < " + count + "; ++k) " + statement;
}

/// The number of elements of an array leaf (a struct's member array, the
/// data of a container).
std::string extentOf(const SplitParam &sp, const Leaf &leaf, const std::string &object) {
  if (!sp.isContainer)
    return std::to_string(leaf.var->extent);
  if (isVector(sp))
    return sp.leaves[1].var->name; // the size parameter
  return object + ".size()";
}

/// Declares `object`, of the parameter's own type, holding the values its
/// split members hold; for a container, a thread's object reused from call
/// to call, so that steady state allocates nothing.
void build(const SplitParam &sp, const std::string &object, bool onHost, Body &body) {
  if (isVector(sp)) {
    const Var *data = sp.leaves[0].var;
    const Var *size = sp.leaves[1].var;
    body.add(std::string(onHost ? "static thread_local " : "") + sp.type + " " + object + ";");
    body.add(object + ".assign(" + data->name + ", " + data->name + " + " + size->name + ");");
    return;
  }
  body.add(sp.type + " " + object + "{};");
  for (const Leaf &leaf : sp.leaves) {
    if (!leaf.isArray) {
      body.add(member(object, leaf) + " = " + leaf.var->name + ";");
      continue;
    }
    body.add(loop(extentOf(sp, leaf, object), member(object, leaf) + "[k] = " +
                                                  leaf.var->name + "[k];"));
  }
}

/// Writes `object`'s values back into the split members of an in/out
/// parameter; a vector must have kept its size.
void writeBack(const SplitParam &sp, const std::string &object, const std::string &function,
               Body &body) {
  if (isVector(sp)) {
    const Var *size = sp.leaves[1].var;
    body.add("cgp::rt::checkSizeKept(" + size->name + ", " + object + ".size(), \"" + function +
             "\");");
  }
  for (const Leaf &leaf : sp.leaves) {
    if (!leaf.isArray) {
      if (!sp.isContainer)
        body.add(leaf.var->name + " = " + member(object, leaf) + ";");
      continue;
    }
    body.add(loop(extentOf(sp, leaf, object),
                  leaf.var->name + "[k] = " + member(object, leaf) + "[k];"));
  }
}

/// The call of `function` with the user's arguments: the rebuilt objects
/// in place of the split members, arrays of structs seen as structs again.
struct UserArgs {
  std::map<const Var *, std::pair<const SplitParam *, const Leaf *>> leafOf; // leavesOf(g)
  std::vector<std::string> values;
  std::map<const SplitParam *, std::string> objects; // built values
};

/// The split parameter each of g's parameters belongs to, if any.
std::map<const Var *, std::pair<const SplitParam *, const Leaf *>> leavesOf(const Function &g) {
  std::map<const Var *, std::pair<const SplitParam *, const Leaf *>> out;
  for (const SplitParam &sp : g.splitOriginals)
    for (const Leaf &leaf : sp.leaves)
      out[leaf.var] = {&sp, &leaf};
  return out;
}

/// Builds the user's argument values (declaring the rebuilt objects) in
/// parameter order.
UserArgs userArgs(const Function &g, Body &body) {
  UserArgs out;
  out.leafOf = leavesOf(g);
  const auto &leafOf = out.leafOf;
  std::set<std::string> checked;
  for (const Var *p : g.params) {
    auto it = leafOf.find(p);
    if (it == leafOf.end()) {
      out.values.push_back(p->name);
      continue;
    }
    const SplitParam &sp = *it->second.first;
    if (out.objects.count(&sp))
      continue; // a further member of a parameter already built
    if (sp.flat) {
      if (checked.insert(sp.type).second)
        body.lines.push_back(layoutCheck(sp, p->elem));
      out.objects[&sp] = "";
      out.values.push_back(asStructs(sp, p->name, sp.isConst));
      continue;
    }
    std::string object = body.fresh(sp.name + "_value");
    build(sp, object, !g.onDevice(), body);
    out.objects[&sp] = object;
    out.values.push_back(object);
  }
  return out;
}

std::string callText(const std::string &function, const std::vector<std::string> &args) {
  std::string text = function + "(";
  for (size_t i = 0; i < args.size(); ++i)
    text += (i ? ", " : "") + args[i];
  return text + ")";
}

Body startBody(const Function &adapter) {
  Body body;
  for (const Var *p : adapter.params)
    body.taken.insert(p->name);
  return body;
}

Function *newAdapter(Module &m, const Function &g, const std::string &name) {
  Function *a = m.newFunction();
  a->name = name;
  a->namespaces = g.namespaces;
  a->isStatic = a->isInline = true;
  a->cuda = g.cuda == CudaSpace::Global ? CudaSpace::Device : g.cuda;
  a->pos = g.pos;
  a->params = g.params;
  return a;
}

/// g_unsplit: g called with its parameters put together again.
Function *primalAdapter(Module &m, Function &g, const std::string &userFunction) {
  Function *a = newAdapter(m, g, g.name + "_unsplit");
  a->returnType = g.returnType;
  Body body = startBody(*a);
  body.add("// '" + g.name + "' takes structs or containers: its arguments put together again");
  UserArgs args = userArgs(g, body);
  std::string call = callText(userFunction, args.values);
  std::vector<std::pair<const SplitParam *, std::string>> written;
  for (const auto &[sp, object] : args.objects)
    if (sp->inOut && !sp->flat)
      written.push_back({sp, object});
  if (written.empty()) {
    body.add(std::string(g.returnType.isVoid() ? "" : "return ") + call + ";");
  } else {
    std::string result;
    if (g.returnType.isVoid()) {
      body.add(call + ";");
    } else {
      result = body.fresh("result");
      body.add("const " + g.returnType.spelling + " " + result + " = " + call + ";");
    }
    for (const auto &[sp, object] : written)
      writeBack(*sp, object, g.name, body);
    if (!result.empty())
      body.add("return " + result + ";");
  }
  a->body = block(body.lines);
  return a;
}

Var *adjointParam(Module &m, const Var *p) {
  Var v;
  v.name = "d_" + p->name;
  v.elem = p->elem;
  v.shape = Var::Pointer;
  v.origin = Var::Param;
  return m.newVar(v);
}

/// Copies between the members of adjoint object `object` and the split
/// adjoints they stand for, skipping null ones: into the object, or out of
/// it (copied for an in/out parameter, added for a read-only one).
void copyAdjointMembers(const SplitParam &sp,
                        const std::map<const Var *, const Var *> &adjointOf,
                        const std::string &object, bool intoObject, Body &body) {
  for (const Leaf &leaf : sp.leaves) {
    auto d = adjointOf.find(leaf.var);
    if (d == adjointOf.end())
      continue;
    const std::string &dn = d->second->name;
    std::string split = leaf.isArray ? dn + "[k]" : "*" + dn;
    std::string held = member(object, leaf) + (leaf.isArray ? "[k]" : "");
    std::string copy = intoObject ? held + " = " + split + ";"
                                  : split + (sp.inOut ? " = " : " += ") + held + ";";
    body.add("if (" + dn + ") " + (leaf.isArray ? loop(extentOf(sp, leaf, object), copy) : copy));
  }
}

/// The user's adjoint argument for split parameter `sp`: an object of its
/// type (`&d_cam_value`), zero or holding the members' adjoints on entry.
std::string adjointObject(const SplitParam &sp, const std::map<const Var *, const Var *> &adjointOf,
                          const std::string &object, bool onHost, Body &body) {
  if (isVector(sp)) {
    const Var *data = adjointOf.at(sp.leaves[0].var);
    const Var *size = sp.leaves[1].var;
    body.add(std::string(onHost ? "static thread_local " : "") + sp.type + " " + object + ";");
    body.add(object + ".assign(" + size->name + ", 0);");
    if (sp.inOut)
      body.add("if (" + data->name + ") " + object + ".assign(" + data->name + ", " +
               data->name + " + " + size->name + ");");
    return "&" + object;
  }
  body.add(sp.type + " " + object + "{};");
  if (sp.inOut)
    copyAdjointMembers(sp, adjointOf, object, /*intoObject=*/true, body);
  return "&" + object;
}

/// Adds (read-only parameter) or copies (in/out) the adjoint object's
/// members back into the split adjoints.
void adjointBack(const SplitParam &sp, const std::map<const Var *, const Var *> &adjointOf,
                 const std::string &object, const std::string &pullback, Body &body) {
  if (isVector(sp))
    body.add("cgp::rt::checkSizeKept(" + sp.leaves[1].var->name + ", " + object + ".size(), \"" +
             pullback + "\");");
  copyAdjointMembers(sp, adjointOf, object, /*intoObject=*/false, body);
}

/// pb_unsplit: the user's pullback called with g's parameters and their
/// adjoints put together again.
Function *pullbackAdapter(Module &m, const Function &g) {
  std::string name = g.pullback.substr(g.pullback.rfind("::") + 2);
  Function *a = newAdapter(m, g, name);
  a->returnType = ScalarType::voidType();
  std::vector<std::string> adjointArgs;
  if (g.returnType.isFloating()) {
    Var v;
    v.name = "d_ret";
    v.elem = g.returnType;
    v.origin = Var::Param;
    a->params.push_back(m.newVar(v));
    adjointArgs.push_back("d_ret");
  }
  std::map<const Var *, const Var *> adjointOf;
  for (const Var *p : g.params)
    if (p->isFloating()) {
      Var *d = adjointParam(m, p);
      adjointOf[p] = d;
      a->params.push_back(d);
    }
  Body body = startBody(*a);
  body.add("// '" + g.name + "' takes structs or containers: its arguments and their adjoints "
           "put together again");
  UserArgs args = userArgs(g, body);
  const auto &leafOf = args.leafOf;
  std::map<const SplitParam *, std::string> adjoints;
  std::set<const SplitParam *> done;
  for (const Var *p : g.params) {
    auto it = leafOf.find(p);
    if (it == leafOf.end()) {
      if (adjointOf.count(p))
        adjointArgs.push_back(adjointOf.at(p)->name);
      continue;
    }
    const SplitParam &sp = *it->second.first;
    if (!done.insert(&sp).second)
      continue;
    bool floating = false;
    for (const Leaf &leaf : sp.leaves)
      floating |= adjointOf.count(leaf.var) > 0;
    if (!floating)
      continue; // no floating member: the pullback takes no adjoint for it
    if (sp.flat) {
      adjointArgs.push_back(asStructs(sp, adjointOf.at(p)->name, false));
      continue;
    }
    std::string object = body.fresh("d_" + sp.name + "_value");
    adjointArgs.push_back(adjointObject(sp, adjointOf, object, !g.onDevice(), body));
    adjoints[&sp] = object;
  }
  std::vector<std::string> all = args.values;
  all.insert(all.end(), adjointArgs.begin(), adjointArgs.end());
  body.add(callText(g.userPullback, all) + ";");
  for (const auto &[sp, object] : adjoints)
    adjointBack(*sp, adjointOf, object, g.userPullback.substr(g.userPullback.rfind("::") + 2), body);
  a->body = block(body.lines);
  return a;
}

} // namespace

void addCustomCallAdapters(Module &module, GeneratedCode &code) {
  std::vector<Function *> custom;
  for (const auto &f : module.functions())
    if (!f->userPullback.empty())
      custom.push_back(f.get());
  std::vector<Function *> adapters;
  for (Function *f : custom) {
    Function &g = *f;
    Function user = g;
    user.primalName.clear();
    adapters.push_back(primalAdapter(module, g, user.qualifiedName()));
    adapters.push_back(pullbackAdapter(module, g));
    g.primalName = adapters[adapters.size() - 2]->name;
  }
  code.functions.insert(code.functions.begin(), adapters.begin(), adapters.end());
}

} // namespace cgp
