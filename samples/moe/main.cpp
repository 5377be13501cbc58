// main.cpp - the mixture-of-experts sample's driver: makes 256 tokens and targets (from a
// "teacher" layer plus noise) and a student layer, calls moe_loss and moe_loss_grad, checks
// gradient entries against central finite differences, and prints timings and tape size.
#include "moe.cgp.h"
#include "../common/sample_util.h"

#include <cstdio>
#include <vector>

// The kernel, defined in moe.cpp (the build compiles the generated moe.cgp.cpp instead).
double moe_loss(const double* X, const double* Y, const double* Wg, const double* bg,
                const double* We, const double* be, int n);

constexpr int N = 256, D = 16, E = 8;

// The gate's choice for token i and the gap between its two best logits.
static int route(const double* x, const std::vector<double>& Wg, const std::vector<double>& bg,
                 double* gap) {
  double l[E];
  int best = 0;
  for (int e = 0; e < E; ++e) {
    l[e] = bg[e];
    for (int k = 0; k < D; ++k) l[e] += Wg[e * D + k] * x[k];
    if (l[e] > l[best]) best = e;
  }
  double second = -1e300;
  for (int e = 0; e < E; ++e)
    if (e != best) second = std::max(second, l[e]);
  *gap = l[best] - second;
  return best;
}

static size_t argmax_abs(const std::vector<double>& v) {
  size_t m = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (std::fabs(v[i]) > std::fabs(v[m])) m = i;
  return m;
}

int main() {
  sample::Rng rng(11);
  std::vector<double> X(N * D), Y(N * D);
  for (double& x : X) x = rng.normal();

  // teacher and student layers
  auto init = [&](std::vector<double>& Wg, std::vector<double>& bg, std::vector<double>& We,
                  std::vector<double>& be, double scale) {
    Wg.resize(E * D), bg.resize(E), We.resize(E * D * D), be.resize(E * D);
    for (double& w : Wg) w = scale * rng.normal();
    for (double& w : bg) w = 0.1 * rng.normal();
    for (double& w : We) w = scale / std::sqrt(D) * rng.normal();
    for (double& w : be) w = 0.1 * rng.normal();
  };
  std::vector<double> tWg, tbg, tWe, tbe, Wg, bg, We, be;
  init(tWg, tbg, tWe, tbe, 1.0);
  init(Wg, bg, We, be, 0.5);
  for (int i = 0; i < N; ++i) { // targets = teacher outputs + noise, one token at a time
    double gap;
    int e = route(&X[i * D], tWg, tbg, &gap);
    double l[E], m = -1e300, se = 0.0;
    for (int f = 0; f < E; ++f) {
      l[f] = tbg[f];
      for (int k = 0; k < D; ++k) l[f] += tWg[f * D + k] * X[i * D + k];
      m = std::max(m, l[f]);
    }
    for (int f = 0; f < E; ++f) se += std::exp(l[f] - m);
    for (int j = 0; j < D; ++j) {
      double a = tbe[e * D + j];
      for (int k = 0; k < D; ++k) a += tWe[(e * D + j) * D + k] * X[i * D + k];
      Y[i * D + j] = std::exp(l[e] - m) / se * std::tanh(a) + 0.05 * rng.normal();
    }
  }

  int load[E] = {0};
  double min_gap = 1e300;
  for (int i = 0; i < N; ++i) {
    double gap;
    ++load[route(&X[i * D], Wg, bg, &gap)];
    min_gap = std::min(min_gap, gap);
  }
  std::printf("moe: mixture of %d tanh experts (%dx%d), top-1 gating, %d tokens; tokens per "
              "expert:", E, D, D, N);
  for (int e = 0; e < E; ++e) std::printf(" %d", load[e]);
  std::printf("; smallest top-2 gate gap %.2e\n", min_gap);

  auto loss = [&] {
    return moe_loss(X.data(), Y.data(), Wg.data(), bg.data(), We.data(), be.data(), N);
  };
  std::vector<double> dWg(Wg.size()), dbg(bg.size()), dWe(We.size()), dbe(be.size());
  auto grad = [&] {
    for (auto* d : {&dWg, &dbg, &dWe, &dbe}) std::fill(d->begin(), d->end(), 0.0);
    return moe_loss_grad(X.data(), Y.data(), Wg.data(), bg.data(), We.data(), be.data(), N,
                         dWg.data(), dbg.data(), dWe.data(), dbe.data());
  };

  double value = loss();
  bool ok = sample::same_value(value, grad());
  std::printf("loss = %.10f (mean squared error per token)\n", value);
  std::printf("gradient vs central finite differences:\n");
  int iwg = static_cast<int>(argmax_abs(dWg)), iwe = static_cast<int>(argmax_abs(dWe));
  int ibe = static_cast<int>(argmax_abs(dbe));
  ok &= sample::fd_check("Wg", iwg, Wg.data(), dWg[iwg], loss);
  ok &= sample::fd_check("Wg", 3 * D + 5, Wg.data(), dWg[3 * D + 5], loss);
  ok &= sample::fd_check("bg", 6, bg.data(), dbg[6], loss);
  ok &= sample::fd_check("We", iwe, We.data(), dWe[iwe], loss);
  ok &= sample::fd_check("be", ibe, be.data(), dbe[ibe], loss);

  double tp = sample::median_seconds(loss);
  double tg = sample::median_seconds(grad);
  sample::print_timing(tp, tg);
  sample::print_tape();
  if (!ok) std::printf("moe: FAILED: a gradient entry disagrees with finite differences\n");
  return ok ? 0 : 1;
}
