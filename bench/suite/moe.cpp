// moe.cpp - suite kernel: a mixture-of-experts layer with top-1 routing. For
// each token x_t (64 values) a linear gate scores 8 experts; the argmax
// expert e (a branch: integer, no derivative) runs its MLP
//   y = W2_e tanh(W1_e x + b1_e) + b2_e   (hidden 128)
// and its output is scaled by the gate's softmax probability of e, so the
// gate weights get a gradient too. Loss: mean over tokens of |g y - target|^2.
#include <cgp/cgp.h>
#include <cmath>

#include "real.h"

constexpr int DM = 64;  // token width
constexpr int E = 8;    // experts
constexpr int HE = 128; // hidden units per expert

CGP_GRAD(Wg, W1, b1, W2, b2)
real moe_loss(const real *Wg, const real *W1, const real *b1, const real *W2, const real *b2,
              const double *xs, const double *ys, int ntok) {
  real loss = 0.0;
  for (int t = 0; t < ntok; ++t) {
    real logits[E];
    for (int e = 0; e < E; ++e) {
      real acc = 0.0;
      for (int k = 0; k < DM; ++k)
        acc += Wg[e * DM + k] * xs[t * DM + k];
      logits[e] = acc;
    }
    int best = 0;
    for (int e = 1; e < E; ++e)
      if (logits[e] > logits[best])
        best = e;
    // softmax probability of the chosen expert: exp(0) / sum exp(l - l_best)
    real s = 0.0;
    for (int e = 0; e < E; ++e)
      s += exp(logits[e] - logits[best]);
    real gate = 1.0 / s;
    real hid[HE];
    for (int j = 0; j < HE; ++j) {
      real acc = b1[best * HE + j];
      for (int k = 0; k < DM; ++k)
        acc += W1[(best * HE + j) * DM + k] * xs[t * DM + k];
      hid[j] = tanh(acc);
    }
    for (int o = 0; o < DM; ++o) {
      real acc = b2[best * DM + o];
      for (int j = 0; j < HE; ++j)
        acc += W2[(best * DM + o) * HE + j] * hid[j];
      real diff = gate * acc - ys[t * DM + o];
      loss += diff * diff;
    }
  }
  return loss / ntok;
}
