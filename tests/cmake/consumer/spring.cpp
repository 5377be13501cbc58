// spring.cpp - the library's kernel: a chain of springs between neighbours
// and a soft anchor of each point at 0.
#include <cgp/cgp.h>
#include "common.h"
#include "spring_law.h"

#ifndef CONSUMER_DIRECTORY_DEFINE
#error "cgp-ad must see the folder's compile definitions"
#endif

CGP_GRAD(x)
double chain(const double* x, int n) {
  double e = 0.0;
  for (int i = 0; i + 1 < n; ++i)
    e += spring(x[i + 1] - x[i]) + soft_abs(x[i]);
  return e;
}
