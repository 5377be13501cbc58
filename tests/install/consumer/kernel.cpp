// kernel.cpp - a kernel the consumer differentiates at build time with the
// installed cgp-ad (only with CHECK_TOOL=ON): sum of x[i]^3, whose gradient
// 3 x[i]^2 grad.cpp checks. cube() comes from cube.h.
#include <cgp/cgp.h>
#include "cube.h"

CGP_GRAD(x)
double cube_sum(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i)
    s += cube(x[i]);
  return s;
}
