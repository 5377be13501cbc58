// main_ode.cpp - the suite program of the adaptive-step ODE kernel (ode.cpp):
// a forced Van der Pol oscillator (mu = 5, locked to its forcing) integrated
// by Bogacki-Shampine 3(2) with error control (tol 1e-9) to t = --n (default
// 20: about 10,000 accepted and 70 rejected steps), observed every 0.25; the
// observations come from a fixed-step RK4 run of slightly different
// parameters and initial state. cgp-ad's three gradients, ADOL-C's, and (6
// parameters) full central differences. (At tol 1e-7 and t = 60, as many
// steps, the checks' finite differences step across the data-dependent
// branches: the loss is only piecewise smooth, its jumps of the order of tol.)
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "ode.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

double ode_loss(const double *p, const double *y0, const double *observed, double dt_obs,
                int nobs, double tol, int max_steps);
#define SUITE_DECLARE(V)                                                                       \
  double ode_loss_##V##_grad(const double *, const double *, const double *, double, int,      \
                             double, int, double *, double *);
SUITE_DECLARE(cgp)
SUITE_DECLARE(storeall)
SUITE_DECLARE(budget)

int main(int argc, char **argv) {
  suite::Options o = suite::options(argc, argv);
  const int t_end = std::atoi(suite::arg(argc, argv, "n", "20").c_str());
  const double dt_obs = 0.25, tol = 1e-9;
  const int per_unit = 4; // observations per unit of time
  const int nobs = per_unit * t_end;
  const int max_steps = 1000 * nobs; // tries (accepted or rejected); about 130 per observation
  std::vector<double> p = {5.0, 1.0, 1.0, 0.55}; // mu, k, a, w
  std::vector<double> y0 = {1.0, 0.0};
  // Observations: fixed-step RK4 (1000 steps per unit of time) of perturbed
  // parameters and initial state, sampled every dt_obs.
  std::vector<double> observed(2 * nobs);
  {
    const double q[4] = {p[0] * 1.02, p[1] * 0.98, p[2] * 1.03, p[3] * 1.01};
    auto f = [&](double t, const double *y, double *dy) {
      dy[0] = y[1];
      dy[1] = q[0] * (1.0 - y[0] * y[0]) * y[1] - q[1] * y[0] + q[2] * std::cos(q[3] * t);
    };
    const int sub = 250; // RK4 steps per observation interval
    const double h = dt_obs / sub;
    double y[2] = {y0[0] + 0.05, y0[1] - 0.05};
    for (int k = 0; k < nobs; ++k) {
      for (int s = 0; s < sub; ++s) {
        const double t = (k * sub + s) * h;
        double k1[2], k2[2], k3[2], k4[2], tmp[2];
        f(t, y, k1);
        for (int i = 0; i < 2; ++i)
          tmp[i] = y[i] + 0.5 * h * k1[i];
        f(t + 0.5 * h, tmp, k2);
        for (int i = 0; i < 2; ++i)
          tmp[i] = y[i] + 0.5 * h * k2[i];
        f(t + 0.5 * h, tmp, k3);
        for (int i = 0; i < 2; ++i)
          tmp[i] = y[i] + h * k3[i];
        f(t + h, tmp, k4);
        for (int i = 0; i < 2; ++i)
          y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
      }
      observed[2 * k] = y[0];
      observed[2 * k + 1] = y[1];
    }
  }
  suite::Kernel kern;
  kern.name = "ode-adaptive";
  kern.wrt = {{"p", &p}, {"y0", &y0}};
  kern.fdTimed = true;
  kern.primal = [&] {
    return ode_loss(p.data(), y0.data(), observed.data(), dt_obs, nobs, tol, max_steps);
  };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return ode_loss_##V##_grad(p.data(), y0.data(), observed.data(), dt_obs, nobs, tol,         \
                               max_steps, g[0], g[1]);                                         \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::ode_loss(a[0], a[1], observed.data(), dt_obs, nobs, tol, max_steps);
  };
  return suite::run(kern, argc, argv, o);
}
