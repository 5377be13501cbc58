// energy.cpp - a kernel of the program: a double well per coordinate plus a
// soft pull towards 0.5. Includes found through the target's include folder.
#include <cgp/cgp.h>
#include "common.h"
#include "energy_terms.h"

#ifndef CONSUMER_DIRECTORY_DEFINE
#error "cgp-ad must see the folder's compile definitions"
#endif
static_assert(__cplusplus >= 201703L, "cgp-ad must parse with the target's C++ standard");

CGP_GRAD(x)
double energy(const double* x, int n) {
  double e = 0.0;
  for (int i = 0; i < n; ++i)
    e += well(x[i]) + soft_abs(x[i] - 0.5);
  return e;
}
