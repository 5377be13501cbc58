// --explain and --plan-json name values and loops as the source does, never
// by the names of generated code: a struct's members `st.x[0]` (not
// `st_x_0`), a helper's result `speed2(...)` at the line of its call (not
// `speed2_ret` at line 0), a loop cgp-ad writes for a copy "loop over the
// elements"; each loop gives its tape per iteration and per call and the
// bytes of a snapshot of its state.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --explain --plan-json=%t/plan.json %s -o %t -- -std=c++17 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t/plan.json
// RUN: %cgpad --explain --memory-budget=1KiB %s -o %t/budget -- -std=c++17 | FileCheck %s --check-prefix=BUDGET
#include <cgp/cgp.h>
#include <cmath>
#include <vector>

struct State {
  double x[4];
  double v[4];
};

static double speed2(const double *v) {
  double s = 0;
  for (int k = 0; k < 4; ++k)
    s += v[k] * v[k];
  return s;
}

CGP_GRAD(p)
double orbit(const double *p, int steps) {
  State st;
  for (int k = 0; k < 4; ++k) {
    st.x[k] = p[k];
    st.v[k] = 0.1 * p[k];
  }
  double e = 0;
  for (int t = 0; t < steps; ++t) {
    for (int k = 0; k < 4; ++k)
      st.x[k] += 0.01 * std::sin(st.v[k]);
    for (int k = 0; k < 4; ++k)
      st.v[k] -= 0.01 * std::cos(st.x[k]);
    e += speed2(st.v) * std::exp(-st.x[0]);
  }
  return e;
}

CGP_GRAD(w)
double copies(const std::vector<double> &w, int n) {
  std::vector<double> a(w.begin(), w.end());
  double s = 0;
  for (int i = 0; i < n; ++i)
    s = std::sin(s + a[i % 4]);
  return s;
}

// CHECK-LABEL: kernel orbit (line 29)
// CHECK: st.x[0] (line 38, double, 800 B): store
// CHECK: st.v (line 40, double, 800 B): store
// CHECK: speed2(...) (line 41, double, 800 B): store
// CHECK: loop over t (line 36, trip count known at run time; 100 assumed): tape every iteration
// CHECK-NEXT: no --memory-budget; with one, snapshots of its state (st.v, e, st.x[0], st.x[1], st.x[2], st.x[3]) could replace
// CHECK-NEXT: it tapes 72 B per iteration (7.0 KiB per call), a snapshot of its state takes 72 B, and one run of it 100.0% of the primal's time
// CHECK-LABEL: kernel copies
// CHECK: loop over the elements (line 48,
// CHECK-NOT: _ret
// CHECK-NOT: st_x
// CHECK-NOT: a_k

// JSON: "name": "st.x[0]"
// JSON: "name": "speed2(...)"

// BUDGET: loop over t (line 36, {{.*}}): tape every iteration if that fits the memory budget, else binomial checkpointing of its state
// BUDGET-NEXT: chosen at run time; state: st.v, e, st.x[0], st.x[1], st.x[2], st.x[3]
