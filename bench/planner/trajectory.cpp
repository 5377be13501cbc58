// trajectory.cpp - planner benchmark: a loop that fills the caller's
// output buffers a row per step. 32 coupled oscillators, their positions
// and velocities in two buffers of a row of 32 per step, 2000
// semi-implicit Euler steps, each row computed from the row before; loss =
// the mean square of the last rows. Gradient with respect to the 2
// parameters and the trajectories' seeds. The rows stay in place:
// snapshots hold nothing. Built once per strategy by run.py.
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(p, xs, vs)
double trajectory(const double *p, double *xs, double *vs, int n, int steps) {
  for (int t = 1; t <= steps; ++t)
    for (int i = 0; i < n; ++i) {
      double x = xs[(t - 1) * n + i], v = vs[(t - 1) * n + i];
      double neighbour = xs[(t - 1) * n + (i + 1) % n];
      double a = -p[0] * std::sin(x) + p[1] * (neighbour - x);
      vs[t * n + i] = v + 0.01 * a;
      xs[t * n + i] = x + 0.01 * vs[t * n + i];
    }
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += xs[steps * n + i] * xs[steps * n + i] + vs[steps * n + i] * vs[steps * n + i];
  return s / n;
}

#ifndef __CGP_AD__
#include "bench_main.h"
int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000, n = 32;
  std::vector<double> p = {1.2, 0.4}, dp(2), xs((steps + 1) * n), vs(xs.size());
  std::vector<double> dxs(xs.size()), dvs(xs.size());
  fill(xs, 1.0, 3);
  fill(vs, 0.2, 4);
  return report("trajectory", [&] { return trajectory(p.data(), xs.data(), vs.data(), n, steps); },
                [&] {
                  zero(dp);
                  zero(dxs);
                  zero(dvs);
                  return trajectory_grad(p.data(), xs.data(), vs.data(), n, steps, dp.data(),
                                         dxs.data(), dvs.data());
                },
                {&dp, &dxs, &dvs});
}
#endif
