// grad.cpp - calls the gradient that the installed cgp-ad generated from
// kernel.cpp and prints value and gradient; exit status 1 if they are wrong.
#include "gen/kernel.cgp.h"

#include <cstdio>

int main() {
  double x[3] = {1.0, 2.0, -0.5}, dx[3] = {0.0, 0.0, 0.0};
  double value = cube_sum_grad(x, 3, dx);
  std::printf("cube_sum = %g, gradient = %g %g %g\n", value, dx[0], dx[1], dx[2]);
  bool ok = value == 8.875 && dx[0] == 3.0 && dx[1] == 12.0 && dx[2] == 0.75;
  return ok ? 0 : 1;
}
