//===- Summaries.h - what each function does to its pointers ----*- C++ -*-===//
//
// A caller's analyses need to know, for each helper it calls, which pointer
// parameters the helper reads through and which it writes through, without
// looking inside. These summaries include what nested calls do; functions
// that call each other (recursion) get theirs together, by rounds until
// none changes.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_SUMMARIES_H
#define CGP_ANALYSIS_SUMMARIES_H

#include "ir/IR.h"

#include <map>
#include <vector>

namespace cgp {

struct FunctionSummary {
  std::vector<bool> readsParam;  // the pointee of parameter i is read
  std::vector<bool> writesParam; // the pointee of parameter i is written
};

class Summaries {
public:
  /// The summary of `f` (computed on first use, with its callees').
  const FunctionSummary &of(const Function *f);

private:
  std::map<const Function *, FunctionSummary> known_;
};

/// The calls of `s` and its nested statements, in order.
std::vector<ExprRef> callsIn(const StmtRef &s);

} // namespace cgp

#endif // CGP_ANALYSIS_SUMMARIES_H
