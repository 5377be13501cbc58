// kernels.cpp - budget benchmark: kernels whose iterations tape unevenly,
// where a plan made from one iteration's tape breaks a memory budget. For
// each shape of input and each budget (set with CGP_MEMORY_BUDGET in the
// same process: the runtime reads each new value), the main below prints
// one line of JSON: the peak tape and snapshot bytes of one gradient call,
// the replayed iterations, the median gradient time, and a hash of the
// gradient's bits. run.py builds this file under --strategy=store-all and
// under --memory-budget, and checks that every budget gives store-all's bits.
#include <cgp/cgp.h>
#include <cmath>

// A batch of sequences of different lengths, each through an RNN (6 units);
// the loop over the batch and the loop over time both plan.
CGP_GRAD(W, U, x)
double batch_rnn(const double *W, const double *U, const double *x, const int *lengths,
                 int batch, int n) {
  double loss = 0.0;
  int offset = 0;
  for (int b = 0; b < batch; ++b) {
    double h[6];
    for (int i = 0; i < n; ++i)
      h[i] = 0.1 * (i + 1);
    for (int t = 0; t < lengths[b]; ++t) {
      double z[6];
      for (int i = 0; i < n; ++i) {
        double a = U[i] * x[offset + t];
        for (int j = 0; j < n; ++j)
          a += W[i * n + j] * h[j];
        z[i] = a;
      }
      for (int i = 0; i < n; ++i)
        h[i] = std::tanh(z[i]);
    }
    offset += lengths[b];
    for (int i = 0; i < n; ++i)
      loss += h[i] * h[i] * (1.0 + 0.25 * b);
  }
  return loss;
}

// Passes over a growing part of the batch: three levels plan.
CGP_GRAD(W, U, x)
double passes_rnn(const double *W, const double *U, const double *x, const int *lengths,
                  const int *items, int passes, int n) {
  double loss = 0.0;
  double carry = 0.0;
  for (int p = 0; p < passes; ++p) {
    int offset = 0;
    for (int b = 0; b < items[p]; ++b) {
      double h[6];
      for (int i = 0; i < 6; ++i)
        h[i] = 0.1 * (i + 1) + 0.05 * carry;
      for (int t = 0; t < lengths[b]; ++t) {
        double z[6];
        for (int i = 0; i < n; ++i) {
          double a = U[i] * x[offset + t];
          for (int j = 0; j < n; ++j)
            a += W[i * n + j] * h[j];
          z[i] = a;
        }
        for (int i = 0; i < n; ++i)
          h[i] = std::tanh(z[i]);
      }
      offset += lengths[b];
      for (int i = 0; i < n; ++i)
        loss += h[i] * h[i] * (1.0 + 0.25 * b + 0.1 * p);
      carry = std::sin(h[0] + carry);
    }
  }
  return loss + carry;
}

// Every k-th step overwrites a 16-element array, the others one scalar.
CGP_GRAD(x)
double every_kth(const double *x, int n, int k) {
  double s = 0.0;
  double a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = 0.1 * i;
  for (int t = 0; t < n; ++t) {
    if (t % k == k - 1) {
      for (int i = 0; i < 16; ++i)
        a[i] = std::sin(a[i] + x[t]);
    } else {
      s = std::cos(s) * 0.9 + x[t] * a[t % 16];
    }
  }
  return s + a[3];
}

// Two loops in a row share the budget: an encoder and a decoder.
CGP_GRAD(w)
double encode_decode(const double *w, int T1, int T2) {
  double h[8];
  for (int i = 0; i < 8; ++i)
    h[i] = 0.1 * i;
  for (int t = 0; t < T1; ++t)
    for (int i = 0; i < 8; ++i)
      h[i] = std::tanh(w[i] * h[(i + 1) % 8] + 0.01 * t);
  double s = 0.0;
  for (int t = 0; t < T2; ++t) {
    for (int i = 0; i < 8; ++i)
      h[i] = std::sin(h[i] + 0.1 * w[(i + t) % 8]);
    s += h[t % 8];
  }
  return s / T2;
}

#ifndef __CGP_AD__
#include "../planner/bench_main.h"

#include <string>

namespace {

/// One line of JSON for `grad` under CGP_MEMORY_BUDGET=budget (none if < 0),
/// with the time of `primal` (the same kernel, the same code in every build)
/// measured alongside: run.py compares gradient/primal ratios, so that the
/// machine's speed, which drifts from one process to the next by up to 1.5x
/// here, cancels out.
void measure(const std::string &scenario, long long budget, const std::function<double()> &primal,
             const std::function<double()> &grad, std::vector<std::vector<double> *> outs,
             int runs) {
  if (budget >= 0)
    setenv("CGP_MEMORY_BUDGET", std::to_string(budget).c_str(), 1);
  else
    unsetenv("CGP_MEMORY_BUDGET");
  for (auto *v : outs)
    zero(*v);
  cgp::rt::resetStats();
  grad();
  cgp::rt::Stats s = cgp::rt::stats();
  std::uint64_t hash = gradient_hash(outs);
  double primalSeconds = median_seconds(primal, runs);
  double seconds = median_seconds(
      [&] {
        for (auto *v : outs)
          zero(*v);
        return grad();
      },
      runs);
  std::printf("{\"scenario\": \"%s\", \"budget\": %lld, \"primal_s\": %.6g, \"grad_s\": %.6g, "
              "\"peak_tape_bytes\": %llu, \"recomputed_iterations\": %llu, \"gradient_hash\": "
              "\"%016llx\"}\n",
              scenario.c_str(), budget, primalSeconds, seconds,
              static_cast<unsigned long long>(s.peakTapeBytes),
              static_cast<unsigned long long>(s.recomputedIterations),
              static_cast<unsigned long long>(hash));
  std::fflush(stdout);
}

std::string joined(const std::vector<int> &v) {
  std::string s;
  for (int x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

} // namespace

int main(int argc, char **argv) {
  const int runs = std::getenv("BENCH_RUNS") ? std::atoi(std::getenv("BENCH_RUNS")) : 7;
  // `kernels no-budget` (the store-all build) measures without a budget only.
  const bool noBudget = argc > 1 && std::string(argv[1]) == "no-budget";
  const std::vector<long long> budgets =
      noBudget ? std::vector<long long>{-1}
               : std::vector<long long>{1024, 2048, 4096, 8192, 16384, 65536, -1};
  const int n = 6;
  std::vector<double> W(n * n), U(n), dW(W.size()), dU(U.size());
  fill(W, 0.9, 1);
  fill(U, 2.0, 2);
  for (const std::vector<int> &lengths :
       {std::vector<int>{5, 5, 5, 400}, std::vector<int>{400, 5, 5, 5},
        std::vector<int>{37, 120, 5, 64}}) {
    int total = 0;
    for (int l : lengths)
      total += l;
    std::vector<double> x(total), dx(total);
    fill(x, 2.0, 3);
    for (long long budget : budgets)
      measure("batch_rnn " + joined(lengths), budget,
              [&] {
                return batch_rnn(W.data(), U.data(), x.data(), lengths.data(),
                                 static_cast<int>(lengths.size()), n);
              },
              [&] {
                return batch_rnn_grad(W.data(), U.data(), x.data(), lengths.data(),
                                      static_cast<int>(lengths.size()), n, dW.data(), dU.data(),
                                      dx.data());
              },
              {&dW, &dU, &dx}, runs);
  }
  {
    const std::vector<int> lengths = {37, 120, 5, 64}, items = {2, 4, 3};
    std::vector<double> x(226), dx(226);
    fill(x, 2.0, 4);
    for (long long budget : budgets)
      measure("passes_rnn " + joined(items) + " of " + joined(lengths), budget,
              [&] {
                return passes_rnn(W.data(), U.data(), x.data(), lengths.data(), items.data(), 3,
                                  n);
              },
              [&] {
                return passes_rnn_grad(W.data(), U.data(), x.data(), lengths.data(),
                                       items.data(), 3, n, dW.data(), dU.data(), dx.data());
              },
              {&dW, &dU, &dx}, runs);
  }
  for (int k : {2, 16, 100}) {
    std::vector<double> x(1000), dx(1000);
    fill(x, 2.0, 5);
    for (long long budget : budgets)
      measure("every_kth 1000 steps, k=" + std::to_string(k), budget,
              [&] { return every_kth(x.data(), 1000, k); },
              [&] { return every_kth_grad(x.data(), 1000, k, dx.data()); }, {&dx}, runs);
  }
  for (int T : {1000, 5000}) {
    std::vector<double> w(8), dw(8);
    fill(w, 1.8, 6);
    for (long long budget : budgets)
      measure("encode_decode " + std::to_string(T) + "+" + std::to_string(T), budget,
              [&] { return encode_decode(w.data(), T, T); },
              [&] { return encode_decode_grad(w.data(), T, T, dw.data()); }, {&dw}, runs);
  }
  return 0;
}
#endif
