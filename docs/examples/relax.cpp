#include <cgp/cgp.h>
#include <cmath>

static void damp(double* h, int n, double a) {
  for (int i = 0; i < n; ++i)
    h[i] = std::tanh(a * h[i]);
}

CGP_GRAD(h, a)
void relax(double* h, double a, int n, double tol) {
  double change = 1.0;
  while (change > tol) {
    double before = h[0];
    damp(h, n, a);
    change = std::fabs(h[0] - before);
  }
}
