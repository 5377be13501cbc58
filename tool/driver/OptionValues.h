//===- OptionValues.h - values of cgp-ad's own options ----------*- C++ -*-===//
//
// The parsers of option values that llvm::cl leaves as text (sizes are read
// by the runtime's parseByteSize, include/cgp/checkpoint.h, so that
// --memory-budget and CGP_MEMORY_BUDGET agree). Pure functions of the text,
// fuzzed by tests/libfuzzer.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_DRIVER_OPTIONVALUES_H
#define CGP_DRIVER_OPTIONVALUES_H

#include <string>

namespace cgp {

/// Reads "A,B,G" (three numbers >= 0 and <= 1e6, spaces around them
/// allowed) into the weights. Returns false, leaving them alone, otherwise.
bool parseWeights(const std::string &text, double &alpha, double &beta, double &gamma);

} // namespace cgp

#endif // CGP_DRIVER_OPTIONVALUES_H
