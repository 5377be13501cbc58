// gmm.cpp - the kernel of the GMM sample: the ADBench Gaussian mixture objective (d = 3,
// K = 4), written as a loss to minimize: minus the log-likelihood of N points plus ADBench's
// Wishart prior term. Inverse covariances are Q^T Q, Q lower triangular with exp'd diagonal.
#include <cgp/cgp.h>
#include <cmath>

constexpr int D = 3;                 // dimension
constexpr int K = 4;                 // components
constexpr int ICF = D * (D + 1) / 2; // parameters of one Q: D log-diagonal, then the rest
constexpr double PI = 3.14159265358979323846;

// log(sum_i exp(v[i])), with the max taken out.
static double logsumexp(const double* v, int n) {
  double m = v[0];
  for (int i = 1; i < n; ++i) m = std::fmax(m, v[i]);
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += std::exp(v[i] - m);
  return m + std::log(s);
}

// log of the multivariate gamma function Gamma_p(a).
static double log_gamma_distrib(double a, int p) {
  double out = 0.25 * p * (p - 1) * std::log(PI);
  for (int j = 1; j <= p; ++j) out += std::lgamma(a + 0.5 * (1 - j));
  return out;
}

// ADBench's log_wishart_prior: sum_k (gamma^2/2 |Q_k|_F^2 - m log det Q_k) - K C.
static double wishart_term(const double* icf, double gamma, int m) {
  int n = D + m + 1;
  double C = n * D * (std::log(gamma) - 0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * n, D);
  double out = 0.0;
  for (int k = 0; k < K; ++k) {
    double frob = 0.0;
    double sum_q = 0.0;
    for (int j = 0; j < D; ++j) {
      double q = icf[k * ICF + j];
      sum_q += q;
      frob += std::exp(2.0 * q);
    }
    for (int j = D; j < ICF; ++j) frob += icf[k * ICF + j] * icf[k * ICF + j];
    out += 0.5 * gamma * gamma * frob - m * sum_q;
  }
  return out - K * C;
}

// alphas: K unnormalized log weights. means: K x D. icf: K x ICF; for component k, Q_k has
// diagonal exp(icf[k][0..D-1]) and below it, column by column, icf[k][D..ICF-1]. x: n x D.
// Loss = -(sum_i log sum_k w_k N(x_i; mu_k, (Q_k^T Q_k)^-1)) + wishart_term, w = softmax(alphas).
// As in ADBench's code, the quadratic form is |Q_k (x - mu_k)|^2, so Sigma_k^-1 = Q_k^T Q_k.
// (ADBench returns log-likelihood + wishart_term; the sign flip makes it a loss to minimize.)
CGP_GRAD(alphas, means, icf)
double gmm_loss(const double* alphas, const double* means, const double* icf, const double* x,
                int n, double wishart_gamma, int wishart_m) {
  double slse = 0.0;
  for (int i = 0; i < n; ++i) {
    double main_term[K];
    for (int k = 0; k < K; ++k) {
      double xc[D];
      double qx[D];
      double sum_q = 0.0;
      for (int j = 0; j < D; ++j) {
        xc[j] = x[i * D + j] - means[k * D + j];
        sum_q += icf[k * ICF + j];
        qx[j] = std::exp(icf[k * ICF + j]) * xc[j];
      }
      int idx = D;
      for (int c = 0; c < D; ++c) {
        for (int r = c + 1; r < D; ++r) {
          qx[r] += icf[k * ICF + idx] * xc[c];
          ++idx;
        }
      }
      double sq = 0.0;
      for (int j = 0; j < D; ++j) sq += qx[j] * qx[j];
      main_term[k] = alphas[k] + sum_q - 0.5 * sq;
    }
    slse += logsumexp(main_term, K);
  }
  double log_likelihood = -n * D * 0.5 * std::log(2.0 * PI) + slse - n * logsumexp(alphas, K);
  return -log_likelihood + wishart_term(icf, wishart_gamma, wishart_m);
}
