// gmm_cxx.cpp - the suite's GMM kernel (bench/suite/gmm.cpp) written the way C++ programmers
// write it: std::vector parameters and temporaries, std::array rows, the Wishart prior's
// settings in a struct passed by value, a function template on the scalar type. Same loops,
// arithmetic and order as the C form (only the types differ), so both give the same value;
// bench/cxx/run.py times the two gradients against each other.
#include <cgp/cgp.h>

#include <array>
#include <cmath>
#include <vector>

#ifndef GMM_D
#define GMM_D 10
#endif
#ifndef GMM_K
#define GMM_K 25
#endif

constexpr int D = GMM_D;
constexpr int K = GMM_K;
constexpr int ICF = D + D * (D - 1) / 2;

struct Wishart {
  double gamma;
  int m;
};

template <typename T>
T logsumexp(const T* v, int n) {
  T mx = v[0];
  for (int i = 1; i < n; ++i)
    if (v[i] > mx)
      mx = v[i];
  T s = 0.0;
  for (int i = 0; i < n; ++i)
    s += std::exp(v[i] - mx);
  return std::log(s) + mx;
}

static double log_gamma_distrib(double a, int p) {
  double r = 0.25 * p * (p - 1) * std::log(3.14159265358979323846);
  for (int j = 1; j <= p; ++j)
    r += std::lgamma(a + 0.5 * (1 - j));
  return r;
}

CGP_GRAD(alphas, means, icf)
double gmm_cxx(const std::vector<double>& alphas, const std::vector<double>& means,
               const std::vector<double>& icf, const std::vector<double>& x, Wishart wishart) {
  const int n = static_cast<int>(x.size()) / D;
  std::vector<double> sum_q(K);
  std::vector<double> diag(K * D);
  for (int k = 0; k < K; ++k) {
    sum_q[k] = 0.0;
    for (int i = 0; i < D; ++i) {
      sum_q[k] += icf[k * ICF + i];
      diag[k * D + i] = std::exp(icf[k * ICF + i]);
    }
  }
  double slse = 0.0;
  for (int p = 0; p < n; ++p) {
    std::array<double, K> main_term;
    for (int k = 0; k < K; ++k) {
      std::array<double, D> xc;
      for (int i = 0; i < D; ++i)
        xc[i] = x[p * D + i] - means[k * D + i];
      // |Q_k^T xc|^2 row by row: row i is exp(q_i) xc_i plus the entries below the diagonal.
      double sqnorm = 0.0;
      for (int i = 0; i < D; ++i) {
        double acc = diag[k * D + i] * xc[i];
        for (int j = 0; j < i; ++j)
          acc += icf[k * ICF + D + j * (2 * D - j - 1) / 2 + (i - j - 1)] * xc[j];
        sqnorm += acc * acc;
      }
      main_term[k] = alphas[k] + sum_q[k] - 0.5 * sqnorm;
    }
    slse += logsumexp(main_term.data(), K);
  }
  const double dof = D + wishart.m + 1;
  const double log_c = dof * D * (std::log(wishart.gamma) - 0.5 * std::log(2.0)) -
                       log_gamma_distrib(0.5 * dof, D);
  double prior = 0.0;
  for (int k = 0; k < K; ++k) {
    double frob = 0.0;
    for (int i = 0; i < D; ++i)
      frob += diag[k * D + i] * diag[k * D + i];
    for (int i = D; i < ICF; ++i)
      frob += icf[k * ICF + i] * icf[k * ICF + i];
    prior += 0.5 * wishart.gamma * wishart.gamma * frob - wishart.m * sum_q[k];
  }
  prior -= K * log_c;
  const double log_2pi_term = -0.5 * n * D * std::log(2.0 * 3.14159265358979323846);
  return log_2pi_term + slse - n * logsumexp(alphas.data(), K) + prior;
}
