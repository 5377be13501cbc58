// The first-order unit of e2e/higher_order.cpp: a kernel in forward mode,
// which cgp-ad generates into higher_order_kernel.cgp.cpp for that test to
// include and differentiate again.
#include <cgp/cgp.h>
#include <cmath>

CGP_JVP(x)
double energy(const double* x, int n) {
  double e = 0.0;
  for (int i = 0; i + 1 < n; ++i) {
    double bond = x[i + 1] - x[i];
    e += std::sin(x[i]) * bond * bond + std::exp(0.1 * x[i] * x[i + 1]);
  }
  return e;
}
