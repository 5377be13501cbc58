// A published benchmark objective in the style it is published in: the
// Gaussian mixture model negative log-likelihood of the ADBench suite
// (Srajer, Kaskaduri & Fitzgibbon, 2018), written here from its
// mathematical definition the way that C++ code is written: function
// templates on the scalar type, std::vector temporaries, a parameter struct
// passed by value, pointer offsets into the parameter arrays (&means[ik *
// d]), an output through a pointer. A small marked wrapper calls it; the
// gradient is checked against finite differences under every strategy.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/published_gmm_objective.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/published_gmm_objective.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>
#include <vector>

struct Wishart {
  double gamma;
  int m;
};

template <typename T>
T arr_max(int n, const T* x) {
  T m = x[0];
  for (int i = 1; i < n; ++i)
    if (m < x[i])
      m = x[i];
  return m;
}

template <typename T>
T logsumexp(int n, const T* x) {
  T mx = arr_max(n, x);
  T s = 0.;
  for (int i = 0; i < n; ++i)
    s += std::exp(x[i] - mx);
  return std::log(s) + mx;
}

template <typename T>
T sqnorm(int n, const T* x) {
  T s = 0.;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

// The precision's Cholesky factor: exp of the first d entries of icf on the
// diagonal, the rest below it, column by column.
template <typename T>
void Qtimesx(int d, const T* Qdiag, const T* ltri, const T* x, T* out) {
  for (int i = 0; i < d; ++i)
    out[i] = Qdiag[i] * x[i];
  int at = 0;
  for (int i = 0; i < d; ++i)
    for (int j = i + 1; j < d; ++j) {
      out[j] += ltri[at] * x[i];
      ++at;
    }
}

template <typename T>
T log_wishart_prior(int d, int k, Wishart wishart, const T* sum_qs, const T* Qdiags, const T* icf) {
  int n = d + wishart.m + 1;
  int icf_sz = d * (d + 1) / 2;
  T out = 0.;
  for (int ik = 0; ik < k; ++ik) {
    T frobenius = sqnorm(d, &Qdiags[ik * d]) + sqnorm(icf_sz - d, &icf[ik * icf_sz + d]);
    out += 0.5 * wishart.gamma * wishart.gamma * frobenius - wishart.m * sum_qs[ik];
  }
  return out - k * n * d * std::log(wishart.gamma / std::sqrt(2.0));
}

template <typename T>
void gmm_objective(int d, int k, int n, const T* alphas, const T* means, const T* icf,
                   const double* x, Wishart wishart, T* err) {
  const double CONSTANT = -n * d * 0.5 * std::log(2 * 3.14159265358979323846);
  int icf_sz = d * (d + 1) / 2;
  std::vector<T> Qdiags(d * k);
  std::vector<T> sum_qs(k);
  std::vector<T> xcentered(d);
  std::vector<T> Qxcentered(d);
  std::vector<T> main_term(k);
  for (int ik = 0; ik < k; ++ik) {
    sum_qs[ik] = 0.;
    for (int id = 0; id < d; ++id) {
      sum_qs[ik] += icf[ik * icf_sz + id];
      Qdiags[ik * d + id] = std::exp(icf[ik * icf_sz + id]);
    }
  }
  T slse = 0.;
  for (int ix = 0; ix < n; ++ix) {
    for (int ik = 0; ik < k; ++ik) {
      for (int id = 0; id < d; ++id)
        xcentered[id] = x[ix * d + id] - means[ik * d + id];
      Qtimesx(d, &Qdiags[ik * d], &icf[ik * icf_sz + d], &xcentered[0], Qxcentered.data());
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(d, &Qxcentered[0]);
    }
    slse += logsumexp(k, &main_term[0]);
  }
  T lse_alphas = logsumexp(k, alphas);
  *err = CONSTANT + slse - n * lse_alphas +
         log_wishart_prior(d, k, wishart, &sum_qs[0], &Qdiags[0], icf);
}

CGP_GRAD(alphas, means, icf)
CGP_JVP(alphas, means, icf)
double gmm(int d, int k, int n, const double* alphas, const double* means, const double* icf,
           const double* x, double gamma, int m) {
  Wishart wishart{gamma, m};
  double err;
  gmm_objective(d, k, n, alphas, means, icf, x, wishart, &err);
  return err;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  const int d = 3, k = 4, n = 6, icf_sz = d * (d + 1) / 2;
  cgp_test::Checker c("gmm objective (templates, std::vector temporaries, struct by value)");
  std::vector<double>& alphas = c.in("alphas", k, -0.5, 0.5);
  std::vector<double>& means = c.in("means", k * d, -1.0, 1.0);
  std::vector<double>& icf = c.in("icf", k * icf_sz, -0.4, 0.4);
  std::vector<double> x(n * d);
  for (int i = 0; i < n * d; ++i)
    x[i] = std::sin(1.7 * i + 0.3);
  c.primal([&] { return gmm(d, k, n, alphas.data(), means.data(), icf.data(), x.data(), 1.5, 2); });
  c.grad([&](cgp_test::Grads& g) {
    return gmm_grad(d, k, n, alphas.data(), means.data(), icf.data(), x.data(), 1.5, 2,
                    g.f64("alphas"), g.f64("means"), g.f64("icf"));
  });
  c.jvp([&](cgp_test::Tangents& t) {
    return gmm_jvp(d, k, n, alphas.data(), means.data(), icf.data(), x.data(), 1.5, 2,
                   t.f64("alphas"), t.f64("means"), t.f64("icf"));
  });
  c.run();
  return cgp_test::finish();
}
#endif
