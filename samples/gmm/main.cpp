// main.cpp - the GMM sample's driver: draws 300 points from 4 Gaussians in 3-D, calls
// gmm_loss and gmm_loss_grad from a rough start, checks gradient entries against central
// finite differences, prints timings and tape size, then takes a few gradient steps.
#include "gmm.cgp.h"
#include "../common/sample_util.h"

#include <cstdio>
#include <vector>

// The kernel, defined in gmm.cpp (the build compiles the generated gmm.cgp.cpp instead).
double gmm_loss(const double* alphas, const double* means, const double* icf, const double* x,
                int n, double wishart_gamma, int wishart_m);

int main() {
  constexpr int D = 3, K = 4, N = 300, ICF = D * (D + 1) / 2;
  constexpr double GAMMA = 1.0; // Wishart prior, as in ADBench's data sets
  constexpr int M = 0;
  sample::Rng rng(3);

  // 300 points: component c has center 4 * (c-th corner) and a sheared spread.
  std::vector<double> x(N * D);
  const double centers[K][D] = {{0, 0, 0}, {4, 0, 1}, {0, 4, -1}, {3, 3, 4}};
  for (int i = 0; i < N; ++i) {
    int c = i % K;
    double u[D];
    for (double& v : u) v = rng.normal();
    x[i * D + 0] = centers[c][0] + 0.8 * u[0];
    x[i * D + 1] = centers[c][1] + 0.5 * u[0] + 0.6 * u[1];
    x[i * D + 2] = centers[c][2] + 0.3 * u[1] + (0.4 + 0.2 * c) * u[2];
  }

  // Start: equal weights, means at 4 data points, Q = identity plus a little noise.
  std::vector<double> alphas(K, 0.0), means(K * D), icf(K * ICF);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < D; ++j) means[k * D + j] = x[(17 * k + 5) * D + j];
  for (double& q : icf) q = 0.1 * rng.normal();

  auto loss = [&] {
    return gmm_loss(alphas.data(), means.data(), icf.data(), x.data(), N, GAMMA, M);
  };
  std::vector<double> dalphas(K), dmeans(K * D), dicf(K * ICF);
  auto grad = [&] {
    for (auto* d : {&dalphas, &dmeans, &dicf}) std::fill(d->begin(), d->end(), 0.0);
    return gmm_loss_grad(alphas.data(), means.data(), icf.data(), x.data(), N, GAMMA, M,
                         dalphas.data(), dmeans.data(), dicf.data());
  };

  std::printf("gmm: Gaussian mixture (ADBench objective as a loss), d=%d, K=%d, N=%d, "
              "%d parameters\n", D, K, N, K + K * D + K * ICF);
  double value = loss();
  bool ok = sample::same_value(value, grad());
  std::printf("loss = %.10f (negative log-likelihood + Wishart term)\n", value);
  std::printf("gradient vs central finite differences:\n");
  ok &= sample::fd_check("alphas", 2, alphas.data(), dalphas[2], loss);
  ok &= sample::fd_check("means", 1 * D + 2, means.data(), dmeans[1 * D + 2], loss);
  ok &= sample::fd_check("icf", 0 * ICF + 1, icf.data(), dicf[0 * ICF + 1], loss); // log-diagonal
  ok &= sample::fd_check("icf", 3 * ICF + 4, icf.data(), dicf[3 * ICF + 4], loss); // off-diagonal
  double tp = sample::median_seconds(loss);
  double tg = sample::median_seconds(grad);
  sample::print_timing(tp, tg);
  sample::print_tape();

  // A few gradient steps on all parameters; each step halves until the loss decreases.
  std::printf("gradient steps:\n");
  std::vector<double*> params = {alphas.data(), means.data(), icf.data()};
  std::vector<double*> grads = {dalphas.data(), dmeans.data(), dicf.data()};
  const int sizes[3] = {K, K * D, K * ICF};
  double f = value, f_start = value, lr = 1e-2;
  std::printf("  step  0  loss %.6f\n", f);
  for (int it = 1; it <= 8; ++it) {
    f = grad();
    double g2 = 0.0;
    for (int p = 0; p < 3; ++p)
      for (int i = 0; i < sizes[p]; ++i) g2 += grads[p][i] * grads[p][i];
    std::vector<double> saved(alphas);
    saved.insert(saved.end(), means.begin(), means.end());
    saved.insert(saved.end(), icf.begin(), icf.end());
    double step = 2.0 * lr, ftrial = f;
    for (int tries = 0; tries < 40; ++tries) {
      for (int p = 0, o = 0; p < 3; o += sizes[p], ++p)
        for (int i = 0; i < sizes[p]; ++i) params[p][i] = saved[o + i] - step * grads[p][i];
      ftrial = loss();
      if (ftrial <= f - 1e-4 * step * g2) break;
      step *= 0.5;
    }
    lr = step;
    f = ftrial;
    std::printf("  step %2d  loss %.6f  |grad| %.3e  lr %.2e\n", it, f, std::sqrt(g2), step);
  }
  if (!(f < f_start)) {
    std::printf("FAILED: the gradient steps did not lower the loss\n");
    ok = false;
  }
  if (!ok) std::printf("gmm: FAILED: a gradient entry disagrees with finite differences\n");
  return ok ? 0 : 1;
}
