//===- Emitter.h - generated functions to C++ text --------------*- C++ -*-===//
//
// The only part of cgp-ad that writes C++. It prints the generated
// functions (with names made unique per function), the declarations for
// the header, and assembles the translation unit: the input's own code
// under a #line marker, then the generated code, formatted by libFormat.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_EMIT_EMITTER_H
#define CGP_EMIT_EMITTER_H

#include "transform/Reverse.h"

#include <string>

namespace cgp {

struct EmitInput {
  std::string inputPath;      // the user's file, as given
  std::string inputText;      // its contents
  std::string outputDir;      // where the outputs go
  std::string sourceName;     // name.cgp.ext
  std::string headerName;     // name.cgp.h
  std::string toolVersion;
  std::vector<ProfileTable> profiles; // --instrument: the kernels' profile objects
};

struct EmitOutput {
  std::string source; // name.cgp.ext
  std::string header; // name.cgp.h
};

/// Prints one function (definition), for tests and the emitter.
std::string printDefinition(const Function &f);
/// Prints the declaration of one function, with its namespaces.
std::string printDeclaration(const Function &f);

EmitOutput emitTranslationUnit(const EmitInput &in, const GeneratedCode &code);

/// Formats C++ text with libFormat (LLVM style, 100 columns).
std::string formatCode(const std::string &code);

} // namespace cgp

#endif // CGP_EMIT_EMITTER_H
