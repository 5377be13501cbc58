// main_gmm.cpp - the suite program of the GMM kernel (gmm.cpp): data of
// ADBench's shape (N points in D dimensions, K components, Wishart gamma 1,
// m 0), cgp-ad's three gradients (gmm.cgp.cpp built three times, renamed by
// run.py with -D) and ADOL-C's (gmm.cpp included again on adoubles).
// D and K come from -DGMM_D/-DGMM_K; N from --n (default 1000).
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "gmm.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

double gmm_objective(const double *alphas, const double *means, const double *icf,
                     const double *x, int n, double wishart_gamma, int wishart_m);
#define SUITE_DECLARE(V)                                                                       \
  double gmm_objective_##V##_grad(const double *, const double *, const double *,              \
                                  const double *, int, double, int, double *, double *,        \
                                  double *);
SUITE_DECLARE(cgp)
SUITE_DECLARE(storeall)
SUITE_DECLARE(budget)

int main(int argc, char **argv) {
  suite::Options o = suite::options(argc, argv);
  const int n = std::atoi(suite::arg(argc, argv, "n", "1000").c_str());
  const int d = adolc_impl::D, k = adolc_impl::K, icf = adolc_impl::ICF;
  std::vector<double> alphas(k), means(k * d), icfs(k * icf), x(n * d);
  suite::fill(alphas, 2.0, 1);
  suite::fill(means, 2.0, 2);
  suite::fill(icfs, 0.2, 3);
  suite::fill(x, 2.0, 4);
  const double gamma = 1.0;
  const int m = 0;
  suite::Kernel kern;
  kern.name = "gmm-d" + std::to_string(d) + "-K" + std::to_string(k);
  kern.wrt = {{"alphas", &alphas}, {"means", &means}, {"icf", &icfs}};
  kern.primal = [&] {
    return gmm_objective(alphas.data(), means.data(), icfs.data(), x.data(), n, gamma, m);
  };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return gmm_objective_##V##_grad(alphas.data(), means.data(), icfs.data(), x.data(), n,     \
                                    gamma, m, g[0], g[1], g[2]);                               \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::gmm_objective(a[0], a[1], a[2], x.data(), n, gamma, m);
  };
  return suite::run(kern, argc, argv, o);
}
