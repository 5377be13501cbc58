// Profiles (docs/reference.md, "Profiles"): --instrument puts counting hooks
// in the generated code; a run with CGP_PROFILE writes the trip counts,
// branch frequencies, time and tape bytes it saw, merged with the file; and
// --profile plans with them: the explanation and the plan JSON say where each
// trip count comes from, and the runs of each value follow the measured
// arms. A malformed or missing profile is an error (exit 1); the profile is
// a dependency of the outputs (depfile, stamp).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --instrument %s -o %t/inst -- -std=c++17
// RUN: FileCheck %s --check-prefix=CODE < %t/inst/profile.cgp.cpp
// CODE: {{^}}#include <cgp/profile.h>
// CODE: {{^}}static cgp::rt::KernelProfile cgp_profile_walk("demo::walk", "profile.cpp",
// CODE-NEXT: {{^ *}}{{[{][{]}}cgp::rt::ProfileSiteKind::Branch, {{[0-9]+}}, 5},
// CODE-NEXT: {{^ *[{]}}cgp::rt::ProfileSiteKind::Loop, {{[0-9]+}}, 3}});
// CODE: {{^}}double walk_grad(
// CODE: {{^ *}}cgp_profile_walk.callBegin();
// CODE: {{^ *}}cgp_profile_walk.loopEnter(1);
// CODE-NEXT: {{^ *}}// loop over i
// CODE: {{^ *}}for (int i = 0; i < n; ++i) {
// CODE: {{^ *}}cgp_profile_walk.iterate(1);
// CODE: {{^ *}}cgp_profile_walk.branch(0, true);
// CODE: {{^ *}}cgp_profile_walk.branch(0, false);
// CODE: {{^ *}}cgp_profile_walk.loopExit(1);
//
// RUN: %cxx %cxxflags %t/inst/profile.cgp.cpp -o %t/run %ldflags
// RUN: %t/run > %t/inst.out
// RUN: test ! -e %t/p.json
// RUN: env CGP_PROFILE=%t/p.json %t/run
// RUN: env CGP_PROFILE=%t/p.json %t/run
// RUN: FileCheck %s --check-prefix=PROFILE < %t/p.json
// PROFILE: "format": "cgp-ad profile",
// PROFILE: {"kernel": "demo::walk", "file": "profile.cpp", "calls": 4,
// PROFILE: {"line": {{[0-9]+}}, "column": 3, "starts": 4, "iterations": 240, "min_trips": 40, "max_trips": 80,
// PROFILE: {"line": {{[0-9]+}}, "column": 5, "then": 60, "else": 180}
//
// RUN: %cgpad --profile=%t/p.json --explain --plan-json=%t/plan.json --report=%t/report.html %s -o %t/planned -- -std=c++17 | FileCheck %s --check-prefix=EXPLAIN
// RUN: FileCheck %s --check-prefix=REPORT < %t/report.html
// REPORT: <td>loop over i</td><td><a href="#in0-L{{[0-9]+}}">{{[0-9]+}}</a></td><td>at run time (60.0 in the profile)</td>
// EXPLAIN: loops with a trip count unknown when compiling count the mean of the profile, else 100 iterations
// EXPLAIN: kernel walk (line {{[0-9]+}}, planned with the profile)
// EXPLAIN: loop over i (line {{[0-9]+}}, trip count known at run time; 60.0 iterations per start in the profile)
// RUN: FileCheck %s --check-prefix=JSON < %t/plan.json
// JSON-DAG: "profiled": true
// JSON-DAG: "estimated_trips": 60.0,
// JSON-DAG: "trip_source": "profile"
// The then-arm ran for a quarter of the 60 iterations: 15 pushes of s.
// JSON-DAG: "runs": 15.0,
// The plan moved, the gradient did not: the same bits.
// RUN: %cxx %cxxflags %t/planned/profile.cgp.cpp -o %t/run-planned %ldflags
// RUN: %t/run-planned > %t/planned.out
// RUN: cmp %t/inst.out %t/planned.out
// RUN: FileCheck %s --check-prefix=DEPS < %t/planned/profile.cgp.d
// DEPS: p.json
//
// RUN: echo '{"format": "cgp-ad profile", "version": 1, "kernels": [{"kernel": 3}]}' > %t/bad.json
// RUN: %expect-exit 1 %cgpad --profile=%t/bad.json %s -o %t/bad -- -std=c++17 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: cgp-ad: error: cannot use the profile '{{.*}}bad.json': kernels[0].kernel: expected a name
// RUN: %expect-exit 1 %cgpad --profile=%t/missing.json %s -o %t/bad -- -std=c++17 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cgp-ad: error: cannot use the profile '{{.*}}missing.json': No such file or directory
// RUN: test ! -e %t/bad
#include <cgp/cgp.h>
#include <cmath>

namespace demo {
CGP_GRAD(x)
double walk(const double* x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double v = x[i % 8];
    if (i % 4 == 0)
      s += std::sin(v) * s;
    else
      s += std::exp(-v * v);
  }
  return s;
}
} // namespace demo

#ifndef __CGP_AD__
#include <cstdio>

int main() {
  double x[8] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, d[8] = {};
  demo::walk_grad(x, 40, d);
  demo::walk_grad(x, 80, d);
  for (double v : d)
    std::printf("%a\n", v);
  return 0;
}
#endif
