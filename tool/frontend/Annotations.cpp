//===- Annotations.cpp - the text of cgp-ad's annotate attributes ---------===//
#include "frontend/Annotations.h"

#include "llvm/ADT/SmallVector.h"

#include <cctype>

namespace cgp {
namespace {

constexpr llvm::StringLiteral kGradPrefix = "cgp_grad:";
constexpr llvm::StringLiteral kJvpPrefix = "cgp_jvp:";
constexpr llvm::StringLiteral kPullbackPrefix = "cgp_pullback_of:";

bool isIdentifier(llvm::StringRef s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

} // namespace

Annotation classifyAnnotation(llvm::StringRef text) {
  Annotation a;
  if (text.starts_with(kPullbackPrefix)) {
    a.kind = AnnotationKind::PullbackOf;
    a.argument = text.drop_front(kPullbackPrefix.size()).trim().str();
  } else if (text.starts_with(kGradPrefix)) {
    a.kind = AnnotationKind::Grad;
    a.argument = text.drop_front(kGradPrefix.size()).str();
  } else if (text.starts_with(kJvpPrefix)) {
    a.kind = AnnotationKind::Jvp;
    a.argument = text.drop_front(kJvpPrefix.size()).str();
  }
  return a;
}

bool parseNameList(llvm::StringRef list, std::vector<std::string> &names) {
  names.clear();
  if (list.trim().empty())
    return true;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  list.split(parts, ',');
  for (llvm::StringRef raw : parts) {
    llvm::StringRef part = raw.trim();
    if (!isIdentifier(part)) {
      names.clear();
      return false;
    }
    names.push_back(part.str());
  }
  return true;
}

std::string normaliseNameList(llvm::StringRef list) {
  std::string out;
  for (char c : list)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
      out += c;
  return out;
}

} // namespace cgp
