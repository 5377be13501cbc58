// libFuzzer target: the annotation parser (tool/frontend/Annotations.cpp):
// the text of an annotate attribute and the parameter list of CGP_GRAD and
// CGP_JVP, which come straight from the user's source. Any text: no crash,
// no sanitizer report; an accepted list holds identifiers only, and joined
// again it reads the same.
#include "frontend/Annotations.h"

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  cgp::Annotation a = cgp::classifyAnnotation(text);
  std::vector<std::string> names, again;
  if (!cgp::parseNameList(a.argument, names))
    return 0;
  std::string joined;
  for (const std::string &n : names) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0])))
      std::abort();
    for (char c : n)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        std::abort();
    joined += (joined.empty() ? "" : ", ") + n;
  }
  if (!cgp::parseNameList(joined, again) || again != names)
    std::abort();
  if (cgp::normaliseNameList(joined) != cgp::normaliseNameList(cgp::normaliseNameList(joined)))
    std::abort();
  return 0;
}
