// --report=FILE.html writes one self-contained page (no scripts, no outside
// links) with each kernel's plan: the values the reverse sweep needs,
// stored or recomputed with their scores, the loops and how they are
// reversed, the source with numbered lines the plan links to, and the
// generated code. A run with errors writes no report.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --report=%t/report.html --memory-budget=64KiB %s -o %t/out -- -std=c++17
// RUN: FileCheck %s < %t/report.html
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
// CHECK: <h3>kernel <code>gates</code> (line <a href="#in0-L17">17</a>)</h3>
// CHECK: <tr class="recompute"><td><code>z</code></td><td><a href="#in0-L21">21</a></td><td>double</td>
// CHECK: <td>loop over t</td><td><a href="#in0-L19">19</a></td><td>at run time</td><td>
// CHECK: <span id="in0-L17"><i>   17</i>  double gates(const double *W, const double *xs, int T) {</span>
// CHECK: <details><summary>Generated code</summary>
// CHECK: double gates_grad(const double *__restrict W, const double *__restrict xs, int T,
// CHECK-NEXT: double *__restrict d_W) {
