// main_moe.cpp - the suite program of the mixture-of-experts kernel
// (moe.cpp): 8 experts, random weights, tokens (--n, default 1000) and
// targets; cgp-ad's three gradients and ADOL-C's.
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "moe.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

double moe_loss(const double *Wg, const double *W1, const double *b1, const double *W2,
                const double *b2, const double *xs, const double *ys, int ntok);
#define SUITE_DECLARE(V)                                                                       \
  double moe_loss_##V##_grad(const double *, const double *, const double *, const double *,   \
                             const double *, const double *, const double *, int, double *,    \
                             double *, double *, double *, double *);
SUITE_DECLARE(cgp)
SUITE_DECLARE(storeall)
SUITE_DECLARE(budget)

int main(int argc, char **argv) {
  suite::Options o = suite::options(argc, argv);
  const int ntok = std::atoi(suite::arg(argc, argv, "n", "1000").c_str());
  using adolc_impl::DM, adolc_impl::E, adolc_impl::HE;
  std::vector<double> Wg(E * DM), W1(E * HE * DM), b1(E * HE), W2(E * DM * HE), b2(E * DM);
  std::vector<double> xs(ntok * DM), ys(ntok * DM);
  suite::fill(Wg, 1.0, 1);
  suite::fill(W1, 0.3, 2);
  suite::fill(b1, 0.2, 3);
  suite::fill(W2, 0.3, 4);
  suite::fill(b2, 0.2, 5);
  suite::fill(xs, 2.0, 6);
  suite::fill(ys, 2.0, 7);
  suite::Kernel kern;
  kern.name = "moe";
  kern.wrt = {{"Wg", &Wg}, {"W1", &W1}, {"b1", &b1}, {"W2", &W2}, {"b2", &b2}};
  kern.primal = [&] {
    return moe_loss(Wg.data(), W1.data(), b1.data(), W2.data(), b2.data(), xs.data(), ys.data(),
                    ntok);
  };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return moe_loss_##V##_grad(Wg.data(), W1.data(), b1.data(), W2.data(), b2.data(),          \
                               xs.data(), ys.data(), ntok, g[0], g[1], g[2], g[3], g[4]);      \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::moe_loss(a[0], a[1], a[2], a[3], a[4], xs.data(), ys.data(), ntok);
  };
  return suite::run(kern, argc, argv, o);
}
