// main_lstm.cpp - the suite program of the LSTM kernel (lstm.cpp): random
// weights and inputs, random target classes, T steps (--n, default 1000);
// cgp-ad's three gradients and ADOL-C's (lstm.cpp included on adoubles).
#include "suite.h"

#include <cgp/cgp.h>
#include <cmath>

namespace adolc_impl {
#define SUITE_ADOLC
#include "lstm.cpp"
#undef SUITE_ADOLC
} // namespace adolc_impl

double lstm_loss(const double *Wx, const double *Wh, const double *b, const double *Wy,
                 const double *by, const double *xs, const int *targets, int T);
#define SUITE_DECLARE(V)                                                                       \
  double lstm_loss_##V##_grad(const double *, const double *, const double *, const double *,  \
                              const double *, const double *, const int *, int, double *,      \
                              double *, double *, double *, double *);
SUITE_DECLARE(cgp)
SUITE_DECLARE(storeall)
SUITE_DECLARE(budget)

int main(int argc, char **argv) {
  suite::Options o = suite::options(argc, argv);
  const int T = std::atoi(suite::arg(argc, argv, "n", "1000").c_str());
  using adolc_impl::G, adolc_impl::H, adolc_impl::V, adolc_impl::X;
  std::vector<double> Wx(G * X), Wh(G * H), b(G), Wy(V * H), by(V), xs(T * X);
  suite::fill(Wx, 0.2, 1);
  suite::fill(Wh, 0.2, 2);
  suite::fill(b, 0.2, 3);
  suite::fill(Wy, 0.4, 4);
  suite::fill(by, 0.2, 5);
  suite::fill(xs, 2.0, 6);
  std::vector<int> targets(T);
  std::uint64_t s = 7;
  for (int &t : targets)
    t = static_cast<int>(suite::nextRandom(s) % V);
  suite::Kernel kern;
  kern.name = "lstm";
  kern.wrt = {{"Wx", &Wx}, {"Wh", &Wh}, {"b", &b}, {"Wy", &Wy}, {"by", &by}};
  kern.primal = [&] {
    return lstm_loss(Wx.data(), Wh.data(), b.data(), Wy.data(), by.data(), xs.data(),
                     targets.data(), T);
  };
#define SUITE_GRAD(V)                                                                          \
  [&](double *const *g) {                                                                      \
    return lstm_loss_##V##_grad(Wx.data(), Wh.data(), b.data(), Wy.data(), by.data(),          \
                                xs.data(), targets.data(), T, g[0], g[1], g[2], g[3], g[4]);   \
  }
  kern.cgpDefault = SUITE_GRAD(cgp);
  kern.cgpStoreAll = SUITE_GRAD(storeall);
  kern.cgpBudget = SUITE_GRAD(budget);
  kern.adolc = [&](adouble *const *a) {
    return adolc_impl::lstm_loss(a[0], a[1], a[2], a[3], a[4], xs.data(), targets.data(), T);
  };
  return suite::run(kern, argc, argv, o);
}
