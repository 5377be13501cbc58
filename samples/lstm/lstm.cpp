// lstm.cpp - the kernel of the LSTM sample: the mean next-token cross-entropy of a
// one-layer LSTM language model (one-hot tokens, gates i f g o, softmax output) over a
// batch of token sequences of different lengths. cgp-ad differentiates it in Wx Wh b Wy by.
#include <cgp/cgp.h>
#include <cmath>

constexpr int V = 16;    // vocabulary size
constexpr int H = 32;    // hidden size
constexpr int G = 4 * H; // gate pre-activations: input, forget, candidate, output

static double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// Wx: G x V (column x of Wx is the input weight of token x), Wh: G x H, b: G,
// Wy: V x H, by: V. Sequence s is tokens[start[s]] .. tokens[start[s] + len[s] - 1];
// every token but the first is predicted from the ones before it.
CGP_GRAD(Wx, Wh, b, Wy, by)
double lstm_loss(const double* Wx, const double* Wh, const double* b, const double* Wy,
                 const double* by, const int* tokens, const int* start, const int* len,
                 int nseq) {
  double total = 0.0;
  int predicted = 0;
  for (int s = 0; s < nseq; ++s) {
    double h[H];
    double c[H];
    for (int j = 0; j < H; ++j) {
      h[j] = 0.0;
      c[j] = 0.0;
    }
    for (int t = 0; t + 1 < len[s]; ++t) {
      int x = tokens[start[s] + t];
      int next = tokens[start[s] + t + 1];
      // gate pre-activations z = Wx onehot(x) + Wh h + b
      double z[G];
      for (int r = 0; r < G; ++r) {
        double acc = b[r] + Wx[r * V + x];
        for (int k = 0; k < H; ++k) acc += Wh[r * H + k] * h[k];
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
      // -log softmax(Wy h + by)[next], with the max subtracted for stability
      double logit[V];
      double m = -1e300;
      for (int v = 0; v < V; ++v) {
        double acc = by[v];
        for (int k = 0; k < H; ++k) acc += Wy[v * H + k] * h[k];
        logit[v] = acc;
        m = std::fmax(m, acc);
      }
      double se = 0.0;
      for (int v = 0; v < V; ++v) se += std::exp(logit[v] - m);
      total += m + std::log(se) - logit[next];
      ++predicted;
    }
  }
  return total / predicted;
}
