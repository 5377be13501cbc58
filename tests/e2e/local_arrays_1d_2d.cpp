// Local fixed-size arrays: 1-D (hidden activations of a two-layer MLP,
// with an initializer list) and 2-D (a 3x3 matrix built from the parameters,
// squared, then its determinant and trace), sized by compile-time constants
// and filled over run-time bounds.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %harness %t/local_arrays_1d_2d.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/local_arrays_1d_2d.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(W1, W2, x)
CGP_JVP(W1, W2, x)
double mlp2(const double* W1, const double* W2, const double* x, int nin, int nh) {
  double h[8];
  double o[2] = {0.0, 0.0};
  if (nh > 8) return 0.0;
  for (int j = 0; j < nh; ++j) {
    h[j] = 0.0;
    for (int i = 0; i < nin; ++i) h[j] += W1[j * nin + i] * x[i];
    h[j] = std::tanh(h[j]);
  }
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < nh; ++j) o[k] += W2[k * nh + j] * h[j];
  return o[0] * o[0] + std::sin(o[1]);
}

CGP_GRAD(p)
CGP_JVP(p)
double matrix_features(const double* p) {
  double M[3][3];
  double S[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M[i][j] = p[3 * i + j] + (i == j ? 1.0 : 0.0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      S[i][j] = 0.0;
      for (int k = 0; k < 3; ++k) S[i][j] += M[i][k] * M[k][j];
    }
  double det = S[0][0] * (S[1][1] * S[2][2] - S[1][2] * S[2][1]) - S[0][1] * (S[1][0] * S[2][2] - S[1][2] * S[2][0]) +
               S[0][2] * (S[1][0] * S[2][1] - S[1][1] * S[2][0]);
  double tr = S[0][0] + S[1][1] + S[2][2];
  return det + 0.5 * tr * tr;
}

#ifndef __CGP_AD__
#include "check.h"

int main() {
  {
    const int nin = 5, nh = 6;
    cgp_test::Checker c("mlp2 nin=5 nh=6");
    std::vector<double>& W1 = c.in("W1", nh * nin, -0.6, 0.6);
    std::vector<double>& W2 = c.in("W2", 2 * nh, -0.6, 0.6);
    std::vector<double>& x = c.in("x", nin, -1.0, 1.0);
    c.primal([&] { return mlp2(W1.data(), W2.data(), x.data(), nin, nh); });
    c.grad([&](cgp_test::Grads& d) {
      return mlp2_grad(W1.data(), W2.data(), x.data(), nin, nh, d.f64("W1"), d.f64("W2"), d.f64("x"));
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return mlp2_jvp(W1.data(), W2.data(), x.data(), nin, nh, t.f64("W1"), t.f64("W2"), t.f64("x"));
    });
    c.run();
  }
  {
    cgp_test::Checker c("matrix_features 3x3");
    std::vector<double>& p = c.in("p", 9, -0.5, 0.5);
    c.primal([&] { return matrix_features(p.data()); });
    c.grad([&](cgp_test::Grads& d) { return matrix_features_grad(p.data(), d.f64("p")); });
    c.jvp([&](cgp_test::Tangents& t) { return matrix_features_jvp(p.data(), t.f64("p")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
