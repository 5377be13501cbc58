// enzyme/lstm.cpp - the Enzyme adapter of bench/suite/lstm.cpp (the LSTM loss): the kernel's
// own source (real = double) in a namespace of its own, and lstm_loss_grad with the
// signature of cgp-ad's generated gradient (run.py renames it with -D, as it does cgp-ad's
// units) computed by __enzyme_autodiff: the wrt arrays duplicated with their adjoints, every
// other argument constant. Enzyme's reverse call returns no value: 0 is returned. Compiled
// with clang++-19 -fplugin=<ClangEnzyme-19.so> -O2 (Enzyme differentiates optimised IR).
#include <cgp/cgp.h>
#include <cmath>

#include "enzyme.h"

namespace enzyme_peer {
#include "../../suite/lstm.cpp" // the kernel (not this file)
} // namespace enzyme_peer

double lstm_loss_grad(const double *Wx, const double *Wh, const double *b, const double *Wy,
                      const double *by, const double *xs, const int *targets, int T, double *d_Wx,
                      double *d_Wh, double *d_b, double *d_Wy, double *d_by) {
  __enzyme_autodiff((void *)enzyme_peer::lstm_loss, enzyme_dup, Wx, d_Wx, enzyme_dup, Wh, d_Wh,
                    enzyme_dup, b, d_b, enzyme_dup, Wy, d_Wy, enzyme_dup, by, d_by, enzyme_const,
                    xs, enzyme_const, targets, enzyme_const, T);
  return 0.0;
}
