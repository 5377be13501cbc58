// profile_data.h - a profile as data, and its file format (JSON), for the
// runtime's writer (profile.cpp) and the unit tests. Internal to cgp_rt.
//
// The file (docs/reference.md, "Profiles"):
//   {"format": "cgp-ad profile", "version": 1, "kernels": [
//     {"kernel": K, "file": F, "calls": N,
//      "loops": [{"line", "column", "starts", "iterations", "min_trips",
//                 "max_trips", "seconds", "tape_bytes"}, ...],
//      "branches": [{"line", "column", "then", "else"}, ...]}, ...]}
// Kernels are told apart by kernel name and file name, sites by line and
// column. Merging adds counts, seconds and bytes, and combines fewest and
// most trips.
#ifndef CGP_RT_PROFILE_DATA_H
#define CGP_RT_PROFILE_DATA_H

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace cgp {
namespace rt {

struct LoopStats {
  std::uint64_t starts = 0, iterations = 0;
  std::uint64_t minTrips = 0, maxTrips = 0; // meaningful when starts > 0
  double seconds = 0;
  std::uint64_t tapeBytes = 0;
};

struct BranchStats {
  std::uint64_t thenCount = 0, elseCount = 0;
};

using SitePosition = std::pair<int, int>; // line, column

struct KernelStats {
  std::uint64_t calls = 0;
  std::map<SitePosition, LoopStats> loops;
  std::map<SitePosition, BranchStats> branches;
};

/// Kernels by (kernel name, file name).
using ProfileData = std::map<std::pair<std::string, std::string>, KernelStats>;

/// Reads a profile file's text. On failure returns false and says why.
bool parseProfile(const std::string &text, ProfileData &out, std::string &error);

/// The file's text for `data` (stable order: by kernel, file, line, column).
std::string printProfile(const ProfileData &data);

/// Adds `from` into `into`.
void mergeProfile(ProfileData &into, const ProfileData &from);

} // namespace rt
} // namespace cgp

#endif // CGP_RT_PROFILE_DATA_H
