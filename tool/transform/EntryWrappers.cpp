//===- EntryWrappers.cpp - entry points of kernels with struct parameters ===//
//
// See EntryWrappers.h. The wrapper's parameters are printed by the usual
// declarator from variables whose type is the struct's name; its body is
// the one forwarding call.
//
//===----------------------------------------------------------------------===//
#include "transform/EntryWrappers.h"

#include <algorithm>
#include <map>
#include <set>

namespace cgp {
namespace {

/// A parameter of the struct's type, for the wrapper's signature.
Var *structParam(Module &m, const SplitParam &sp, const std::string &name, bool pointer,
                 bool isConst, bool reference) {
  Var v;
  v.name = name;
  v.elem = ScalarType{ScalarType::Integer, sp.type};
  v.shape = pointer ? Var::Pointer : Var::Scalar;
  v.isConst = isConst;
  v.isReference = reference;
  v.origin = Var::Param;
  return m.newVar(v);
}

} // namespace

std::string flatView(const SplitParam &sp, const std::string &name, bool isConst,
                     const ScalarType &elem) {
  return "reinterpret_cast<" + std::string(isConst ? "const " : "") + elem.spelling + " *>(" +
         name + ")";
}

static std::string leafPlace(const std::string &object, const SplitParam::Leaf &leaf, bool isConst) {
  if (leaf.flatElements) // a vector of structs' elements, seen as numbers
    return "reinterpret_cast<" + std::string(isConst ? "const " : "") + leaf.var->elem.spelling +
           " *>(" + object + leaf.access + ")";
  if (leaf.complexPart < 0)
    return object + leaf.access;
  // std::complex<T> is an array of two T's (its layout is the standard's).
  return "reinterpret_cast<" + std::string(isConst ? "const " : "") + leaf.var->elem.spelling +
         " (&)[2]>(" + object + leaf.access + ")[" + std::to_string(leaf.complexPart) + "]";
}

StmtRef layoutCheck(const SplitParam &sp, const ScalarType &elem) {
  std::string n = std::to_string(sp.stride);
  return raw("static_assert(sizeof(" + sp.type + ") == " + n + " * sizeof(" + elem.spelling +
             "), \"cgp-ad reads an array of " + sp.type + " as " + n + " " + elem.spelling +
             "s each\");");
}

namespace {

Function *wrap(Module &m, Function *g, const Function &k, bool gradient, int instance) {
  using Leaf = SplitParam::Leaf;
  std::map<const Var *, std::pair<const SplitParam *, const Leaf *>> leafOf;
  for (const SplitParam &sp : k.splitOriginals)
    for (const Leaf &leaf : sp.leaves)
      leafOf[leaf.var] = {&sp, &leaf};
  Function *w = m.newFunction();
  w->name = g->name;
  w->namespaces = g->namespaces;
  w->returnType = g->returnType;
  w->isStatic = g->isStatic;
  w->pos = g->pos;
  // An instantiation of a template kernel: the wrapper is the explicit
  // specialisation users call; the split function is a plain one, named
  // apart from the other instantiations' (`f_grad_split_2`).
  w->templateArgs = g->templateArgs;
  w->templateKernel = g->templateKernel;
  g->templateArgs.clear();
  g->templateKernel = nullptr;
  g->name += "_split" + (instance == 1 ? std::string() : "_" + std::to_string(instance));
  g->isStatic = true;
  // CUDA: the wrapper is what a launch names; the function it calls runs
  // on the same thread.
  w->cuda = g->cuda;
  if (g->cuda == CudaSpace::Global)
    g->cuda = CudaSpace::Device;

  std::vector<std::string> args;
  std::vector<StmtRef> checks; // the layout arrays of structs are read with
  std::set<std::string> checked;
  std::set<const SplitParam *> declared;
  size_t n = k.params.size();
  for (size_t i = 0; i < n; ++i) {
    Var *p = k.params[i];
    auto it = leafOf.find(p);
    if (it == leafOf.end()) {
      w->params.push_back(p);
      args.push_back(p->name);
      continue;
    }
    const SplitParam &sp = *it->second.first;
    if (sp.flat) {
      // An array of structs: the same memory, seen as its scalars.
      w->params.push_back(structParam(m, sp, sp.name, true, sp.isConst, false));
      args.push_back(flatView(sp, sp.name, sp.isConst, p->elem));
      if (checked.insert(sp.type).second)
        checks.push_back(layoutCheck(sp, p->elem));
      continue;
    }
    if (declared.insert(&sp).second)
      w->params.push_back(structParam(m, sp, sp.name, sp.inOut, sp.isConst && !sp.inOut,
                                      sp.byReference));
    args.push_back(leafPlace(sp.name, *it->second.second, !sp.inOut));
    if (it->second.second->flatElements) {
      SplitParam element = sp; // the layout of std::vector<S>::value_type
      element.type += "::value_type";
      if (checked.insert(element.type).second)
        checks.push_back(layoutCheck(element, p->elem));
    }
  }
  // The adjoints (f_grad: a pointer to a struct of them) or tangents
  // (f_jvp: a struct by value, a pointer for an in/out one).
  const std::vector<Var *> &listed = gradient ? k.wrt : k.tangents;
  std::set<const SplitParam *> declaredOut;
  for (size_t j = 0; j < listed.size() && n + j < g->params.size(); ++j) {
    Var *d = g->params[n + j];
    auto it = leafOf.find(listed[j]);
    if (it == leafOf.end()) {
      w->params.push_back(d);
      args.push_back(d->name);
      continue;
    }
    const SplitParam &sp = *it->second.first;
    const Leaf &leaf = *it->second.second;
    std::string name = (gradient ? "d_" : "t_") + sp.name;
    if (sp.flat) {
      // f_grad: `S* d_ps`; f_jvp: `const S* t_ps` (or `S*`, in and out).
      bool isConst = !gradient && sp.isConst;
      w->params.push_back(structParam(m, sp, name, true, isConst, false));
      args.push_back(flatView(sp, name, isConst, leaf.var->elem));
      continue;
    }
    bool pointer = gradient || sp.inOut;
    if (declaredOut.insert(&sp).second)
      w->params.push_back(structParam(m, sp, name, pointer, false, false));
    if (!pointer)
      args.push_back(leafPlace(name, leaf, true));
    else if (leaf.complexPart >= 0)
      args.push_back("&" + leafPlace("(*" + name + ")", leaf, false));
    else if (leaf.flatElements)
      args.push_back(leafPlace("(*" + name + ")", leaf, false));
    else
      args.push_back((leaf.isArray ? "" : "&") + name + "->" + leaf.access.substr(1));
  }
  std::string call = g->qualifiedName() + "(";
  for (size_t i = 0; i < args.size(); ++i)
    call += (i ? ", " : "") + args[i];
  call += ");";
  checks.push_back(raw(g->returnType.isVoid() ? call : "return " + call));
  w->body = block(checks);
  return w;
}

} // namespace

void addEntryWrappers(Module &module, GeneratedCode &code) {
  std::map<std::string, int> instances; // per entry point of a template kernel
  for (auto *list : {&code.gradients, &code.tangents})
    for (auto &[g, kernel] : *list) {
      if (kernel->splitOriginals.empty())
        continue;
      int instance = ++instances[g->scopedName()];
      Function *w = wrap(module, g, *kernel, list == &code.gradients, instance);
      auto at = std::find(code.functions.begin(), code.functions.end(), g);
      code.functions.insert(at == code.functions.end() ? at : at + 1, w);
      g = w;
    }
}

} // namespace cgp
