// libFuzzer target: the profile reader (runtime/profile_file.cpp), which
// both the runtime (merging CGP_PROFILE) and cgp-ad (--profile) use on files
// from outside. Any input: no crash, no sanitizer report, no hang; and what
// it accepts, written back, reads the same and writes the same text.
#include "profile_data.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  cgp::rt::ProfileData profile, again;
  std::string error;
  if (!cgp::rt::parseProfile(text, profile, error)) {
    if (error.empty())
      std::abort(); // a refusal always says why
    return 0;
  }
  std::string printed = cgp::rt::printProfile(profile);
  if (!cgp::rt::parseProfile(printed, again, error) || cgp::rt::printProfile(again) != printed)
    std::abort();
  cgp::rt::mergeProfile(again, profile);
  return 0;
}
