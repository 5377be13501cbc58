// main_gmm_packed.cpp - the suite program of the packed-walk GMM kernel
// (gmm_packed.cpp): the data of main_gmm.cpp (same seeds, so the same
// objective value), cgp-ad's three gradients (gmm_packed.cgp.cpp built three
// times, renamed by run.py with -D) and ADOL-C's (gmm_packed.cpp included
// again on adoubles). In --mode=check it also evaluates gmm.cpp's row-form
// kernel on the same data and fails unless both forms give the same value.
// D and K come from -DGMM_D/-DGMM_K; N from --n (default 1000).
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "gmm_packed.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

namespace row_form { // gmm.cpp on doubles: the same objective, rows in closed form
#include "gmm.cpp"
} // namespace row_form

double gmm_packed_objective(const double *alphas, const double *means, const double *icf,
                            const double *x, int n, double wishart_gamma, int wishart_m);
#define SUITE_DECLARE(V)                                                                       \
  double gmm_packed_objective_##V##_grad(const double *, const double *, const double *,       \
                                         const double *, int, double, int, double *, double *, \
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
  if (o.mode == "check") {
    const double packed =
        gmm_packed_objective(alphas.data(), means.data(), icfs.data(), x.data(), n, gamma, m);
    const double rows =
        row_form::gmm_objective(alphas.data(), means.data(), icfs.data(), x.data(), n, gamma, m);
    const double rel = std::fabs(packed - rows) / std::max(std::fabs(rows), 1e-300);
    std::fprintf(stderr, "gmm-packed: value %.17g, gmm.cpp's row form %.17g (rel. difference "
                 "%.3g)\n", packed, rows, rel);
    if (!(rel <= 1e-12)) {
      suite::loud("gmm_packed.cpp and gmm.cpp give different values");
      return 1;
    }
  }
  suite::Kernel kern;
  kern.name = "gmm-packed-d" + std::to_string(d) + "-K" + std::to_string(k);
  kern.wrt = {{"alphas", &alphas}, {"means", &means}, {"icf", &icfs}};
  kern.primal = [&] {
    return gmm_packed_objective(alphas.data(), means.data(), icfs.data(), x.data(), n, gamma, m);
  };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return gmm_packed_objective_##V##_grad(alphas.data(), means.data(), icfs.data(), x.data(), \
                                           n, gamma, m, g[0], g[1], g[2]);                     \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::gmm_packed_objective(a[0], a[1], a[2], x.data(), n, gamma, m);
  };
  return suite::run(kern, argc, argv, o);
}
