// orbit.cpp - planner benchmark: a loop whose state lives in a struct's
// members. Four bodies under mutual attraction (positions and velocities
// in arrays of a struct, and its energy), 5000 leapfrog steps; loss = the
// end energy and the first body's position. Gradient with respect to the
// 4 masses. Its snapshots hold the struct's members. Built once per
// strategy by run.py.
#include <cgp/cgp.h>
#include <cmath>

struct System {
  double x[4], y[4], vx[4], vy[4];
  double energy;
};

CGP_GRAD(m)
double orbit(const double *m, int steps) {
  System s;
  for (int b = 0; b < 4; ++b) {
    s.x[b] = std::cos(1.57 * b);
    s.y[b] = std::sin(1.57 * b);
    s.vx[b] = -0.3 * s.y[b];
    s.vy[b] = 0.3 * s.x[b];
  }
  s.energy = 0;
  const double h = 0.001;
  for (int t = 0; t < steps; ++t) {
    double e = 0;
    for (int b = 0; b < 4; ++b) {
      double ax = 0, ay = 0;
      for (int c = 0; c < 4; ++c) {
        if (c == b)
          continue;
        double dx = s.x[c] - s.x[b], dy = s.y[c] - s.y[b];
        double r2 = dx * dx + dy * dy + 0.01;
        double f = m[c] / (r2 * std::sqrt(r2));
        ax += f * dx;
        ay += f * dy;
      }
      s.vx[b] += h * ax;
      s.vy[b] += h * ay;
      e += 0.5 * m[b] * (s.vx[b] * s.vx[b] + s.vy[b] * s.vy[b]);
    }
    for (int b = 0; b < 4; ++b) {
      s.x[b] += h * s.vx[b];
      s.y[b] += h * s.vy[b];
    }
    s.energy = e;
  }
  return s.energy + s.x[0];
}

#ifndef __CGP_AD__
#include "bench_main.h"
int main(int argc, char **argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5000;
  std::vector<double> m = {1.0, 0.8, 1.2, 0.9}, dm(4);
  return report("orbit", [&] { return orbit(m.data(), steps); },
                [&] {
                  zero(dm);
                  return orbit_grad(m.data(), steps, dm.data());
                },
                {&dm});
}
#endif
