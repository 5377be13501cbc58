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
                      "reverse sweep needs; 'cgp' (the default) is the planner, which today "
                      "makes the same plan as store-all"),
             cl::value_desc("cgp|store-all"), cl::init("cgp"), cl::cat(category));

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
  options.outputDir = outputDir;
  options.strategy = strategy;
  static int anchor;
  options.executablePath = llvm::sys::fs::getMainExecutable(argv[0], &anchor);
  return cgp::runDriver(parser->getCompilations(), parser->getSourcePathList(), options);
}
