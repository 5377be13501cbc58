// gmm.cpp - suite kernel: the log-likelihood of a Gaussian mixture model with
// a Wishart prior, as defined by the ADBench GMM objective (written here from
// its definition). Component k has weight logit alphas[k], mean means[k*D..]
// and inverse covariance Sigma_k^-1 = Q_k Q_k^T, Q_k lower triangular with
// exp(q) on the diagonal: icf[k*ICF..] holds the D log-diagonal entries q,
// then the D(D-1)/2 entries below the diagonal, column by column.
//   f = -N D/2 log(2 pi) + sum_i logsumexp_k(alphas_k + sum(q_k)
//       - |Q_k^T (x_i - mu_k)|^2 / 2) - N logsumexp(alphas) + log Wishart prior
// Sizes D (GMM_D) and K (GMM_K) are compile-time constants: cgp-ad's subset
// wants fixed-size local arrays. Gradient with respect to alphas, means, icf.
#include <cgp/cgp.h>
#include <cmath>

#include "real.h"

#ifndef GMM_D
#define GMM_D 10
#endif
#ifndef GMM_K
#define GMM_K 25
#endif

constexpr int D = GMM_D;
constexpr int K = GMM_K;
constexpr int ICF = D + D * (D - 1) / 2; // icf entries per component

// log(sum_i exp(v[i])), shifted by the maximum so that nothing overflows.
static real logsumexp(const real *v, int n) {
  real mx = v[0];
  for (int i = 1; i < n; ++i)
    if (v[i] > mx)
      mx = v[i];
  real s = 0.0;
  for (int i = 0; i < n; ++i)
    s += exp(v[i] - mx);
  return log(s) + mx;
}

// log of the multivariate gamma function Gamma_p(a) (constant: no derivative).
static double log_gamma_distrib(double a, int p) {
  double r = 0.25 * p * (p - 1) * log(3.14159265358979323846);
  for (int j = 1; j <= p; ++j)
    r += lgamma(a + 0.5 * (1 - j));
  return r;
}

CGP_GRAD(alphas, means, icf)
real gmm_objective(const real *alphas, const real *means, const real *icf, const double *x,
                   int n, double wishart_gamma, int wishart_m) {
  // Per component: sum of the log-diagonal and the diagonal of Q itself.
  real sum_q[K];
  real diag[K][D];
  for (int k = 0; k < K; ++k) {
    sum_q[k] = 0.0;
    for (int i = 0; i < D; ++i) {
      sum_q[k] += icf[k * ICF + i];
      diag[k][i] = exp(icf[k * ICF + i]);
    }
  }
  real slse = 0.0;
  for (int p = 0; p < n; ++p) {
    real main_term[K];
    for (int k = 0; k < K; ++k) {
      real xc[D];
      for (int i = 0; i < D; ++i)
        xc[i] = x[p * D + i] - means[k * D + i];
      // |Q_k^T xc|^2 row by row: row i of Q_k^T xc is exp(q_i) xc_i plus the
      // entries L(i, j), j < i, stored in column j's part of icf.
      real sqnorm = 0.0;
      for (int i = 0; i < D; ++i) {
        real acc = diag[k][i] * xc[i];
        for (int j = 0; j < i; ++j)
          acc += icf[k * ICF + D + j * (2 * D - j - 1) / 2 + (i - j - 1)] * xc[j];
        sqnorm += acc * acc;
      }
      main_term[k] = alphas[k] + sum_q[k] - 0.5 * sqnorm;
    }
    slse += logsumexp(main_term, K);
  }
  // Log Wishart prior on each Sigma_k^-1, with n = D + m + 1 degrees of freedom.
  const double dof = D + wishart_m + 1;
  const double log_c = dof * D * (log(wishart_gamma) - 0.5 * log(2.0)) -
                       log_gamma_distrib(0.5 * dof, D);
  real prior = 0.0;
  for (int k = 0; k < K; ++k) {
    real frob = 0.0;
    for (int i = 0; i < D; ++i)
      frob += diag[k][i] * diag[k][i];
    for (int i = D; i < ICF; ++i)
      frob += icf[k * ICF + i] * icf[k * ICF + i];
    prior += 0.5 * wishart_gamma * wishart_gamma * frob - wishart_m * sum_q[k];
  }
  prior -= K * log_c;
  const double log_2pi_term = -0.5 * n * D * log(2.0 * 3.14159265358979323846);
  return log_2pi_term + slse - n * logsumexp(alphas, K) + prior;
}
