#include <cgp/cgp.h>
#include <cmath>

// log(1 + e^z), a smooth ReLU
static double softplus(double z) { return std::log1p(std::exp(z)); }

// A robust fit of y ~ softplus(w[0] * x + w[1]) that stops early once the
// loss passes `cap`.
CGP_GRAD(w)
double fit(const double* w, const double* x, const double* y, int n, double cap) {
  double loss = 0.0;
  for (int i = 0; i < n; ++i) {
    double r = softplus(w[0] * x[i] + w[1]) - y[i];
    if (r > 0.0)
      loss += r * r;
    else
      loss -= 0.5 * r;
    if (loss > cap)
      break;
  }
  return loss;
}
