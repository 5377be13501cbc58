// clad/lstm.cpp - the Clad adapter of bench/suite/lstm.cpp (the LSTM loss): the kernel's
// own source (real = double) in a namespace of its own, and lstm_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by clad::gradient. Clad's gradient returns void: the value is not computed,
// 0 is returned. Compiled with clang++-19 -fplugin=<clad.so> -I<clad include>.
#include <cgp/cgp.h>
#include <clad/Differentiator/Differentiator.h>
#include <cmath>

namespace clad_peer {
#include "../../suite/lstm.cpp" // the kernel (not this file)
} // namespace clad_peer

double lstm_loss_grad(const double *Wx, const double *Wh, const double *b, const double *Wy,
                      const double *by, const double *xs, const int *targets, int T, double *d_Wx,
                      double *d_Wh, double *d_b, double *d_Wy, double *d_by) {
  auto grad = clad::gradient(clad_peer::lstm_loss, "Wx, Wh, b, Wy, by");
  grad.execute(Wx, Wh, b, Wy, by, xs, targets, T, d_Wx, d_Wh, d_b, d_Wy, d_by);
  return 0.0;
}
