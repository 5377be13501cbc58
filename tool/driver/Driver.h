//===- Driver.h - one run of cgp-ad over its input files ---------*- C++ -*-===//
//
// Parses each input with Clang (LibTooling), finds its kernels, lowers,
// differentiates and prints them, and writes the outputs only if every
// input succeeded, with a depfile and a stamp beside each input's outputs
// (see emit/OutputFiles.h). The command line itself is read in main.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_DRIVER_DRIVER_H
#define CGP_DRIVER_DRIVER_H

#include "planner/Planner.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <string>
#include <vector>

namespace cgp {

struct DriverOptions {
  std::string outputDir = ".";
  std::string strategy = "cgp";
  PlanOptions plan;
  bool explain = false;     // --explain: print the plan
  std::string planJsonPath; // --plan-json=FILE
  std::string reportPath;   // --report=FILE.html
  std::string profilePath;  // --profile=FILE.json (read by main; a dependency of every output)
  std::string executablePath; // to find the installed include/ folder
  /// The command line after the program name, for the stamp of the run:
  /// a rerun with the same command line, tool and file contents exits at once.
  std::vector<std::string> commandLine;
};

/// Exit status of the tool: 0 success, 1 errors in the input.
int runDriver(const clang::tooling::CompilationDatabase &db, const std::vector<std::string> &files,
              const DriverOptions &options);

/// The tool's version string ("0.1.0").
const char *toolVersion();

} // namespace cgp

#endif // CGP_DRIVER_DRIVER_H
