//===- main.cpp - the cgp-ad command line ---------------------------------===//
//
//   cgp-ad [options] FILE... [-- COMPILER-FLAGS]
//
// Options follow LibTooling's conventions (compiler flags after `--`, or
// `-p BUILD_DIR` for a compile_commands.json). A bad command line exits
// with status 2; errors in the input with 1 (interface.md section 2).
//
//===----------------------------------------------------------------------===//
#include "driver/Driver.h"
#include "driver/OptionValues.h"
#include "planner/Profile.h"

#include "cgp/checkpoint.h"

#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace cl = llvm::cl;

static cl::OptionCategory category("cgp-ad options");

// Each description fits in a line of `--help`; the epilogue says the rest.
static cl::opt<std::string> outputDir("o", cl::desc("Output folder (created if missing)"),
                                      cl::value_desc("DIR"), cl::init("."), cl::cat(category));

static cl::opt<std::string>
    strategy("strategy", cl::desc("'cgp': the planner decides; 'store-all': tape every value"),
             cl::value_desc("cgp|store-all"), cl::init("cgp"), cl::cat(category));

static cl::opt<bool> explain("explain",
                             cl::desc("Print the plan: what is stored or recomputed, and why"),
                             cl::cat(category));

static cl::opt<std::string> planJson("plan-json", cl::desc("Write the plan as JSON to FILE"),
                                     cl::value_desc("FILE"), cl::cat(category));

static cl::opt<std::string> report("report",
                                   cl::desc("Write a self-contained HTML report of the plan"),
                                   cl::value_desc("FILE.html"), cl::cat(category));

static cl::opt<std::string>
    memoryBudget("memory-budget", cl::desc("Most bytes of tape and snapshots a gradient may hold"),
                 cl::value_desc("SIZE"), cl::cat(category));

static cl::opt<std::string> weights("cgp-weights",
                                    cl::desc("The planner's score weights (default 0.6,0.3,0.1)"),
                                    cl::value_desc("A,B,G"), cl::init("0.6,0.3,0.1"),
                                    cl::cat(category));

static cl::opt<std::string>
    profile("profile", cl::desc("Plan with a profile written by code built with --instrument"),
            cl::value_desc("FILE.json"), cl::cat(category));

static cl::opt<bool> instrument("instrument",
                                cl::desc("Generated code records a profile (see CGP_PROFILE)"),
                                cl::cat(category));

/// What `--help` prints after the options.
static const char *const kHelpEpilogue = R"(
Writes, for each input DIR/NAME.EXT (.cpp, .cc, .cxx, .cu), NAME.cgp.EXT (the
input's code followed by the gradients of the functions it marks with
CGP_GRAD or CGP_JVP) and NAME.cgp.h (their declarations) into the output
folder. Compiler flags follow `--`, or come from -p BUILD_DIR's
compile_commands.json; with neither, from a compile_commands.json beside the
input or above it, else the input is parsed without flags.

  --memory-budget=SIZE   64MiB, 512KiB, 1GiB or plain bytes
  --cgp-weights=A,B,G    alpha (gradient relevance), beta (recompute time),
                         gamma (memory) of the score alpha*G + beta*T - gamma*M

Exit status: 0 success, 1 errors in the input, 2 bad command line.

Environment of the generated code at run time:
  CGP_MEMORY_BUDGET=SIZE  the budget of gradients built with --memory-budget
  CGP_STATS=1             at exit, one line of tape and call figures on stderr
  CGP_DEBUG=1             what the checkpointed loops decide, on stderr
  CGP_PROFILE=FILE.json   where code built with --instrument writes its profile

Example:
  cgp-ad kernel.cpp -o gen -- -std=c++17
)";

/// argv with an empty `--` added when it names neither compiler flags
/// (`--`) nor a build folder (`-p`) and no compile_commands.json lies
/// beside the first input or above it: LibTooling would otherwise print
/// three lines about a missing compilation database before running without
/// flags, which is what the empty `--` asks for.
static std::vector<const char *> withFlagsGiven(int argc, const char **argv) {
  std::vector<const char *> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a == "--" || a == "-p" || a.starts_with("-p=") || a == "--p" || a.starts_with("--p="))
      return args;
  }
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a.starts_with("-") || !llvm::sys::fs::is_regular_file(a))
      continue;
    std::string why;
    if (clang::tooling::CompilationDatabase::autoDetectFromSource(a, why))
      return args; // LibTooling finds it again, silently
    break;
  }
  args.push_back("--");
  return args;
}

static void printVersion(llvm::raw_ostream &os) {
  os << "cgp-ad " << cgp::toolVersion() << " (LLVM " << LLVM_VERSION_STRING << ")\n";
}

/// True when the command line asks for the help text.
static bool wantsHelp(int argc, const char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a == "--")
      return false;
    if (a == "--help" || a == "-help" || a == "-h")
      return true;
  }
  return false;
}

/// `--help`: LibTooling's text, with a usage line that shows `--` and a
/// description of -p in this tool's words.
static int printHelp(const char *program, const char *overview) {
  const char *registration[] = {program, "input.cpp", "--"};
  int count = 3;
  auto parser = clang::tooling::CommonOptionsParser::create(count, registration, category,
                                                            cl::OneOrMore, overview);
  if (!parser)
    return 2;
  for (cl::Option *positional : cl::SubCommand::getTopLevel().PositionalOpts)
    positional->setDescription("FILE... [-- <compiler flags>]");
  if (cl::Option *buildPath = cl::getRegisteredOptions().lookup("p")) {
    buildPath->setDescription("Read compiler flags from BUILD_DIR/compile_commands.json");
    buildPath->setValueStr("BUILD_DIR");
  }
  cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
  llvm::outs() << kHelpEpilogue;
  return 0;
}

int main(int argc, const char **argv) {
  cl::SetVersionPrinter(printVersion);
  cl::HideUnrelatedOptions(category);
  const char *overview = "cgp-ad: gradients of C++ and CUDA kernels\n";
  if (wantsHelp(argc, argv))
    return printHelp(argv[0], overview);
  // Before the parser cuts the flags after `--` off argv.
  std::vector<std::string> commandLine(argv + 1, argv + argc);
  std::vector<const char *> args = withFlagsGiven(argc, argv);
  int argCount = static_cast<int>(args.size());
  auto parser = clang::tooling::CommonOptionsParser::create(
      argCount, args.data(), category, cl::OneOrMore, overview);
  if (!parser) {
    llvm::errs() << llvm::toString(parser.takeError());
    return 2;
  }
  if (strategy != "cgp" && strategy != "store-all") {
    llvm::errs() << "cgp-ad: error: unknown strategy '" << strategy
                 << "' (expected 'cgp' or 'store-all')\n";
    return 2;
  }
  if (outputDir.empty()) {
    llvm::errs() << "cgp-ad: error: -o needs a folder\n";
    return 2;
  }

  cgp::DriverOptions options;
  if (!cgp::parseWeights(weights, options.plan.alpha, options.plan.beta, options.plan.gamma)) {
    llvm::errs() << "cgp-ad: error: --cgp-weights takes three numbers >= 0 separated by "
                    "commas (alpha,beta,gamma), not '"
                 << weights << "'\n";
    return 2;
  }
  if (memoryBudget.getNumOccurrences() > 0 &&
      !cgp::rt::parseByteSize(memoryBudget.c_str(), options.plan.memoryBudget)) {
    llvm::errs() << "cgp-ad: error: --memory-budget takes a size such as 64MiB, 512KiB, 1GiB "
                    "or a number of bytes, not '"
                 << memoryBudget << "'\n";
    return 2;
  }
  if (profile.getNumOccurrences() > 0) {
    auto data = std::make_shared<cgp::ProfileData>();
    std::string why;
    if (!cgp::loadProfile(profile, *data, why)) {
      llvm::errs() << "cgp-ad: error: cannot use the profile '" << profile << "': " << why << "\n";
      return 1;
    }
    options.plan.profile = data;
    options.profilePath = profile;
  }
  options.plan.instrument = instrument;
  options.explain = explain;
  options.planJsonPath = planJson;
  options.reportPath = report;
  options.outputDir = outputDir;
  options.strategy = strategy;
  options.plan.storeAll = strategy == "store-all";
  static int anchor;
  options.executablePath = llvm::sys::fs::getMainExecutable(argv[0], &anchor);
  options.commandLine = std::move(commandLine);
  return cgp::runDriver(parser->getCompilations(), parser->getSourcePathList(), options);
}
