// ode.cpp - the kernel of the ODE sample: a Lotka-Volterra predator-prey model integrated by
// an adaptive embedded Heun/Euler (order 2/1) method with error control, and the squared
// misfit of its state at a few observation times. Differentiated in the log-parameters.
#include <cgp/cgp.h>
#include <cmath>

constexpr int S = 2; // state: prey, predator

// dz/dt for z = (prey, predator) and k = (alpha, beta, delta, gamma):
// prey' = alpha prey - beta prey predator, predator' = delta prey predator - gamma predator.
static void lotka_volterra(const double* k, const double* z, double* dz) {
  dz[0] = k[0] * z[0] - k[1] * z[0] * z[1];
  dz[1] = k[2] * z[0] * z[1] - k[3] * z[1];
}

// theta: log of (alpha, beta, delta, gamma). z0: initial state at t = 0. t_obs: nobs
// increasing times; z_obs: nobs x S observed states. tol: the local error tolerance.
// Returns sum over observations of |z(t_obs) - z_obs|^2.
CGP_GRAD(theta)
double ode_loss(const double* theta, const double* z0, const double* t_obs, const double* z_obs,
                int nobs, double tol) {
  double k[4];
  for (int i = 0; i < 4; ++i) k[i] = std::exp(theta[i]);
  double z[S];
  double k1[S];
  double k2[S];
  double ze[S];
  for (int i = 0; i < S; ++i) z[i] = z0[i];
  double t = 0.0;
  double h = 0.01; // trial step, adapted below
  double loss = 0.0;
  for (int o = 0; o < nobs; ++o) {
    double t_end = t_obs[o];
    while (t < t_end) {
      bool last = h >= t_end - t;
      double step = last ? t_end - t : h;
      // Euler predictor, Heun corrector; their difference estimates the local error
      lotka_volterra(k, z, k1);
      for (int i = 0; i < S; ++i) ze[i] = z[i] + step * k1[i];
      lotka_volterra(k, ze, k2);
      double err = 0.0;
      for (int i = 0; i < S; ++i) {
        double e = 0.5 * step * (k2[i] - k1[i]) / (tol * (1.0 + std::fabs(z[i])));
        err += e * e;
      }
      err = std::sqrt(err / S);
      if (err <= 1.0) { // accept
        for (int i = 0; i < S; ++i) z[i] += 0.5 * step * (k1[i] + k2[i]);
        t = last ? t_end : t + step;
      }
      // next trial step: the error of Euler scales like step^2
      h = step * std::fmin(4.0, std::fmax(0.2, 0.9 / std::sqrt(std::fmax(err, 1e-12))));
    }
    for (int i = 0; i < S; ++i) {
      double d = z[i] - z_obs[o * S + i];
      loss += d * d;
    }
  }
  return loss;
}
