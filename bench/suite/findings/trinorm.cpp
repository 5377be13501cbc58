// trinorm.cpp - minimal kernel for a tape-size finding of bench/suite (not a
// wrong gradient): |L x_p|^2 summed over points, L packed lower-triangular
// and walked column by column with a running index, as the GMM's Q is. The
// generated forward sweep pushes the old q[i] before every `q[i] += ...`
// (the reverse sweep never reads it: the pops at line 19's reverse restore
// q), `li` at every `++li` (a function of i and j), and the inner loop's
// trip count and first index per column (functions of j). Show with:
//   cgp-ad --explain trinorm.cpp -o out -- -std=c++17 -I PREFIX/include
// (q at line 23: 625 KiB, li at line 24: 312 KiB; what the reverse sweep
// needs is the 6.2 KiB of q at line 19). gmm.cpp uses the row form instead:
// --explain estimates 0.4 MiB of tape for it against 29 MiB for the column
// form at d=10, K=25.
#include <cgp/cgp.h>

CGP_GRAD(L)
double trinorm(const double *L, const double *x, int n) {
  double s = 0.0;
  for (int p = 0; p < n; ++p) {
    double q[8];
    for (int i = 0; i < 8; ++i)
      q[i] = x[p * 8 + i];
    int li = 0;
    for (int j = 0; j < 8; ++j)
      for (int i = j + 1; i < 8; ++i) {
        q[i] += L[li] * x[p * 8 + j];
        ++li;
      }
    for (int i = 0; i < 8; ++i)
      s += q[i] * q[i];
  }
  return s;
}
