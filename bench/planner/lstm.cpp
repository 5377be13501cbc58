// lstm.cpp - planner benchmark: an LSTM (hidden 128, input 32) over a
// sequence of 1000 steps, loss = half the squared norm of the last hidden
// state. Built once per strategy by run.sh; the main below times the primal
// and the gradient and prints one line of JSON.
#include <cgp/cgp.h>
#include <cmath>

constexpr int H = 128;
constexpr int X = 32;
constexpr int G = 4 * H;

static double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

CGP_GRAD(Wx, Wh, b)
double lstm(const double *Wx, const double *Wh, const double *b, const double *xs, int T) {
  double h[H] = {};
  double c[H] = {};
  for (int t = 0; t < T; ++t) {
    double z[G];
    for (int r = 0; r < G; ++r) {
      double acc = b[r];
      for (int k = 0; k < X; ++k)
        acc += Wx[r * X + k] * xs[t * X + k];
      for (int k = 0; k < H; ++k)
        acc += Wh[r * H + k] * h[k];
      z[r] = acc;
    }
    for (int j = 0; j < H; ++j) {
      double ig = sigmoid(z[j]);
      double fg = sigmoid(z[H + j]);
      double gg = std::tanh(z[2 * H + j]);
      double og = sigmoid(z[3 * H + j]);
      c[j] = fg * c[j] + ig * gg;
      h[j] = og * std::tanh(c[j]);
    }
  }
  double loss = 0;
  for (int j = 0; j < H; ++j)
    loss += 0.5 * h[j] * h[j];
  return loss;
}

#ifndef __CGP_AD__
#include "bench_main.h"
int main(int argc, char **argv) {
  const int T = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::vector<double> Wx(G * X), Wh(G * H), b(G), xs(T * X);
  fill(Wx, 0.05, 1);
  fill(Wh, 0.05, 2);
  fill(b, 0.1, 3);
  fill(xs, 1.0, 4);
  std::vector<double> dWx(Wx.size()), dWh(Wh.size()), db(b.size());
  return report("lstm", [&] { return lstm(Wx.data(), Wh.data(), b.data(), xs.data(), T); },
                [&] {
                  zero(dWx), zero(dWh), zero(db);
                  return lstm_grad(Wx.data(), Wh.data(), b.data(), xs.data(), T, dWx.data(),
                                   dWh.data(), db.data());
                },
                {&dWx, &dWh, &db});
}
#endif
