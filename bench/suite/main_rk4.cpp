// main_rk4.cpp - the suite program of the RK4 kernel (rk4.cpp): 3-species
// competitive Lotka-Volterra, steps of 0.002 (--n steps, default 10,000),
// observations from a run with slightly different parameters; cgp-ad's
// three gradients, ADOL-C's, and (12 parameters) full central differences.
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "rk4.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

double rk4_loss(const double *p, const double *x0, const double *observed, double h, int steps);
#define SUITE_DECLARE(V)                                                                       \
  double rk4_loss_##V##_grad(const double *, const double *, const double *, double, int,      \
                             double *);
SUITE_DECLARE(cgp)
SUITE_DECLARE(storeall)
SUITE_DECLARE(budget)

int main(int argc, char **argv) {
  suite::Options o = suite::options(argc, argv);
  const int steps = std::atoi(suite::arg(argc, argv, "n", "10000").c_str());
  const double h = 0.002;
  std::vector<double> p = {1.0, 0.72, 1.53, 1.0, 0.4, 0.3, 0.35, 1.0, 0.45, 0.25, 0.5, 1.0};
  std::vector<double> x0 = {0.5, 0.4, 0.3};
  // Observations: a forward Euler run of perturbed parameters at the same times.
  std::vector<double> observed(3 * (steps / adolc_impl::EVERY + 1));
  {
    std::vector<double> q = p;
    for (double &v : q)
      v *= 1.05;
    double x[3] = {x0[0], x0[1], x0[2]};
    for (int s = 0; s < steps; ++s) {
      double dx[3];
      for (int i = 0; i < 3; ++i) {
        double load = 1.0;
        for (int j = 0; j < 3; ++j)
          load -= q[3 + i * 3 + j] * x[j];
        dx[i] = q[i] * x[i] * load;
      }
      for (int i = 0; i < 3; ++i)
        x[i] += h * dx[i];
      if (s % adolc_impl::EVERY == adolc_impl::EVERY - 1)
        for (int i = 0; i < 3; ++i)
          observed[(s / adolc_impl::EVERY) * 3 + i] = x[i];
    }
  }
  suite::Kernel kern;
  kern.name = "rk4";
  kern.wrt = {{"p", &p}};
  kern.fdTimed = true;
  kern.primal = [&] { return rk4_loss(p.data(), x0.data(), observed.data(), h, steps); };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return rk4_loss_##V##_grad(p.data(), x0.data(), observed.data(), h, steps, g[0]);          \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::rk4_loss(a[0], x0.data(), observed.data(), h, steps);
  };
  return suite::run(kern, argc, argv, o);
}
