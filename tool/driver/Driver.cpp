//===- Driver.cpp - one run of cgp-ad over its input files ----------------===//
//
// Each input is parsed with `-D__CGP_AD__=1` (so CGP_GRAD becomes an
// attribute), cgp-ad's own include folder and Clang's builtin headers, so
// the tool works from the build tree and once installed without being told
// where they are. Outputs of all inputs are kept in memory and written only
// when every input succeeded: a failing run leaves earlier outputs alone.
//
//===----------------------------------------------------------------------===//
#include "driver/Driver.h"

#include "emit/Emitter.h"
#include "emit/OutputFiles.h"
#include "report/Explain.h"
#include "frontend/Diagnoser.h"
#include "frontend/KernelFinder.h"
#include "frontend/Lowering.h"
#include "transform/Forward.h"
#include "transform/Reverse.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

namespace cgp {

const char *toolVersion() { return CGP_AD_VERSION; }

namespace {

struct Outputs {
  std::map<std::string, std::string> files; // path -> contents
  std::vector<std::string> explanations;    // --explain text, per input
  std::vector<std::string> planObjects;     // --plan-json object, per input
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
    lowering.setPullbacks(findPullbacks(ctx, diag));
    ReverseMode reverse(module, options_.plan);
    ForwardMode forward(module);
    GeneratedCode code;
    size_t forwardErrors = 0;
    for (const KernelRequest &request : findKernels(ctx, diag)) {
      Function *kernel = lowering.lowerKernel(request);
      if (!kernel)
        continue;
      if (request.mode == Mode::Forward) {
        if (!forward.differentiate(*kernel, code))
          for (; forwardErrors < forward.errors().size(); ++forwardErrors)
            reportAt(diag, ctx.getSourceManager(), forward.errors()[forwardErrors], *kernel);
        continue;
      }
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

class KernelAction : public clang::ASTFrontendAction {
public:
  KernelAction(const DriverOptions &options, Outputs &outputs)
      : options_(options), outputs_(outputs) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci,
                                                        llvm::StringRef file) override {
    return std::make_unique<KernelConsumer>(ci, file.str(), options_, outputs_);
  }

  void EndSourceFileAction() override {
    if (getCompilerInstance().getDiagnostics().hasErrorOccurred())
      outputs_.failed = true;
  }

private:
  const DriverOptions &options_;
  Outputs &outputs_;
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
    std::string stem = llvm::sys::path::stem(f).str() + ext;
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
  for (const auto &[path, contents] : outputs.files) {
    bool changed = false;
    if (llvm::Error e = writeFileIfChanged(path, contents, changed)) {
      llvm::errs() << "cgp-ad: error: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
  }
  for (const std::string &text : outputs.explanations)
    llvm::outs() << text;
  return 0;
}

} // namespace cgp
