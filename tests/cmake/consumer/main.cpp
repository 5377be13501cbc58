// main.cpp - calls the gradients of both kernels through their generated
// headers and compares every entry with central finite differences of the
// kernels themselves; prints the largest relative error, exit status 1 if
// any is above 1e-6.
#include "energy.cgp.h"
#include "spring.cgp.h"

#include <cmath>
#include <cstdio>

double energy(const double* x, int n);
double chain(const double* x, int n);

using Kernel = double (*)(const double*, int);
using Gradient = double (*)(const double*, int, double*);

static double check(const char* name, Kernel f, Gradient g) {
  const int n = 5;
  double x[n] = {0.3, -1.2, 2.0, 0.7, -0.4}, d[n] = {0, 0, 0, 0, 0};
  double value = g(x, n, d), worst = std::fabs(value - f(x, n));
  for (int i = 0; i < n; ++i) {
    const double h = 1e-6, keep = x[i];
    x[i] = keep + h;
    double up = f(x, n);
    x[i] = keep - h;
    double down = f(x, n);
    x[i] = keep;
    double fd = (up - down) / (2 * h);
    worst = std::fmax(worst, std::fabs(d[i] - fd) / std::fmax(1.0, std::fabs(fd)));
  }
  std::printf("%s: value %.6f, largest gradient error vs finite differences %.1e\n", name, value,
              worst);
  return worst;
}

int main() {
  double worst = std::fmax(check("energy", energy, energy_grad), check("chain", chain, chain_grad));
  return worst < 1e-6 ? 0 : 1;
}
