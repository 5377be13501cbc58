// main_kepler.cpp - the suite program of the orbit-fitting kernel
// (kepler.cpp): --n observation times (default 10,000) spread over about
// three orbits, positions from an orbit with other parameters plus a little
// noise; cgp-ad's three gradients (kepler.cgp.cpp built three times, renamed
// by run.py with -D), ADOL-C's, and (7 parameters) full central differences.
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "kepler.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

double kepler_loss(const double *p, const double *t, const double *observed, int n);
#define SUITE_DECLARE(V)                                                                       \
  double kepler_loss_##V##_grad(const double *, const double *, const double *, int, double *);
SUITE_DECLARE(cgp)
SUITE_DECLARE(storeall)
SUITE_DECLARE(budget)

// The position at time t of the orbit with parameters q (kepler.cpp's
// meaning), Kepler's equation solved to convergence.
static void position(const std::vector<double> &q, double t, double &x, double &y) {
  const double e = 0.9 / (1.0 + std::exp(-q[1]));
  const double M = q[2] * t + q[3];
  double E = M;
  for (int it = 0; it < 50; ++it)
    E -= (E - e * std::sin(E) - M) / (1.0 - e * std::cos(E));
  const double u = q[0] * (std::cos(E) - e), v = q[0] * std::sqrt(1.0 - e * e) * std::sin(E);
  x = std::cos(q[4]) * u - std::sin(q[4]) * v + q[5];
  y = std::sin(q[4]) * u + std::cos(q[4]) * v + q[6];
}

int main(int argc, char **argv) {
  suite::Options o = suite::options(argc, argv);
  const int n = std::atoi(suite::arg(argc, argv, "n", "10000").c_str());
  // The observed orbit: e = 0.3 (e_raw = log(1/2)), a period of 3.
  const std::vector<double> truth = {1.5, std::log(0.5), 2.0 * M_PI / 3.0, 0.4, 0.7, 0.1, -0.2};
  std::vector<double> t(n), observed(2 * n), noise(2 * n);
  suite::fill(noise, 0.02, 5);
  for (int i = 0; i < n; ++i) {
    t[i] = 10.0 * i / n;
    position(truth, t[i], observed[2 * i], observed[2 * i + 1]);
    observed[2 * i] += noise[2 * i];
    observed[2 * i + 1] += noise[2 * i + 1];
  }
  // The parameters at which the gradient is taken: near, not at, the truth.
  std::vector<double> p = {1.45, -0.6, 2.1, 0.35, 0.75, 0.12, -0.18};
  suite::Kernel kern;
  kern.name = "kepler";
  kern.wrt = {{"p", &p}};
  kern.fdTimed = true;
  kern.primal = [&] { return kepler_loss(p.data(), t.data(), observed.data(), n); };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return kepler_loss_##V##_grad(p.data(), t.data(), observed.data(), n, g[0]);               \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::kepler_loss(a[0], t.data(), observed.data(), n);
  };
  return suite::run(kern, argc, argv, o);
}
