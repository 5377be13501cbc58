// Unit tests of profiles: the file format (read, write, merge, and the
// errors a malformed file gets) and the counting of KernelProfile, muted
// while loop iterations are replayed.
#include "cgp/checkpoint.h"
#include "cgp/profile.h"
#include "profile_data.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace cgp::rt;

namespace {

ProfileData sample() {
  ProfileData d;
  KernelStats &k = d[{"ns::rnn", "rnn.cpp"}];
  k.calls = 3;
  LoopStats l;
  l.starts = 3;
  l.iterations = 300;
  l.minTrips = 50;
  l.maxTrips = 150;
  l.seconds = 0.25;
  l.tapeBytes = 4096;
  k.loops[{12, 3}] = l;
  k.branches[{20, 7}] = BranchStats{10, 290};
  return d;
}

std::string readError(const std::string &text) {
  ProfileData d;
  std::string error;
  bool ok = parseProfile(text, d, error);
  return ok ? "accepted" : error;
}

} // namespace

TEST_CASE("a profile survives writing and reading", "[profile]") {
  ProfileData d = sample(), back;
  std::string error;
  REQUIRE(parseProfile(printProfile(d), back, error));
  const KernelStats &k = back.at({"ns::rnn", "rnn.cpp"});
  CHECK(k.calls == 3);
  const LoopStats &l = k.loops.at({12, 3});
  CHECK(l.starts == 3);
  CHECK(l.iterations == 300);
  CHECK(l.minTrips == 50);
  CHECK(l.maxTrips == 150);
  CHECK(l.seconds == Approx(0.25));
  CHECK(l.tapeBytes == 4096);
  CHECK(k.branches.at({20, 7}).thenCount == 10);
  CHECK(k.branches.at({20, 7}).elseCount == 290);
  CHECK(printProfile(back) == printProfile(d));
}

TEST_CASE("merging adds counts and combines fewest and most trips", "[profile]") {
  ProfileData a = sample(), b = sample();
  LoopStats &l = b.at({"ns::rnn", "rnn.cpp"}).loops.at({12, 3});
  l.starts = 1;
  l.iterations = 10;
  l.minTrips = l.maxTrips = 10;
  b[{"other", "x.cpp"}].calls = 1;
  mergeProfile(a, b);
  const KernelStats &k = a.at({"ns::rnn", "rnn.cpp"});
  CHECK(k.calls == 6);
  CHECK(k.loops.at({12, 3}).starts == 4);
  CHECK(k.loops.at({12, 3}).iterations == 310);
  CHECK(k.loops.at({12, 3}).minTrips == 10);
  CHECK(k.loops.at({12, 3}).maxTrips == 150);
  CHECK(k.branches.at({20, 7}).elseCount == 580);
  CHECK(a.count({"other", "x.cpp"}) == 1);
}

TEST_CASE("malformed profiles are refused with the place named", "[profile]") {
  CHECK(readError("").find("unexpected end") != std::string::npos);
  CHECK(readError("{\"a\": -x}").find("expected a value") != std::string::npos);
  CHECK(readError("[]") == "expected an object");
  CHECK(readError("{\"format\": \"cgp-ad profile\", \"version\": 1, \"kernels\": []} x")
            .find("unexpected text") != std::string::npos);
  CHECK(readError("{\"format\": \"other\", \"version\": 1, \"kernels\": []}")
            .find("profile.format") != std::string::npos);
  CHECK(readError("{\"format\": \"cgp-ad profile\", \"version\": 2, \"kernels\": []}")
            .find("version 2 is not known") != std::string::npos);
  CHECK(readError("{\"format\": \"cgp-ad profile\", \"version\": 1, \"kernels\": [{\"kernel\": "
                  "\"k\", \"file\": \"k.cpp\", \"calls\": -1, \"loops\": [], \"branches\": []}]}") ==
        "kernels[0].calls: expected a count (an integer >= 0)");
  CHECK(readError("{\"format\": \"cgp-ad profile\", \"version\": 1, \"kernels\": [{\"kernel\": "
                  "\"k\", \"file\": \"k.cpp\", \"calls\": 1, \"loops\": [{\"line\": 3, \"column\": "
                  "1, \"starts\": 2, \"iterations\": 5, \"min_trips\": 3, \"max_trips\": 4, "
                  "\"seconds\": 0, \"tape_bytes\": 0}], \"branches\": []}]}") ==
        "kernels[0].loops[0]: min_trips, max_trips and iterations disagree");
  CHECK(readError("{\"format\": \"cgp-ad profile\", \"version\": 1, \"kernels\": [{\"kernel\": "
                  "\"k\", \"file\": \"k.cpp\", \"calls\": 1, \"loops\": [], \"branches\": [{\"line\": "
                  "0, \"column\": 1, \"then\": 1, \"else\": 1}]}]}") ==
        "kernels[0].branches[0]: line and column out of range");
  CHECK(readError("{\"a\": \"\\q\"}").find("unknown escape") != std::string::npos);
  CHECK(readError("{\"a\": 1e999}").find("out of range") != std::string::npos);
  std::string deep(100, '[');
  CHECK(readError(deep).find("nesting too deep") != std::string::npos);
}

TEST_CASE("a kernel profile counts calls, trips and arms, not replays", "[profile]") {
  std::string path = "cgp-unit-profile-" + std::to_string(::getpid()) + ".json";
  std::remove(path.c_str());
  ::setenv("CGP_PROFILE", path.c_str(), 1);
  static KernelProfile profile("unit_kernel", "unit.cpp",
                               {{ProfileSiteKind::Loop, 5, 3}, {ProfileSiteKind::Branch, 7, 5}});
  ::unsetenv("CGP_PROFILE");
  for (int call = 0; call < 2; ++call) {
    profile.callBegin();
    profile.loopEnter(0);
    for (int i = 0; i < 4 + call; ++i) {
      profile.iterate(0);
      profile.branch(1, i % 2 == 0);
    }
    profile.loopExit(0);
  }
  // What a checkpointed loop replays in its reverse sweep is not counted.
  LoopCheckpoints checkpoints;
  checkpoints.start(3, 1, 8);
  for (ScheduleAction a = checkpoints.next(); !a.isReverse(); a = checkpoints.next()) {
  }
  checkpoints.next(); // the reverse phase: muted from here
  profile.branch(1, true);
  checkpoints.finish();

  REQUIRE(writeProfile());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ProfileData d;
  std::string error;
  REQUIRE(parseProfile(text.str(), d, error));
  const KernelStats &k = d.at({"unit_kernel", "unit.cpp"});
  CHECK(k.calls == 2);
  const LoopStats &l = k.loops.at({5, 3});
  CHECK(l.starts == 2);
  CHECK(l.iterations == 9);
  CHECK(l.minTrips == 4);
  CHECK(l.maxTrips == 5);
  CHECK(k.branches.at({7, 5}).thenCount == 5);
  CHECK(k.branches.at({7, 5}).elseCount == 4);

  // A second write adds only what was counted since the first.
  profile.callBegin();
  REQUIRE(writeProfile());
  std::ifstream again(path);
  std::stringstream text2;
  text2 << again.rdbuf();
  REQUIRE(parseProfile(text2.str(), d, error));
  CHECK(d.at({"unit_kernel", "unit.cpp"}).calls == 3);
  CHECK(d.at({"unit_kernel", "unit.cpp"}).loops.at({5, 3}).iterations == 9);
  std::remove(path.c_str());
}
