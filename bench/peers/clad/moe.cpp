// clad/moe.cpp - the Clad adapter of bench/suite/moe.cpp (the mixture-of-experts loss): the
// kernel's own source (real = double) in a namespace of its own, and moe_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by clad::gradient. Clad's gradient returns void: the value is not computed,
// 0 is returned. Compiled with clang++-19 -fplugin=<clad.so> -I<clad include>.
#include <cgp/cgp.h>
#include <clad/Differentiator/Differentiator.h>
#include <cmath>

namespace clad_peer {
#include "../../suite/moe.cpp" // the kernel (not this file)
} // namespace clad_peer

double moe_loss_grad(const double *Wg, const double *W1, const double *b1, const double *W2,
                     const double *b2, const double *xs, const double *ys, int ntok, double *d_Wg,
                     double *d_W1, double *d_b1, double *d_W2, double *d_b2) {
  auto grad = clad::gradient(clad_peer::moe_loss, "Wg, W1, b1, W2, b2");
  grad.execute(Wg, W1, b1, W2, b2, xs, ys, ntok, d_Wg, d_W1, d_b1, d_W2, d_b2);
  return 0.0;
}
