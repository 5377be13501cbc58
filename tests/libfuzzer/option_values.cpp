// libFuzzer target: the values of cgp-ad's options that it parses itself,
// --memory-budget=SIZE (and CGP_MEMORY_BUDGET: cgp::rt::parseByteSize) and
// --cgp-weights=A,B,G (cgp::parseWeights). Any text: no crash, no sanitizer
// report; what is accepted is in range.
#include "cgp/checkpoint.h"
#include "driver/OptionValues.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::int64_t bytes = -1;
  if (cgp::rt::parseByteSize(text.c_str(), bytes) && (bytes < 0 || bytes > (std::int64_t(1) << 62)))
    std::abort();
  double a = -1, b = -1, g = -1;
  if (cgp::parseWeights(text, a, b, g) &&
      !(a >= 0 && a <= 1e6 && b >= 0 && b <= 1e6 && g >= 0 && g <= 1e6))
    std::abort();
  return 0;
}
