// main_ba.cpp - the suite program of the bundle-adjustment kernel (ba.cpp):
// 50 cameras about 10 units from a cloud of 2500 points, observations
// (--n, default 10,000) of random (camera, point) pairs with features near
// the projections; cgp-ad's three gradients and ADOL-C's.
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "ba.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

double ba_objective(const double *cams, const double *X, const double *w, const int *obs,
                    const double *feats, int nobs);
#define SUITE_DECLARE(V)                                                                       \
  double ba_objective_##V##_grad(const double *, const double *, const double *, const int *,  \
                                 const double *, int, double *, double *, double *);
SUITE_DECLARE(cgp)
SUITE_DECLARE(storeall)
SUITE_DECLARE(budget)

int main(int argc, char **argv) {
  suite::Options o = suite::options(argc, argv);
  const int nobs = std::atoi(suite::arg(argc, argv, "n", "10000").c_str());
  const int ncam = 50, npt = 2500, C = adolc_impl::CAM;
  std::vector<double> cams(ncam * C), X(npt * 3), w(nobs), feats(2 * nobs);
  std::vector<double> r(ncam * C);
  suite::fill(r, 1.0, 1);
  for (int c = 0; c < ncam; ++c) {
    for (int i = 0; i < 3; ++i) {
      cams[c * C + i] = 0.2 * r[c * C + i];           // small rotation
      cams[c * C + 3 + i] = 2.0 * r[c * C + 3 + i];   // centre near the origin...
    }
    cams[c * C + 5] -= 10.0;                          // ...10 units behind the cloud
    cams[c * C + 6] = 500.0 + 50.0 * r[c * C + 6];    // focal length
    cams[c * C + 7] = 2.0 * r[c * C + 7];             // principal point
    cams[c * C + 8] = 2.0 * r[c * C + 8];
    cams[c * C + 9] = 0.01 * r[c * C + 9];            // radial distortion
    cams[c * C + 10] = 0.001 * r[c * C + 10];
  }
  suite::fill(X, 2.0, 2);
  suite::fill(w, 0.2, 3, 1.0);
  suite::fill(feats, 40.0, 4);
  std::vector<int> obs(2 * nobs);
  std::uint64_t s = 5;
  for (int i = 0; i < nobs; ++i) {
    obs[2 * i] = static_cast<int>(suite::nextRandom(s) % ncam);
    obs[2 * i + 1] = static_cast<int>(suite::nextRandom(s) % npt);
  }
  suite::Kernel kern;
  kern.name = "ba";
  kern.wrt = {{"cams", &cams}, {"X", &X}, {"w", &w}};
  kern.primal = [&] {
    return ba_objective(cams.data(), X.data(), w.data(), obs.data(), feats.data(), nobs);
  };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return ba_objective_##V##_grad(cams.data(), X.data(), w.data(), obs.data(), feats.data(),  \
                                   nobs, g[0], g[1], g[2]);                                    \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::ba_objective(a[0], a[1], a[2], obs.data(), feats.data(), nobs);
  };
  return suite::run(kern, argc, argv, o);
}
