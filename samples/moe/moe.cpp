// moe.cpp - the kernel of the mixture-of-experts sample: a layer of E small dense tanh
// experts with top-1 gating (each token goes to the argmax expert of a softmax gate, its
// output scaled by that probability) and the mean squared error against targets.
#include <cgp/cgp.h>
#include <cmath>

constexpr int D = 16; // token width (input and output)
constexpr int E = 8;  // experts

static double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

// X, Y: n x D inputs and targets. Gate: Wg (E x D), bg (E). Expert e: W[e] = We + e*D*D
// (D x D), bias be + e*D. out_i = p_i * tanh(W[e_i] x_i + b[e_i]), e_i = argmax of the gate
// logits, p_i = softmax(logits)[e_i]. Returns sum_i |out_i - y_i|^2 / n.
CGP_GRAD(Wg, bg, We, be)
double moe_loss(const double* X, const double* Y, const double* Wg, const double* bg,
                const double* We, const double* be, int n) {
  double loss = 0.0;
  for (int i = 0; i < n; ++i) {
    double logit[E];
    int best = 0;
    double top = -1e300;
    for (int e = 0; e < E; ++e) {
      logit[e] = bg[e] + dot(Wg + e * D, X + i * D, D);
      if (logit[e] > top) {
        top = logit[e];
        best = e;
      }
    }
    double se = 0.0;
    for (int e = 0; e < E; ++e) se += std::exp(logit[e] - top);
    double p = std::exp(logit[best] - top) / se;
    for (int j = 0; j < D; ++j) {
      double out = p * std::tanh(be[best * D + j] + dot(We + (best * D + j) * D, X + i * D, D));
      double diff = out - Y[i * D + j];
      loss += diff * diff;
    }
  }
  return loss / n;
}
