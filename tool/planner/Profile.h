//===- Profile.h - a profile of real runs, for the planner ------*- C++ -*-===//
//
// `--profile=FILE.json` reads a profile that code built with --instrument
// wrote (CGP_PROFILE; include/cgp/profile.h). The file format and its
// reader are the runtime's (runtime/profile_data.h), so the tool reads
// exactly what the runtime writes. The planner looks kernels up by their
// qualified name and file name, and loops and `if`s by line and column:
// a profile of an older version of the source matches only what did not
// move, and the rest falls back to the defaults.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_PLANNER_PROFILE_H
#define CGP_PLANNER_PROFILE_H

#include "ir/IR.h"
#include "profile_data.h"

#include <string>

namespace cgp {

using rt::KernelStats;
using rt::ProfileData;

/// Reads FILE.json; on failure returns false with the reason in `error`.
bool loadProfile(const std::string &path, ProfileData &out, std::string &error);

/// What `profile` says about `kernel`, or null.
const KernelStats *profileOf(const ProfileData *profile, const Function &kernel);

/// The name (with namespaces, "ns::f") and the file name (no folder) a
/// kernel is recorded under.
std::string profileKernelName(const Function &kernel);
std::string profileFileName(const Function &kernel);

} // namespace cgp

#endif // CGP_PLANNER_PROFILE_H
