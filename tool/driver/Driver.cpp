//===- Driver.cpp - one run of cgp-ad over its input files ----------------===//
//
// Each input is parsed with `-D__CGP_AD__=1` (so CGP_GRAD becomes an
// attribute), cgp-ad's own include folder and Clang's builtin headers, so
// the tool works from the build tree and once installed without being told
// where they are. Outputs of all inputs are kept in memory and written only
// when every input succeeded: a failing run leaves earlier outputs alone.
//
// Incremental runs: beside each input's outputs go NAME.cgp.d (a depfile:
// the outputs depend on the input and every file it included, system
// headers too) and NAME.cgp.stamp (a hash of the tool, the command line and
// the input's compile command, and of the contents of every file the run
// read or wrote). A run whose stamps all still match exits before parsing,
// touching nothing; --explain always parses, since its output is the point.
//
//===----------------------------------------------------------------------===//
#include "driver/Driver.h"

#include "emit/Emitter.h"
#include "emit/OutputFiles.h"
#include "report/Explain.h"
#include "frontend/Diagnoser.h"
#include "frontend/KernelFinder.h"
#include "frontend/Lowering.h"
#include "transform/Reverse.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>
#include <set>

namespace cgp {

const char *toolVersion() { return CGP_AD_VERSION; }

namespace {

struct Outputs {
  std::map<std::string, std::string> files; // path -> contents
  std::vector<std::string> explanations;    // --explain text, per input
  std::vector<std::string> planObjects;     // --plan-json object, per input
  /// Per input (by file identity: a compilation database may name it by
  /// another path): the files it read, itself first, then every include, as
  /// absolute paths with the hash of the contents Clang parsed.
  std::map<llvm::sys::fs::UniqueID, std::vector<std::pair<uint64_t, std::string>>> reads;
  bool failed = false;
};

std::string outputPath(const std::string &dir, const std::string &input, const std::string &tail) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, llvm::sys::path::stem(input) + tail);
  return std::string(path);
}

/// Reports an error found after lowering, at the source position it names
/// (or at the kernel, for code the passes made).
clang::SourceLocation locationOf(clang::SourceManager &sm, const SourcePos &pos) {
  if (!pos.file.empty())
    if (auto file = sm.getFileManager().getOptionalFileRef(pos.file))
      return sm.translateFileLineCol(*file, pos.line, pos.column);
  return {};
}

void reportAt(Diagnoser &diag, clang::SourceManager &sm, const TransformError &e,
              const Function &kernel) {
  SourcePos pos = e.pos.file.empty() ? kernel.pos : e.pos;
  diag.error(locationOf(sm, pos), "cannot differentiate '" + kernel.name + "': " + e.message);
}

class KernelConsumer : public clang::ASTConsumer {
public:
  KernelConsumer(clang::CompilerInstance &ci, std::string input, const DriverOptions &options,
                 Outputs &outputs)
      : ci_(ci), input_(std::move(input)), options_(options), outputs_(outputs) {}

  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    clang::DiagnosticsEngine &engine = ci_.getDiagnostics();
    if (engine.hasErrorOccurred())
      return; // Clang already reported the input's own errors
    Diagnoser diag(engine);
    Module module;
    Lowering lowering(ctx, diag, module);
    ReverseMode reverse(module, options_.plan);
    GeneratedCode code;
    for (const KernelRequest &request : findKernels(ctx, diag)) {
      Function *kernel = lowering.lowerKernel(request);
      if (!kernel)
        continue;
      if (!reverse.differentiate(*kernel, code))
        for (const TransformError &e : reverse.errors())
          reportAt(diag, ctx.getSourceManager(), e, *kernel);
    }
    for (const TransformError &w : reverse.warnings())
      diag.warning(locationOf(ctx.getSourceManager(), w.pos), w.message);
    if (diag.hasErrors())
      return;
    InputPlans plans{input_, code.plans};
    if (options_.explain)
      outputs_.explanations.push_back(explainText(plans, options_.plan));
    if (!options_.planJsonPath.empty())
      outputs_.planObjects.push_back(inputPlanJson(plans));
    clang::SourceManager &sm = ctx.getSourceManager();
    EmitInput in;
    in.inputPath = input_;
    in.inputText = sm.getBufferData(sm.getMainFileID()).str();
    in.outputDir = options_.outputDir;
    std::string ext = llvm::sys::path::extension(input_).str();
    in.sourceName = llvm::sys::path::stem(input_).str() + ".cgp" + ext;
    in.headerName = llvm::sys::path::stem(input_).str() + ".cgp.h";
    in.toolVersion = toolVersion();
    EmitOutput out = emitTranslationUnit(in, code);
    outputs_.files[outputPath(options_.outputDir, input_, ".cgp" + ext)] = out.source;
    outputs_.files[outputPath(options_.outputDir, input_, ".cgp.h")] = out.header;
  }

private:
  clang::CompilerInstance &ci_;
  std::string input_;
  const DriverOptions &options_;
  Outputs &outputs_;
};

/// Every file the preprocessor enters or skips (include guards, #pragma
/// once), system headers included: a new libstdc++ or Clang may change what
/// the input means, and the cost is a few hundred more files to stat.
class IncludeCollector : public clang::DependencyCollector {
public:
  bool needSystemDependencies() override { return true; }
};

class KernelAction : public clang::ASTFrontendAction {
public:
  KernelAction(const DriverOptions &options, Outputs &outputs)
      : options_(options), outputs_(outputs) {}

  bool BeginSourceFileAction(clang::CompilerInstance &ci) override {
    includes_ = std::make_shared<IncludeCollector>();
    includes_->attachToPreprocessor(ci.getPreprocessor());
    return true;
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci,
                                                        llvm::StringRef file) override {
    return std::make_unique<KernelConsumer>(ci, file.str(), options_, outputs_);
  }

  void EndSourceFileAction() override {
    clang::CompilerInstance &ci = getCompilerInstance();
    if (ci.getDiagnostics().hasErrorOccurred())
      outputs_.failed = true;
    else
      recordReads(ci);
  }

private:
  /// The input and its includes, each hashed from the very text Clang read
  /// (so an edit during the run cannot hide behind the stamp).
  void recordReads(clang::CompilerInstance &ci) {
    clang::SourceManager &sm = ci.getSourceManager();
    clang::FileManager &fm = ci.getFileManager();
    clang::OptionalFileEntryRef main = sm.getFileEntryRefForID(sm.getMainFileID());
    if (!main)
      return; // no stamp then: the run is redone next time
    auto &reads = outputs_.reads[main->getUniqueID()];
    std::vector<std::string> names{getCurrentFile().str()};
    for (const auto &read : reads) // a second compile command of the same input
      names.push_back(read.second);
    reads.clear();
    for (const std::string &name : includes_->getDependencies())
      names.push_back(name);
    std::set<std::string> seen;
    for (const std::string &name : names) {
      llvm::SmallString<256> path(name);
      fm.makeAbsolutePath(path);
      llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/false);
      if (!seen.insert(std::string(path)).second)
        continue;
      uint64_t hash = 0;
      if (auto file = fm.getOptionalFileRef(name)) {
        if (auto buffer = sm.getMemoryBufferForFileOrNone(*file))
          hash = contentHash(buffer->getBuffer());
      } else if (auto buffer = llvm::MemoryBuffer::getFile(path)) {
        hash = contentHash((*buffer)->getBuffer());
      }
      reads.emplace_back(hash, std::string(path));
    }
  }

  const DriverOptions &options_;
  Outputs &outputs_;
  std::shared_ptr<IncludeCollector> includes_;
};

class KernelActionFactory : public clang::tooling::FrontendActionFactory {
public:
  KernelActionFactory(const DriverOptions &options, Outputs &outputs)
      : options_(options), outputs_(outputs) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<KernelAction>(options_, outputs_);
  }

private:
  const DriverOptions &options_;
  Outputs &outputs_;
};

/// Prints diagnostics like Clang and remembers whether any was an error,
/// so that errors Clang's driver reports about the compiler flags (an
/// unknown argument, say) count too, not only those of the parse.
class ErrorRecordingPrinter : public clang::TextDiagnosticPrinter {
public:
  ErrorRecordingPrinter()
      : clang::TextDiagnosticPrinter(llvm::errs(), new clang::DiagnosticOptions()) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &info) override {
    if (level >= clang::DiagnosticsEngine::Error)
      sawError = true;
    clang::TextDiagnosticPrinter::HandleDiagnostic(level, info);
  }
  bool sawError = false;
};

bool exists(const std::string &path) { return llvm::sys::fs::exists(path); }

/// cgp-ad's own headers: beside the installed tool, else in the source tree.
std::string includeDir(const std::string &exe) {
  llvm::SmallString<256> installed(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(installed, "include");
  if (exists(std::string(installed) + "/cgp/cgp.h"))
    return std::string(installed);
  return CGP_AD_SOURCE_INCLUDE_DIR;
}

std::string absolutePath(const std::string &path) {
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/false);
  return std::string(absolute);
}

/// The hash of everything besides file contents that decides a run's
/// outputs for `input`: the tool (version, LLVM, the executable's path, size
/// and time, so a rebuilt tool reruns), the current folder, the whole
/// command line, the include-path variables and the input's compile command.
uint64_t runKey(const clang::tooling::CompilationDatabase &db, const std::string &input,
                const DriverOptions &options) {
  std::string key;
  auto add = [&key](llvm::StringRef part) {
    key += part;
    key += '\0';
  };
  add("cgp-ad");
  add(toolVersion());
  add(LLVM_VERSION_STRING);
  add(options.executablePath);
  llvm::sys::fs::file_status exe;
  if (!llvm::sys::fs::status(options.executablePath, exe)) {
    add(std::to_string(exe.getSize()));
    add(std::to_string(exe.getLastModificationTime().time_since_epoch().count()));
  }
  llvm::SmallString<256> cwd;
  if (!llvm::sys::fs::current_path(cwd))
    add(cwd);
  add("argv");
  for (const std::string &arg : options.commandLine)
    add(arg);
  for (const char *variable : {"CPATH", "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH"}) {
    const char *value = std::getenv(variable);
    add(value ? std::string(variable) + "=" + value : std::string(variable) + " unset");
  }
  add(input);
  for (const clang::tooling::CompileCommand &command : db.getCompileCommands(input)) {
    add("command");
    add(command.Directory);
    add(command.Filename);
    for (const std::string &arg : command.CommandLine)
      add(arg);
  }
  return contentHash(key);
}

} // namespace

int runDriver(const clang::tooling::CompilationDatabase &db, const std::vector<std::string> &files,
              const DriverOptions &options) {
  std::vector<std::string> inputs;
  std::map<std::string, std::string> seenStems;
  for (const std::string &f : files) {
    if (!exists(f) || llvm::sys::fs::is_directory(f)) {
      llvm::errs() << "cgp-ad: error: no such file: '" << f << "'\n";
      return 1;
    }
    std::string ext = llvm::sys::path::extension(f).str();
    if (ext != ".cpp" && ext != ".cc" && ext != ".cxx" && ext != ".cu") {
      llvm::errs() << "cgp-ad: error: '" << f
                   << "' is not a C++ or CUDA source (.cpp, .cc, .cxx, .cu)\n";
      return 1;
    }
    if (ext == ".cu") {
      llvm::errs() << "cgp-ad: error: '" << f << "': CUDA sources are not supported yet\n";
      return 1;
    }
    // NAME.cgp.h, NAME.cgp.d and NAME.cgp.stamp do not carry the extension.
    std::string stem = llvm::sys::path::stem(f).str();
    if (seenStems.count(stem)) {
      llvm::errs() << "cgp-ad: error: '" << f << "' and '" << seenStems[stem]
                   << "' would write the same outputs; run them with different -o folders\n";
      return 1;
    }
    seenStems[stem] = f;
    llvm::SmallString<256> absolute(f);
    llvm::sys::fs::make_absolute(absolute);
    inputs.push_back(std::string(absolute));
  }

  // The fast path: every input's stamp matches, so the outputs are what this
  // run would write. --explain must print, so it always runs.
  std::map<std::string, uint64_t> keys;
  for (const std::string &input : inputs)
    keys[input] = runKey(db, input, options);
  if (!options.explain) {
    bool upToDate = true;
    for (const std::string &input : inputs)
      upToDate = upToDate &&
                 stampMatches(outputPath(options.outputDir, input, ".cgp.stamp"), keys[input]);
    if (upToDate)
      return 0;
  }

  clang::tooling::ClangTool tool(db, inputs);
  tool.setPrintErrorMessage(false); // the diagnostics say it already
  ErrorRecordingPrinter printer;
  tool.setDiagnosticConsumer(&printer);
  std::vector<std::string> extra = {"-D__CGP_AD__=1", "-I" + includeDir(options.executablePath)};
  if (exists(CGP_AD_CLANG_RESOURCE_DIR))
    extra.push_back("-resource-dir=" CGP_AD_CLANG_RESOURCE_DIR);
  tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      extra, clang::tooling::ArgumentInsertPosition::END));

  Outputs outputs;
  KernelActionFactory factory(options, outputs);
  int status = tool.run(&factory);
  if (status != 0 || outputs.failed || printer.sawError)
    return 1;

  if (std::error_code ec = llvm::sys::fs::create_directories(options.outputDir)) {
    llvm::errs() << "cgp-ad: error: cannot create the output folder '" << options.outputDir
                 << "': " << ec.message() << "\n";
    return 1;
  }
  if (!options.planJsonPath.empty())
    outputs.files[options.planJsonPath] =
        planDocument(outputs.planObjects, options.plan, toolVersion());
  // Depfiles: the two outputs depend on the input and all it included.
  std::map<std::string, std::vector<std::pair<uint64_t, std::string>>> readsOf;
  for (const std::string &input : inputs) {
    llvm::sys::fs::UniqueID id;
    if (!llvm::sys::fs::getUniqueID(input, id) && outputs.reads.count(id))
      readsOf[input] = outputs.reads[id];
  }
  for (const std::string &input : inputs) {
    std::string ext = llvm::sys::path::extension(input).str();
    std::vector<std::string> prerequisites{input};
    for (const auto &read : readsOf[input])
      if (read.second != input)
        prerequisites.push_back(read.second);
    outputs.files[outputPath(options.outputDir, input, ".cgp.d")] =
        depfileText({outputPath(options.outputDir, input, ".cgp" + ext),
                     outputPath(options.outputDir, input, ".cgp.h")},
                    prerequisites);
  }
  auto write = [](const std::string &path, const std::string &contents) {
    bool changed = false;
    if (llvm::Error e = writeFileIfChanged(path, contents, changed)) {
      llvm::errs() << "cgp-ad: error: " << llvm::toString(std::move(e)) << "\n";
      return false;
    }
    return true;
  };
  for (const auto &[path, contents] : outputs.files)
    if (!write(path, contents))
      return 1;
  // Stamps last: each lists what the input read and every file this run
  // wrote, so a stamp never vouches for outputs that are not on disk.
  for (const std::string &input : inputs) {
    std::string stampPath = outputPath(options.outputDir, input, ".cgp.stamp");
    if (readsOf[input].empty()) { // cannot vouch for this input: no stamp
      llvm::sys::fs::remove(stampPath);
      continue;
    }
    Stamp stamp;
    stamp.key = keys[input];
    stamp.files = readsOf[input];
    for (const auto &[path, contents] : outputs.files)
      stamp.files.emplace_back(contentHash(contents), absolutePath(path));
    if (!write(stampPath, stampText(stamp)))
      return 1;
  }
  for (const std::string &text : outputs.explanations)
    llvm::outs() << text;
  return 0;
}

} // namespace cgp
