//===- Annotations.h - the text of cgp-ad's annotate attributes -*- C++ -*-===//
//
// Under cgp-ad, CGP_GRAD(p, q) becomes __attribute__((annotate("cgp_grad:p, q")))
// (include/cgp/cgp.h): the macro stringifies its arguments, so the tool gets
// the list as text and parses it here. Pure functions of the text, so that
// they can be tested and fuzzed without Clang (tests/libfuzzer).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_FRONTEND_ANNOTATIONS_H
#define CGP_FRONTEND_ANNOTATIONS_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace cgp {

enum class AnnotationKind { Other, Grad, Jvp, PullbackOf };

struct Annotation {
  AnnotationKind kind = AnnotationKind::Other;
  std::string argument; // the macro's arguments as written (PullbackOf: trimmed)
};

/// What an annotate attribute's text says (Other: not cgp-ad's).
Annotation classifyAnnotation(llvm::StringRef text);

/// Reads the parameter list of CGP_GRAD or CGP_JVP into `names`: an empty
/// list (all floating parameters) gives no names; otherwise identifiers
/// separated by commas. Returns false for anything else.
bool parseNameList(llvm::StringRef list, std::vector<std::string> &names);

/// The list without white space, to compare two markers of one function.
std::string normaliseNameList(llvm::StringRef list);

} // namespace cgp

#endif // CGP_FRONTEND_ANNOTATIONS_H
