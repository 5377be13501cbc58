// main.cpp - bench/cxx's program: the suite's GMM kernel in its C form (bench/suite/gmm.cpp:
// raw pointers, fixed arrays) and in its C++ form (gmm_cxx.cpp: std::vector, a struct by
// value, templates), both differentiated by cgp-ad and linked together. Checks that the two
// agree (value and gradient), then prints one JSON line of median times: primal and gradient
// of each form. run.py runs it several times and reports the ratios.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

struct Wishart {
  double gamma;
  int m;
};

double gmm_objective(const double* alphas, const double* means, const double* icf,
                     const double* x, int n, double wishart_gamma, int wishart_m);
double gmm_objective_grad(const double* alphas, const double* means, const double* icf,
                          const double* x, int n, double wishart_gamma, int wishart_m,
                          double* d_alphas, double* d_means, double* d_icf);
double gmm_cxx(const std::vector<double>& alphas, const std::vector<double>& means,
               const std::vector<double>& icf, const std::vector<double>& x, Wishart wishart);
double gmm_cxx_grad(const std::vector<double>& alphas, const std::vector<double>& means,
                    const std::vector<double>& icf, const std::vector<double>& x, Wishart wishart,
                    std::vector<double>* d_alphas, std::vector<double>* d_means,
                    std::vector<double>* d_icf);

static volatile double sink = 0.0;

// Medians over 21 samples of one call's time of f and of g, the samples of the two taken in
// turn so that both see the same load; each sample is long enough (20 ms) to be read.
template <class F, class G> std::pair<double, double> paired_medians(F&& f, G&& g) {
  using clock = std::chrono::steady_clock;
  auto calls = [&](auto&& h) {
    int inner = 1;
    for (;;) {
      auto t0 = clock::now();
      for (int i = 0; i < inner; ++i) sink = sink + h();
      if (std::chrono::duration<double>(clock::now() - t0).count() > 0.02) return inner;
      inner *= 2;
    }
  };
  int nf = calls(f), ng = calls(g);
  std::vector<double> tf, tg;
  for (int r = 0; r < 21; ++r) {
    auto t0 = clock::now();
    for (int i = 0; i < nf; ++i) sink = sink + f();
    auto t1 = clock::now();
    for (int i = 0; i < ng; ++i) sink = sink + g();
    auto t2 = clock::now();
    tf.push_back(std::chrono::duration<double>(t1 - t0).count() / nf);
    tg.push_back(std::chrono::duration<double>(t2 - t1).count() / ng);
  }
  std::sort(tf.begin(), tf.end());
  std::sort(tg.begin(), tg.end());
  return {tf[tf.size() / 2], tg[tg.size() / 2]};
}

int main(int argc, char** argv) {
  const int d = GMM_D, k = GMM_K, icf_n = d + d * (d - 1) / 2;
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::vector<double> alphas(k), means(k * d), icf(k * icf_n), x(n * d);
  auto fill = [](std::vector<double>& v, double scale, int seed) {
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = scale * std::sin(0.37 * (i + 1) * seed + seed);
  };
  fill(alphas, 1.0, 1);
  fill(means, 1.0, 2);
  fill(icf, 0.2, 3);
  fill(x, 1.0, 4);
  const Wishart w{1.0, 0};
  std::vector<double> ga(k), gm(k * d), gi(k * icf_n), ca(k), cm(k * d), ci(k * icf_n);
  auto c_primal = [&] { return gmm_objective(alphas.data(), means.data(), icf.data(), x.data(), n, w.gamma, w.m); };
  auto cxx_primal = [&] { return gmm_cxx(alphas, means, icf, x, w); };
  auto c_grad = [&] {
    for (auto* g : {&ga, &gm, &gi}) std::fill(g->begin(), g->end(), 0.0);
    return gmm_objective_grad(alphas.data(), means.data(), icf.data(), x.data(), n, w.gamma, w.m,
                              ga.data(), gm.data(), gi.data());
  };
  auto cxx_grad = [&] {
    for (auto* g : {&ca, &cm, &ci}) std::fill(g->begin(), g->end(), 0.0);
    return gmm_cxx_grad(alphas, means, icf, x, w, &ca, &cm, &ci);
  };
  // The two forms compute the same thing.
  double fc = c_grad(), fx = cxx_grad();
  double worst = std::fabs(fc - fx) / std::max(1.0, std::fabs(fc));
  std::vector<double>* cg[3] = {&ga, &gm, &gi};
  std::vector<double>* xg[3] = {&ca, &cm, &ci};
  for (int p = 0; p < 3; ++p)
    for (std::size_t i = 0; i < cg[p]->size(); ++i)
      worst = std::max(worst, std::fabs((*cg[p])[i] - (*xg[p])[i]) /
                                  std::max(1.0, std::fabs((*cg[p])[i])));
  if (!(worst < 1e-9)) {
    std::fprintf(stderr, "bench/cxx: the C and C++ forms disagree (relative %.3g)\n", worst);
    return 1;
  }
  auto [tcp, txp] = paired_medians(c_primal, cxx_primal);
  auto [tcg, txg] = paired_medians(c_grad, cxx_grad);
  std::printf("{\"kernel\": \"gmm-d%d-K%d-n%d\", \"c_primal\": %.9g, \"cxx_primal\": %.9g, "
              "\"c_grad\": %.9g, \"cxx_grad\": %.9g, \"agreement\": %.3g}\n",
              d, k, n, tcp, txp, tcg, txg, worst);
  return 0;
}
