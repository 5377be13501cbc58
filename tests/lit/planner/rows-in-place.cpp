// A loop that fills the caller's buffer a row per iteration, reading only
// rows written before, keeps it out of its snapshots (the rows stay in
// place, analysis/RowWrites.h); --explain and the generated comments say
// so. Where a condition fails, the build-time warning under
// --memory-budget names it.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad --explain --memory-budget=64KiB %s -o %t -- -std=c++17 2>%t/warnings.txt | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t/warnings.txt
#include <cgp/cgp.h>
#include <cmath>

// The rows need no tape at all: what the reverse sweep reads in them is
// still there. Only g, a nonlinear recurrence, is taped, and the state
// holds it.
// CHECK-LABEL: kernel trajectory
// CHECK: loop over t (line [[#@LINE+5]], {{.*}}): tape every iteration if that fits the memory budget, else binomial checkpointing of its state
// CHECK-NEXT: chosen at run time; state: g; the rows it writes of traj stay in place
CGP_GRAD(p, traj)
double trajectory(const double *p, double *traj, int n, int steps) {
  double g = 0;
  for (int t = 1; t <= steps; ++t) {
    for (int i = 0; i < n; ++i)
      traj[t * n + i] = traj[(t - 1) * n + i] * p[0] + std::sin(traj[(t - 1) * n + (i + 1) % n]);
    g = std::sin(g) + traj[t * n + n - 1];
  }
  return traj[steps * n] + g;
}

// CHECK-LABEL: kernel walk
// CHECK: chosen at run time; state: e; the rows it writes of x stay in place
CGP_GRAD(p, x)
double walk(const double *p, double *x, int steps) {
  double e = 0;
  for (int t = 0; t < steps; ++t) {
    x[t + 1] = std::cos(p[0] * x[t]);
    e = std::tanh(e + x[t + 1] * x[t]);
  }
  return e;
}

// Without a local recurrence nothing is taped: the loop runs as it is.
// CHECK-LABEL: kernel plain
// CHECK: tape: 0 B storing every value
// CHECK: loop over t (line [[#@LINE+4]], {{.*}}): tape every iteration
// CHECK-NEXT: it puts nothing on the tape
CGP_GRAD(p, x)
double plain(const double *p, double *x, int steps) {
  for (int t = 0; t < steps; ++t)
    x[t + 1] = std::cos(p[0] * x[t]);
  return x[steps];
}

// WARN: rows-in-place.cpp:[[#@LINE+4]]:3: warning: the loop over 't' cannot be held in --memory-budget=65536: it writes the caller's memory ('x'), which snapshots do not hold, and reads the row it writes or a later one;
CGP_GRAD(p, x)
double ahead(const double *p, double *x, int steps) {
  double e = 0;
  for (int t = 0; t < steps; ++t) {
    x[t] = std::cos(p[0] * x[t + 1]);
    e += x[t];
  }
  return e;
}

// WARN: rows-in-place.cpp:[[#@LINE+3]]:3: warning: the loop over 't' cannot be held in --memory-budget=65536: it writes the caller's memory ('x'), which snapshots do not hold, and the kernel writes it again after the loop;
CGP_GRAD(p, x)
double rewritten(const double *p, double *x, int steps) {
  for (int t = 0; t < steps; ++t)
    x[t + 1] = std::cos(p[0] * x[t]);
  x[0] = 0;
  return x[steps];
}

// WARN: rows-in-place.cpp:[[#@LINE+4]]:3: warning: the loop over 't' cannot be held in --memory-budget=65536: it writes the caller's memory ('x'), which snapshots do not hold, and the code before it reads what it overwrites;
CGP_GRAD(p, x)
double readFirst(const double *p, double *x, int steps) {
  double first = x[steps] * x[steps];
  for (int t = 0; t < steps; ++t)
    x[t + 1] = x[t] * x[t] * p[0];
  return first + x[steps];
}

// WARN: rows-in-place.cpp:[[#@LINE+3]]:3: warning: the loop over 't' cannot be held in --memory-budget=65536: it writes the caller's memory ('y'), which snapshots do not hold, more than one row per iteration;
CGP_GRAD(p, y)
double twoRows(const double *p, double *y, int steps) {
  for (int t = 1; t < steps; ++t) {
    y[t] = std::sin(p[0] * y[t - 1]);
    y[t + 1] = y[t] * p[1];
  }
  return y[steps];
}

// WARN: rows-in-place.cpp:[[#@LINE+3]]:3: warning: the loop over 't' cannot be held in --memory-budget=65536: it writes the caller's memory ('y'), which snapshots do not hold, in rows of a size not known to be above 0;
CGP_GRAD(p, y)
double unknownRows(const double *p, double *y, int m, int steps) {
  for (int t = 1; t < steps; ++t)
    y[t * m] = std::sin(p[0] * y[(t - 1) * m]);
  return y[0];
}
// A column below the whole row's length, in the row's second part, would
// pass into the row being written: refused.
// WARN: rows-in-place.cpp:[[#@LINE+4]]:3: warning: the loop over 't' cannot be held in --memory-budget=65536: it writes the caller's memory ('traj'), which snapshots do not hold, at an index that is not a row per iteration (t * n + i, i below n);
CGP_GRAD(p, traj)
double pastTheRow(const double *p, double *traj, int n, int steps) {
  double g = 0;
  for (int t = 1; t <= steps; ++t) {
    for (int i = 0; i < 2 * n; ++i)
      traj[t * 2 * n + i] = std::cos(p[0] * traj[(t - 1) * 2 * n + i]) + traj[(t - 1) * 2 * n + n + i];
    g = std::sin(g) + traj[t * 2 * n];
  }
  return g;
}

// Rows of two parts, positions then velocities, with their offsets in
// locals, are held.
// CHECK-LABEL: kernel twoParts
// CHECK: chosen at run time; state: g; the rows it writes of traj stay in place
CGP_GRAD(p, traj)
double twoParts(const double *p, double *traj, int n, int steps) {
  const int row = 2 * n;
  double g = 0;
  for (int t = 1; t <= steps; ++t) {
    const int base = t * row, prev = base - row;
    for (int i = 0; i < n; ++i) {
      traj[base + n + i] = traj[prev + n + i] - 0.01 * std::sin(p[0] * traj[prev + i]);
      traj[base + i] = traj[prev + i] + 0.01 * traj[base + n + i];
    }
    g = std::sin(g) + traj[base + n];
  }
  return g;
}
// WARN: 6 warnings generated.
