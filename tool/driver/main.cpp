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
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

namespace cl = llvm::cl;

static cl::OptionCategory category("cgp-ad options");

static cl::opt<std::string> outputDir("o", cl::desc("Output folder (created if missing)"),
                                      cl::value_desc("DIR"), cl::init("."), cl::cat(category));

static cl::opt<std::string>
    strategy("strategy",
             cl::desc("What the reverse sweep stores: 'store-all' tapes every value the "
                      "reverse sweep needs; 'cgp' (the default) lets the planner recompute "
                      "cheap values instead (see --explain)"),
             cl::value_desc("cgp|store-all"), cl::init("cgp"), cl::cat(category));

static cl::opt<bool> explain("explain",
                             cl::desc("Print the plan: per kernel and loop, the values the "
                                      "reverse sweep needs, stored or recomputed, with the "
                                      "scores, the tape bytes and the recompute cost"),
                             cl::cat(category));

static cl::opt<std::string> planJson("plan-json", cl::desc("Write the plan as JSON to FILE"),
                                     cl::value_desc("FILE"), cl::cat(category));

static cl::opt<std::string> report("report",
                                   cl::desc("Write a self-contained HTML report of the kernels "
                                            "and the plan to FILE"),
                                   cl::value_desc("FILE.html"), cl::cat(category));

static cl::opt<std::string>
    memoryBudget("memory-budget",
                 cl::desc("Most bytes of tape and loop snapshots one call of a gradient may "
                          "hold (64MiB, 512KiB, 1GiB, plain bytes); CGP_MEMORY_BUDGET overrides "
                          "it at run time"),
                 cl::value_desc("SIZE"), cl::cat(category));

static cl::opt<std::string>
    weights("cgp-weights",
            cl::desc("The planner's score weights alpha (gradient relevance), beta (recompute "
                     "time), gamma (memory)"),
            cl::value_desc("A,B,G"), cl::init("0.6,0.3,0.1"), cl::cat(category));

static cl::opt<std::string>
    profile("profile",
            cl::desc("Plan with the trip counts and branch frequencies of a profile written by "
                     "code built with --instrument (CGP_PROFILE=FILE.json)"),
            cl::value_desc("FILE.json"), cl::cat(category));

static cl::opt<bool> instrument("instrument",
                                cl::desc("Generated code records a profile (trip counts, branch "
                                         "frequencies, time and tape bytes per loop) when run "
                                         "with CGP_PROFILE=FILE.json"),
                                cl::cat(category));

static cl::extrahelp moreHelp(R"(
Writes, for each input DIR/NAME.EXT, NAME.cgp.EXT (the input's code followed by
the gradients of the functions it marks with CGP_GRAD) and NAME.cgp.h (their
declarations) into the output folder.

Exit status: 0 success, 1 errors in the input, 2 bad command line.
Example:
  cgp-ad kernel.cpp -o gen -- -std=c++17
)");

static void printVersion(llvm::raw_ostream &os) {
  os << "cgp-ad " << cgp::toolVersion() << " (LLVM " << LLVM_VERSION_STRING << ")\n";
}

int main(int argc, const char **argv) {
  cl::SetVersionPrinter(printVersion);
  cl::HideUnrelatedOptions(category);
  // Before the parser cuts the flags after `--` off argv.
  std::vector<std::string> commandLine(argv + 1, argv + argc);
  auto parser = clang::tooling::CommonOptionsParser::create(argc, argv, category, cl::OneOrMore,
                                                            "cgp-ad: gradients of C++ kernels\n");
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
