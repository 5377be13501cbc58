// --report=FILE.html writes one self-contained page (no scripts, no outside
// links) with each kernel's plan: the values the reverse sweep needs,
// stored or recomputed with their scores, the loops and how they are
// reversed, the source with numbered lines the plan links to, and the
// generated code. A run with errors writes no report.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --report=%t/report.html --plan-json=%t/plan.json --memory-budget=64KiB %s -o %t/out -- -std=c++17
// RUN: FileCheck %s < %t/report.html
//
// Each kernel's picture (inline SVG): the tape held along the forward sweep,
// storing every value, with the plan and under the budget, checked against
// --plan-json's figures; without a budget, two curves.
// RUN: %check-report %t/report.html --plan-json %t/plan.json --budget 65536 | FileCheck --check-prefix=SVG %s
// RUN: %cgpad --report=%t/default.html --plan-json=%t/default.json %s -o %t/out2 -- -std=c++17
// RUN: %check-report %t/default.html --plan-json %t/default.json | FileCheck --check-prefix=SVG-DEFAULT %s
// RUN: %expect-exit 1 grep -q -e "<scrip[t]" -e "<lin[k]" -e "sr[c]=" -e "href=.htt[p]" %t/report.html
// RUN: %expect-exit 1 %cgpad --report=%t/bad.html %s -o %t/bad -- -std=c++17 -DBROKEN
// RUN: test ! -e %t/bad.html
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(W)
double gates(const double *W, const double *xs, int T) {
  double h[4] = {};
  for (int t = 0; t < T; ++t) {
    for (int j = 0; j < 4; ++j) {
      double z = W[j] * h[j] + xs[t * 4 + j];
      double g = std::tanh(z);
      h[j] = g * 0.5 + h[j] * 0.5;
    }
  }
#ifdef BROKEN
  goto done;
done:
#endif
  return h[0] + h[1] + h[2] + h[3];
}

// CHECK: <!DOCTYPE html>
// CHECK: <title>cgp-ad report</title>
// CHECK: strategy cgp, weights 0.6,0.3,0.1, memory budget 65536 bytes
// CHECK: <h3>kernel <code>gates</code> (line <a href="#in0-L24">24</a>)</h3>
// CHECK: <svg class="tape" xmlns="http://www.w3.org/2000/svg"
// CHECK-SAME: aria-label="tape held along the forward sweep of gates"
// CHECK: <rect class="loop"
// CHECK: <text class="budget"{{.*}}>budget 64.0 KiB (above)</text>
// CHECK: <polyline class="curve" data-name="store every value"
// CHECK: <polyline class="curve" data-name="this plan"
// CHECK: <polyline class="curve" data-name="under the memory budget"
// CHECK: </svg>
// CHECK: <tr class="recompute"><td><code>z</code></td><td><a href="#in0-L28">28</a></td><td>double</td>
// CHECK: <td>loop over t</td><td><a href="#in0-L26">26</a></td><td>at run time (100 assumed)</td><td>32 B</td><td>3.1 KiB</td><td>{{[0-9]+}} B</td><td>{{[0-9.]+}}% of the primal</td><td>
// CHECK: <span id="in0-L24"><i>   24</i>  double gates(const double *W, const double *xs, int T) {</span>
// CHECK: <details><summary>Generated code</summary>
// CHECK: double gates_grad(const double *__restrict W, const double *__restrict xs, int T,
// CHECK-NEXT: double *__restrict d_W) {

// SVG: gates: 3 curves, store-all {{[0-9]+}} B, plan {{[0-9]+}} B, under the budget {{[0-9]+}} B
// SVG-DEFAULT: gates: 2 curves, store-all {{[0-9]+}} B, plan {{[0-9]+}} B
