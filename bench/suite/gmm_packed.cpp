// gmm_packed.cpp - suite kernel: the same GMM log-likelihood with a Wishart
// prior as gmm.cpp (same parameters, same data, same value), written the way
// ADBench's published objective computes |Q_k^T (x_i - mu_k)|^2: per point
// and component, a local xc = x_i - mu_k, then Qxc = diag(exp(q)) xc, then the
// packed strictly-lower part of Q_k^T walked column by column with a running
// counter li (reset per component):
//   for i < D, for j = i+1 .. D-1: Qxc[j] += L[li] * xc[i], ++li
// and sqnorm(Qxc). It is in the suite for these two patterns, which gmm.cpp
// avoids by computing each row's index in closed form: arrays rewritten in
// every inner iteration (xc, Qxc), and a packed triangular matrix walked with
// an integer counter (bench/suite/findings/trinorm.cpp is the minimal form).
// A plan that tapes every overwritten Qxc[j] and every ++li keeps far more
// tape than the reverse sweep needs.
// icf[k*ICF..] holds the D log-diagonal entries q of Q_k, then its D(D-1)/2
// entries below the diagonal, column by column (ADBench's layout). Sizes D
// (GMM_D) and K (GMM_K) are compile-time constants; gradient with respect to
// alphas, means, icf.
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
real gmm_packed_objective(const real *alphas, const real *means, const real *icf,
                          const double *x, int n, double wishart_gamma, int wishart_m) {
  // Per component: sum of the log-diagonal, and the diagonal exp(q) of Q_k.
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
      // Qxc = Q_k^T xc: the diagonal, then column i of the packed lower part
      // adds L(j, i) xc[i] into every row j > i.
      real Qxc[D];
      for (int i = 0; i < D; ++i)
        Qxc[i] = diag[k][i] * xc[i];
      int li = 0;
      for (int i = 0; i < D; ++i)
        for (int j = i + 1; j < D; ++j) {
          Qxc[j] += icf[k * ICF + D + li] * xc[i];
          ++li;
        }
      real sqnorm = 0.0;
      for (int i = 0; i < D; ++i)
        sqnorm += Qxc[i] * Qxc[i];
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
