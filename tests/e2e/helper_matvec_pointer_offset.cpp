// A matvec helper that writes an output buffer and calls a dot helper with
// pointer-offset arguments (dot(W + i * n, x, n)): helpers calling helpers;
// a packed parameter buffer sliced with offsets (P + nh * nin) for a
// two-layer net; and a void kernel whose in/out output is written through
// the helper and then updated again.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/helper_matvec_pointer_offset.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/helper_matvec_pointer_offset.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

void matvec(const double* W, const double* x, double* y, int m, int n) {
  for (int i = 0; i < m; ++i) y[i] = dot(W + i * n, x, n);
}

void add_bias_tanh(double* y, const double* b, int m) {
  for (int i = 0; i < m; ++i) y[i] = std::tanh(y[i] + b[i]);
}

// P = W1 (nh x nin) | b1 (nh) | W2 (nout x nh) | b2 (nout)
CGP_GRAD(P, x)
CGP_JVP(P, x)
double two_layer_packed(const double* P, const double* x, int nin, int nh, int nout) {
  double h[8];
  double o[4];
  if (nh > 8 || nout > 4) return 0.0;
  matvec(P, x, h, nh, nin);
  add_bias_tanh(h, P + nh * nin, nh);
  matvec(P + nh * nin + nh, h, o, nout, nh);
  add_bias_tanh(o, P + nh * nin + nh + nout * nh, nout);
  double s = 0.0;
  for (int k = 0; k < nout; ++k) s += o[k] * o[k] * (k + 1);
  return s;
}

CGP_GRAD(y, W, x)
CGP_JVP(y, W, x)
void residual_layer(double* y, const double* W, const double* x, int m, int n) {
  matvec(W, x, y, m, n);
  for (int i = 0; i < m; ++i) y[i] = y[i] + 0.5 * std::sin(dot(W + i * n, W + ((i + 1) % m) * n, n));
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  {
    const int nin = 4, nh = 5, nout = 3;
    cgp_test::Checker c("two_layer_packed 4-5-3");
    std::vector<double>& P = c.in("P", nh * nin + nh + nout * nh + nout, -0.7, 0.7);
    std::vector<double>& x = c.in("x", nin, -1.0, 1.0);
    c.primal([&] { return two_layer_packed(P.data(), x.data(), nin, nh, nout); });
    c.grad([&](cgp_test::Grads& d) {
      return two_layer_packed_grad(P.data(), x.data(), nin, nh, nout, d.f64("P"), d.f64("x"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return two_layer_packed_jvp(P.data(), x.data(), nin, nh, nout, t.f64("P"), t.f64("x"));
    });
    c.run();
  }
  {
    const int m = 4, n = 3;
    cgp_test::Checker c("residual_layer (void, y written by a helper) m=4 n=3");
    std::vector<double>& y = c.inout("y", m, -1.0, 1.0);
    std::vector<double>& W = c.in("W", m * n, -1.0, 1.0);
    std::vector<double>& x = c.in("x", n, -1.0, 1.0);
    c.primal_void([&] { residual_layer(y.data(), W.data(), x.data(), m, n); });
    c.grad_void([&](cgp_test::Grads& d) {
      residual_layer_grad(y.data(), W.data(), x.data(), m, n, d.f64("y"), d.f64("W"), d.f64("x"));
    });
    c.jvp_void([&](cgp_test::Tangents& t) {
      residual_layer_jvp(y.data(), W.data(), x.data(), m, n, t.f64("y"), t.f64("W"), t.f64("x"));
    });
    c.run();
  }
  return cgp_test::finish();
}
#endif
