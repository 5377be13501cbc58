//===- Emitter.cpp - generated functions to C++ text ----------------------===//
//
// Names: each function gets its own namer, which keeps the user's names
// and adds a numeric suffix only when two variables of one function would
// otherwise share a name (a local hoisted out of two scopes, say).
//
//===----------------------------------------------------------------------===//
#include "emit/Emitter.h"

#include "planner/Profile.h"

#include "ir/MathTable.h"
#include "ir/Printer.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace cgp {
namespace {

/// The headers that the math functions `functions` call need
/// (cgp/digamma.h), in order.
std::set<std::string> mathHeaders(const std::vector<Function *> &functions) {
  std::set<std::string> headers;
  for (const Function *f : functions)
    forEachExprIn(f->body, [&](const ExprRef &x) {
      if (x->kind == ExprKind::Math && !mathFunction(x->mathFn).header.empty())
        headers.insert(mathFunction(x->mathFn).header);
    });
  return headers;
}

/// The standard headers that declarations `decls` name types of, so that
/// the generated header compiles on its own as far as the standard library
/// goes (the user's own types come from the user's headers).
std::string standardIncludes(const std::string &decls) {
  static const std::pair<const char *, const char *> kTypes[] = {
      {"std::array<", "array"},   {"std::complex<", "complex"}, {"std::map<", "map"},
      {"std::string", "string"},  {"std::vector<", "vector"}};
  std::string includes;
  for (const auto &[type, header] : kTypes)
    if (decls.find(type) != std::string::npos)
      includes += "#include <" + std::string(header) + ">\n";
  return includes.empty() ? includes : includes + "\n";
}

const std::set<std::string> &reservedNames() {
  static const std::set<std::string> names = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
      "class", "const", "constexpr", "continue", "default", "delete", "do", "double", "else",
      "enum", "explicit", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "not", "operator", "or", "private",
      "protected", "public", "register", "return", "short", "signed", "sizeof", "static",
      "struct", "switch", "template", "this", "throw", "true", "try", "typedef", "union",
      "unsigned", "using", "virtual", "void", "volatile", "while", "xor", "cgp", "cgp_tape",
      "cgp_redo", "cgp_redo_mark", "std"};
  return names;
}

/// Unique names for the variables of one function.
class FunctionNamer : public Namer {
public:
  explicit FunctionNamer(const Function &f) {
    for (Var *p : f.params)
      claim(p);
    forEachStmt(f.body, [&](const StmtRef &s) {
      if (s->var)
        claim(s->var);
      for (const ExprRef &e : ownExprs(s))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->var)
            claim(x->var);
        });
    });
  }

  std::string name(const Var *v) const override {
    if (v->origin == Var::Global)
      return Namer::name(v);
    auto it = names_.find(v);
    return it == names_.end() ? v->name : it->second;
  }

private:
  void claim(const Var *v) {
    if (v->origin == Var::Global || names_.count(v))
      return;
    std::string base = v->name.empty() ? "v" : v->name;
    std::string candidate = base;
    // The first free `base_n`; the n below the last one given are taken
    // (names are never given back), so the search starts there: a kernel
    // with thousands of temporaries of one name stays linear.
    int &next = nextSuffix_[base];
    for (int n = std::max(next, 1); taken_.count(candidate) || reservedNames().count(candidate);
         ++n) {
      candidate = base + "_" + std::to_string(n);
      next = n + 1;
    }
    taken_.insert(candidate);
    names_[v] = candidate;
  }

  std::map<const Var *, std::string> names_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, int> nextSuffix_;
};

const char *cudaQualifiers(CudaSpace space) {
  switch (space) {
  case CudaSpace::Host: return "";
  case CudaSpace::Device: return "__device__ ";
  case CudaSpace::HostDevice: return "__host__ __device__ ";
  case CudaSpace::Global: return "__global__ ";
  }
  return "";
}

std::string signature(const Function &f, const Printer &p, bool definition) {
  std::string s;
  // The entry point of a template kernel is an explicit specialisation of
  // its primary template (templatePrimary), which carries the linkage.
  bool specialisation = f.templateKernel != nullptr;
  if (specialisation)
    s += "template <> ";
  if (f.isStatic && !f.isInline && !specialisation)
    s += "[[maybe_unused]] "; // a gradient the file itself does not call
  if (f.isStatic && !specialisation)
    s += "static ";
  if (f.isInline)
    s += "inline ";
  s += cudaQualifiers(f.cuda);
  s += f.returnType.spelling + " " + f.name + (specialisation ? f.templateArgs : "") + "(";
  if (f.tapeParam)
    s += "cgp::dev::Tape &cgp_tape";
  for (size_t i = 0; i < f.params.size(); ++i) {
    // The header's declaration stays plain: __restrict qualifies the
    // parameter itself, so it does not change the function's type.
    bool restrict = definition && f.restrictPointers && f.params[i]->isPointer();
    s += (i || f.tapeParam ? ", " : "") + p.declarator(f.params[i], restrict);
  }
  s += ")";
  return s;
}

std::string openNamespaces(const Function &f) {
  std::string s;
  for (const std::string &ns : f.namespaces)
    s += ns.empty() ? "namespace {\n" : "namespace " + ns + " {\n";
  return s;
}

std::string closeNamespaces(const Function &f) {
  std::string s;
  for (size_t i = f.namespaces.size(); i-- > 0;)
    s += "} // namespace " + (f.namespaces[i].empty() ? std::string() : f.namespaces[i]) + "\n";
  return s;
}

/// The input with quoted includes that resolve next to it rewritten to
/// reach the same files from the output folder.
std::string relocateIncludes(const std::string &text, const std::string &inputPath,
                             const std::string &outputDir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path inputDir = fs::absolute(fs::path(inputPath), ec).parent_path();
  fs::path outDir = fs::absolute(fs::path(outputDir), ec);
  std::regex include(R"(^(\s*#\s*include\s*)\"([^\"]+)\")");
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, include)) {
      fs::path target = inputDir / m[2].str();
      if (fs::exists(target, ec)) {
        fs::path rel = fs::relative(fs::weakly_canonical(target, ec), fs::weakly_canonical(outDir, ec), ec);
        std::string spelled = (ec || rel.empty()) ? fs::weakly_canonical(target, ec).string()
                                                  : rel.generic_string();
        line = m[1].str() + "\"" + spelled + "\"" + m.suffix().str();
      }
    }
    out += line + "\n";
  }
  return out;
}

/// The static KernelProfile object of each instrumented kernel, with the
/// positions of the loops and ifs its hooks count.
std::string profileObjects(const std::vector<ProfileTable> &tables) {
  auto literal = [](const std::string &text) {
    std::string quoted = "\"";
    for (char c : text)
      quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    return quoted + "\"";
  };
  std::string out;
  for (const ProfileTable &t : tables) {
    std::string sites;
    for (const ProfileTable::Site &site : t.sites)
      sites += std::string(sites.empty() ? "" : ", ") + "{cgp::rt::ProfileSiteKind::" +
               (site.isLoop ? "Loop" : "Branch") + ", " + std::to_string(site.pos.line) + ", " +
               std::to_string(site.pos.column) + "}";
    out += "\n" + openNamespaces(*t.kernel) + "// What --instrument counts in '" + t.kernel->name +
           "' (CGP_PROFILE=FILE.json writes it).\nstatic cgp::rt::KernelProfile " +
           t.object->qualifiedName + "(" + literal(profileKernelName(*t.kernel)) + ", " +
           literal(profileFileName(*t.kernel)) + ", {" + sites + "});\n" + closeNamespaces(*t.kernel);
  }
  return out;
}

/// Declarations of the generated functions that a function defined before
/// them calls: helpers that call each other (recursion) come in some order.
std::string declareCalledEarlier(const std::vector<Function *> &functions) {
  std::map<std::string, size_t> definedAt;
  for (size_t i = 0; i < functions.size(); ++i)
    definedAt.emplace(functions[i]->qualifiedName(), i);
  std::set<size_t> needed;
  for (size_t i = 0; i < functions.size(); ++i)
    forEachExprIn(functions[i]->body, [&](const ExprRef &x) {
      std::string name = x->kind == ExprKind::Call     ? x->callee->qualifiedName()
                         : x->kind == ExprKind::Opaque ? x->calleeName
                                                        : std::string();
      auto at = definedAt.find(name);
      if (at != definedAt.end() && at->second > i)
        needed.insert(at->second);
    });
  std::string decls;
  for (size_t i : needed)
    decls += printDeclaration(*functions[i]);
  return decls.empty() ? decls : "\n// Helpers that call each other, declared first.\n" + decls;
}

} // namespace

std::string printDefinition(const Function &f) {
  FunctionNamer namer(f);
  Printer p(namer);
  std::string s = signature(f, p, true) + " ";
  std::string body = p.stmt(f.body, 0);
  if (body.empty())
    body = "{}\n";
  return s + body;
}

std::string printDeclaration(const Function &f) {
  FunctionNamer namer(f);
  Printer p(namer);
  return openNamespaces(f) + signature(f, p, false) + ";\n" + closeNamespaces(f);
}

/// The primary template of the entry point `g` (f_grad or f_jvp) of a
/// template kernel: `template <typename T> T f_grad(const T *x, T *d_x);`,
/// spelled with the template's own parameter types. Each parameter of `g`
/// is one of the kernel's (`x`, or a whole struct or container whose
/// members the kernel takes apart) or its adjoint or tangent (`d_x`, `t_x`).
std::string templatePrimary(const Function &g, const Function &kernel) {
  const TemplateKernel &t = *g.templateKernel;
  bool gradient = g.name == kernel.name + "_grad";
  auto indexOf = [&](const std::string &name) -> std::optional<size_t> {
    auto at = std::find(t.paramNames.begin(), t.paramNames.end(), name);
    if (at == t.paramNames.end())
      return std::nullopt;
    return static_cast<size_t>(at - t.paramNames.begin());
  };
  FunctionNamer namer(g);
  std::string s = t.head + " ";
  if (g.isStatic)
    s += "[[maybe_unused]] static ";
  s += t.returnType + " " + g.name + "(";
  for (size_t i = 0; i < g.params.size(); ++i) {
    const std::string &name = g.params[i]->name;
    std::string type;
    if (std::optional<size_t> own = indexOf(name)) {
      type = t.paramTypes[*own];
    } else if (name.rfind(gradient ? "d_" : "t_", 0) == 0) {
      std::optional<size_t> of = indexOf(name.substr(2));
      if (!of)
        return "";
      type = gradient ? t.adjointTypes[*of] : t.tangentTypes[*of];
    } else {
      return "";
    }
    s += (i ? ", " : "") + type + (type.back() == '*' || type.back() == '&' ? "" : " ") +
         namer.name(g.params[i]);
  }
  return openNamespaces(g) + s + ");\n" + closeNamespaces(g);
}

/// Declarations of entry points: a template kernel's primary template first
/// (once per template and entry point), then the function itself.
std::string declareEntryPoint(const Function &g, const Function &kernel,
                              std::set<std::pair<const TemplateKernel *, std::string>> &primaries) {
  std::string s;
  if (g.templateKernel && primaries.insert({g.templateKernel.get(), g.name}).second)
    s += templatePrimary(g, kernel);
  return s + printDeclaration(g);
}

std::string formatCode(const std::string &code) {
  clang::format::FormatStyle style = clang::format::getLLVMStyle();
  style.ColumnLimit = 100;
  style.FixNamespaceComments = false;
  std::vector<clang::tooling::Range> ranges{clang::tooling::Range(0, code.size())};
  clang::tooling::Replacements fixes = clang::format::reformat(style, code, ranges, "<generated>");
  auto formatted = clang::tooling::applyAllReplacements(code, fixes);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    return code;
  }
  return *formatted;
}

EmitOutput emitTranslationUnit(const EmitInput &in, const GeneratedCode &code) {
  EmitOutput out;
  std::string inputName = llvm::sys::path::filename(in.inputPath).str();
  std::string guard = "CGP_GENERATED_";
  for (char c : in.headerName)
    guard += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';

  // The header: the gradients callers in other files may call.
  std::string header = "// " + in.headerName + " - generated by cgp-ad " + in.toolVersion +
                       " from " + inputName + ". Do not edit.\n" +
                       "// Declarations of the gradients of the kernels marked in " + inputName +
                       ".\n#ifndef " + guard + "\n#define " + guard + "\n\n";
  std::string decls;
  std::set<std::pair<const TemplateKernel *, std::string>> headerPrimaries, sourcePrimaries;
  auto declare = [&](const std::vector<std::pair<Function *, const Function *>> &list,
                     const std::string &what) {
    for (const auto &[g, kernel] : list) {
      if (g->isStatic ||
          (!g->namespaces.empty() && std::count(g->namespaces.begin(), g->namespaces.end(), "")))
        continue; // internal linkage: not callable from other files
      decls += "// " + what + " of '" + kernel->name + kernel->templateArgs + "'.\n" +
               declareEntryPoint(*g, *kernel, headerPrimaries);
    }
  };
  declare(code.gradients, "Gradient");
  declare(code.tangents, "Directional derivative (forward mode)");
  header += standardIncludes(decls);
  header += formatCode(decls) + "\n#endif // " + guard + "\n";
  out.header = header;

  // The translation unit.
  std::string prologue;
  std::vector<std::pair<Function *, const Function *>> entryPoints = code.gradients;
  entryPoints.insert(entryPoints.end(), code.tangents.begin(), code.tangents.end());
  for (const auto &[g, kernel] : entryPoints) {
    // User types and containers are not declared yet up there.
    auto declared = [](const std::string &type) {
      return type.rfind("::", 0) != 0 && type.rfind("std::vector<", 0) != 0 &&
             type.rfind("std::array<", 0) != 0;
    };
    bool builtinTypes = declared(g->returnType.spelling);
    for (const Var *p : g->params)
      builtinTypes &= declared(p->elem.spelling) && p->elem.kind != ScalarType::Foreign;
    if (builtinTypes)
      prologue += declareEntryPoint(*g, *kernel, sourcePrimaries);
  }
  std::string generated = declareCalledEarlier(code.functions);
  for (const Function *f : code.functions) {
    generated += "\n";
    // A template kernel's entry point that takes the user's types: its
    // primary template is declared here, after the user's code.
    if (f->templateKernel)
      for (const auto &[g, kernel] : entryPoints)
        if (g == f && sourcePrimaries.insert({f->templateKernel.get(), f->name}).second)
          generated += templatePrimary(*f, *kernel);
    generated += openNamespaces(*f) + printDefinition(*f) + closeNamespaces(*f);
  }

  std::string src = "// " + in.sourceName + " - generated by cgp-ad " + in.toolVersion + " from " +
                    inputName + ". Do not edit.\n"
                    "// The code of " + inputName +
                    ", then the gradients of its marked kernels.\n\n"
                    "// Declarations of the gradients, so that the code below may call them.\n" +
                    formatCode(prologue) + "\n";
  std::string userCode = relocateIncludes(in.inputText, in.inputPath, in.outputDir);
  src += "#line 1 \"" + in.inputPath + "\"\n" + userCode;
  if (!userCode.empty() && userCode.back() != '\n')
    src += "\n";
  size_t line = std::count(src.begin(), src.end(), '\n') + 2;
  src += "#line " + std::to_string(line) + " \"" + in.sourceName + "\"\n";
  src += "\n// ---- generated by cgp-ad: the gradients ----\n#include <cgp/tape.h>\n#include <cgp/checkpoint.h>\n";
  if (std::any_of(code.functions.begin(), code.functions.end(),
                  [](const Function *f) { return f->onDevice(); }))
    src += "#include <cgp/device.h>\n#include <cgp/device_checkpoint.h>\n\n"
           "// this file's tape pool, which cgp::dev::reserveTapes() fills in\n"
           "[[maybe_unused]] static const bool cgp_tape_pool_registered = "
           "cgp::dev::registerTapePool();\n";
  if (!in.profiles.empty())
    src += "#include <cgp/profile.h>\n";
  for (const std::string &header : mathHeaders(code.functions))
    src += "#include <" + header + ">\n";
  src += formatCode(profileObjects(in.profiles) + generated);
  if (src.back() != '\n')
    src += "\n";
  out.source = src;
  return out;
}

} // namespace cgp
