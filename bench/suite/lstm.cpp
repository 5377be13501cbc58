// lstm.cpp - suite kernel: a one-layer LSTM (hidden 128, input 64) run over
// a sequence, with a softmax cross-entropy loss at every step: the output
// y_t = Wy h_t + by scores 64 classes and the loss is the mean over t of
// -log softmax(y_t)[target_t]. Gate order in Wx, Wh, b: input, forget, cell,
// output (rows j, H+j, 2H+j, 3H+j). Gradient with respect to every weight.
#include <cgp/cgp.h>
#include <cmath>

#include "real.h"

constexpr int H = 128;   // hidden units
constexpr int X = 64;    // input size
constexpr int V = 64;    // output classes
constexpr int G = 4 * H; // gate rows

static real sigmoid(real z) { return 1.0 / (1.0 + exp(-z)); }

CGP_GRAD(Wx, Wh, b, Wy, by)
real lstm_loss(const real *Wx, const real *Wh, const real *b, const real *Wy, const real *by,
               const double *xs, const int *targets, int T) {
  real h[H];
  real c[H];
  for (int j = 0; j < H; ++j) {
    h[j] = 0.0;
    c[j] = 0.0;
  }
  real loss = 0.0;
  for (int t = 0; t < T; ++t) {
    real z[G];
    for (int r = 0; r < G; ++r) {
      real acc = b[r];
      for (int k = 0; k < X; ++k)
        acc += Wx[r * X + k] * xs[t * X + k];
      for (int k = 0; k < H; ++k)
        acc += Wh[r * H + k] * h[k];
      z[r] = acc;
    }
    for (int j = 0; j < H; ++j) {
      real ig = sigmoid(z[j]);
      real fg = sigmoid(z[H + j]);
      real gg = tanh(z[2 * H + j]);
      real og = sigmoid(z[3 * H + j]);
      c[j] = fg * c[j] + ig * gg;
      h[j] = og * tanh(c[j]);
    }
    real y[V];
    for (int v = 0; v < V; ++v) {
      real acc = by[v];
      for (int k = 0; k < H; ++k)
        acc += Wy[v * H + k] * h[k];
      y[v] = acc;
    }
    real mx = y[0];
    for (int v = 1; v < V; ++v)
      if (y[v] > mx)
        mx = y[v];
    real s = 0.0;
    for (int v = 0; v < V; ++v)
      s += exp(y[v] - mx);
    loss += log(s) + mx - y[targets[t]];
  }
  return loss / T;
}
