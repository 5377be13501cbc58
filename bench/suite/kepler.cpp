// kepler.cpp - suite kernel: fitting a Keplerian orbit to observed positions.
// For each observation time t_i, the mean anomaly M = nu t_i + M0 gives the
// eccentric anomaly E by solving Kepler's equation E - e sin E = M with a
// fixed number (NEWTON) of Newton steps from E = M,
//   E -= (E - e sin E - M) / (1 - e cos E),
// then the position on the ellipse, relative to its focus, is
// (a (cos E - e), b sin E) with b = a sqrt(1 - e^2), rotated by the argument
// of periapsis omega and shifted by the focus's position (cx, cy). The loss is
// the sum of squared distances to the observed positions. It is in the suite
// for its shape: an inner loop whose state is one double (E) but whose every
// iteration tapes a sin, a cos and a division, inside an outer loop of many
// independent observations - a large tape for a small state.
// Parameters p (7): a, e_raw (e = 0.9 / (1 + exp(-e_raw)), which keeps e in
// (0, 0.9)), nu (mean motion), M0, omega, cx, cy.
#include <cgp/cgp.h>
#include <cmath>

#include "real.h"

constexpr int NEWTON = 16; // Newton steps per observation

CGP_GRAD(p)
real kepler_loss(const real *p, const double *t, const double *observed, int n) {
  const real a = p[0];
  const real e = 0.9 / (1.0 + exp(-p[1]));
  const real b = a * sqrt(1.0 - e * e);
  const real c = cos(p[4]), s = sin(p[4]);
  real loss = 0.0;
  for (int i = 0; i < n; ++i) {
    const real M = p[2] * t[i] + p[3];
    real E = M;
    for (int it = 0; it < NEWTON; ++it)
      E -= (E - e * sin(E) - M) / (1.0 - e * cos(E));
    const real u = a * (cos(E) - e);
    const real v = b * sin(E);
    const real dx = c * u - s * v + p[5] - observed[2 * i];
    const real dy = s * u + c * v + p[6] - observed[2 * i + 1];
    loss += dx * dx + dy * dy;
  }
  return loss;
}
