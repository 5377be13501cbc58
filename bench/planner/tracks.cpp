// tracks.cpp - planner benchmark: a batch of 8 damped oscillator tracks of
// 2000 steps, each driven by a signal of eight cosines a step (no
// derivative, no tape, most of the primal's time); loss = the sum of the
// tracks' end states. The recurrence holds the tape and takes a small part
// of the time, inside the loop over tracks: the default plan runs its
// iterations again at each run (the replay allowance, at any depth), the
// loop over tracks stays taped. Built once per strategy by run.py.
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(w)
double tracks(const double *w, const double *start, int count, int steps) {
  double loss = 0.0;
  for (int k = 0; k < count; ++k) {
    double drive = 0.0;
    for (int t = 0; t < steps; ++t)
      for (int h = 0; h < 8; ++h)
        drive += std::cos(0.001 * t * (h + 1) + 0.1 * k) / (1.0 + t + h);
    double x = start[k], v = 0.0;
    for (int t = 0; t < steps; ++t) {
      double a = std::sin(x) * w[0] - v * w[1] + 1e-3 * drive;
      v = v + 0.01 * a;
      x = x + 0.01 * v;
    }
    loss += x * x + v;
  }
  return loss;
}

#ifndef __CGP_AD__
#include "bench_main.h"
int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::vector<double> w = {0.8, 0.3}, dw(2), start(8);
  for (int k = 0; k < 8; ++k)
    start[k] = 0.2 + 0.1 * k;
  return report("tracks", [&] { return tracks(w.data(), start.data(), 8, steps); },
                [&] {
                  zero(dw);
                  return tracks_grad(w.data(), start.data(), 8, steps, dw.data());
                },
                {&dw});
}
#endif
