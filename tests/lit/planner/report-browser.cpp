// The --report page opens in a headless browser (Debian's chromium) without
// a console message (a malformed SVG attribute would be one) and renders a
// picture per kernel that tapes. Runs where chromium is installed.
//
// REQUIRES: chromium
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --report=%t/report.html --plan-json=%t/plan.json --memory-budget=2KiB %s -o %t/out -- -std=c++17
// RUN: %check-report %t/report.html --plan-json %t/plan.json --budget 2048 | FileCheck --check-prefix=SVG %s
// RUN: %check-report %t/report.html --browser | FileCheck --check-prefix=BROWSER %s
#include <cgp/cgp.h>
#include <cmath>

struct State {
  double x[2];
  double v[2];
};

CGP_GRAD(p)
double orbit(const double *p, int steps) {
  State st{{p[0], p[1]}, {0.0, 0.0}};
  double e = 0;
  for (int t = 0; t < steps; ++t) {
    for (int k = 0; k < 2; ++k)
      st.v[k] -= 0.01 * std::sin(st.x[k]);
    for (int k = 0; k < 2; ++k)
      st.x[k] += 0.01 * st.v[k];
    e += st.v[0] * st.v[0] + st.v[1] * st.v[1];
  }
  return e;
}

CGP_GRAD(w)
double chain(const double *w, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s = std::sin(s + w[i] * x[i]);
  return s;
}

// SVG: orbit: 3 curves, store-all {{[0-9]+}} B, plan {{[0-9]+}} B, under the budget {{[0-9]+}} B
// SVG: chain: 3 curves
// BROWSER: chromium rendered 2 pictures, no console message
