// cgp/profile.h - what code generated with `cgp-ad --instrument` calls to
// record a profile of real runs.
//
// Each instrumented kernel has one KernelProfile (a static object of the
// generated file) listing its loops and if statements by source position.
// When the program runs with CGP_PROFILE=FILE.json, the generated code
// counts the kernel's calls, each loop's starts, iterations (in all, fewest
// and most per start), the seconds it takes and the tape bytes it pushes,
// and how often each arm of each `if` runs; at exit the runtime writes
// FILE.json, merged with what FILE.json already holds (counts add, fewest
// and most combine). `cgp-ad --profile=FILE.json` then plans with the trip
// counts and branch frequencies measured instead of its defaults. Without
// CGP_PROFILE each hook costs one test of a flag.
//
// Iterations that the reverse sweep replays from a loop snapshot, and the
// probe iteration a loop runs to measure its tape, are not counted: the
// profile describes the kernel's own control flow.
#ifndef CGP_PROFILE_H
#define CGP_PROFILE_H

#include <cstdint>
#include <initializer_list>

namespace cgp {
namespace rt {

enum class ProfileSiteKind : unsigned char { Loop, Branch };

/// A loop or an if statement of a kernel, where it starts in the source.
struct ProfileSiteInfo {
  ProfileSiteKind kind;
  int line;
  int column;
};

struct KernelRecord; // the counters (profile.cpp)

class KernelProfile {
public:
  /// `file` is the input's file name (no folder); `sites` are numbered from
  /// 0 in the order given, and the hooks name them by that number.
  KernelProfile(const char *kernel, const char *file, std::initializer_list<ProfileSiteInfo> sites);
  KernelProfile(const KernelProfile &) = delete;
  KernelProfile &operator=(const KernelProfile &) = delete;

  void callBegin() {
    if (record_)
      callBeginSlow();
  }
  void loopEnter(int site) {
    if (record_)
      loopEnterSlow(site);
  }
  void iterate(int site) {
    if (record_)
      iterateSlow(site);
  }
  void loopExit(int site) {
    if (record_)
      loopExitSlow(site);
  }
  void branch(int site, bool thenArm) {
    if (record_)
      branchSlow(site, thenArm);
  }

private:
  void callBeginSlow();
  void loopEnterSlow(int site);
  void iterateSlow(int site);
  void loopExitSlow(int site);
  void branchSlow(int site, bool thenArm);

  KernelRecord *record_ = nullptr; // null unless CGP_PROFILE is set
};

/// Writes what was counted since the last write to CGP_PROFILE now (merged
/// with the file), as happens at exit. Returns false, with a message on
/// stderr, if it cannot. Does nothing and returns true when CGP_PROFILE is
/// unset or no instrumented kernel was called since the last write.
bool writeProfile();

namespace detail {
/// Hooks are ignored while muted (loop replays and probes; checkpoint.cpp).
void muteProfile(int delta);
} // namespace detail

} // namespace rt
} // namespace cgp

#endif // CGP_PROFILE_H
