// main.cpp - the ODE sample's driver: observes a Lotka-Volterra system at 8 times, checks
// ode_loss_grad against central finite differences at a wrong starting guess, then fits the
// 4 parameters by gradient descent (backtracking step), printing the loss as it falls.
#include "ode.cgp.h"
#include "../common/sample_util.h"

#include <cstdio>
#include <vector>

// The kernel, defined in ode.cpp (the build compiles the generated ode.cgp.cpp instead).
double ode_loss(const double* theta, const double* z0, const double* t_obs, const double* z_obs,
                int nobs, double tol);

// The reference solution for the observations: classic RK4 with a fine fixed step.
static void reference(const double* k, double* z, double t_span) {
  auto f = [k](const double* y, double* dy) {
    dy[0] = k[0] * y[0] - k[1] * y[0] * y[1];
    dy[1] = k[2] * y[0] * y[1] - k[3] * y[1];
  };
  int steps = static_cast<int>(t_span / 1e-3 + 0.5);
  double h = t_span / steps;
  for (int s = 0; s < steps; ++s) {
    double k1[2], k2[2], k3[2], k4[2], y[2];
    f(z, k1);
    for (int i = 0; i < 2; ++i) y[i] = z[i] + 0.5 * h * k1[i];
    f(y, k2);
    for (int i = 0; i < 2; ++i) y[i] = z[i] + 0.5 * h * k2[i];
    f(y, k3);
    for (int i = 0; i < 2; ++i) y[i] = z[i] + h * k3[i];
    f(y, k4);
    for (int i = 0; i < 2; ++i) z[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
}

int main() {
  constexpr int NOBS = 8;
  constexpr double TOL = 1e-5;
  const char* names[4] = {"alpha", "beta", "delta", "gamma"};
  const double truth[4] = {1.1, 0.4, 0.1, 0.4};
  const double guess[4] = {1.4, 0.3, 0.13, 0.3};
  const double z0[2] = {10.0, 5.0};
  std::vector<double> t_obs(NOBS), z_obs(2 * NOBS);
  double z[2] = {z0[0], z0[1]}, t = 0.0;
  for (int o = 0; o < NOBS; ++o) {
    t_obs[o] = 1.5 * (o + 1);
    reference(truth, z, t_obs[o] - t);
    t = t_obs[o];
    z_obs[2 * o] = z[0];
    z_obs[2 * o + 1] = z[1];
  }

  double theta[4], dtheta[4];
  for (int i = 0; i < 4; ++i) theta[i] = std::log(guess[i]);
  auto loss = [&] { return ode_loss(theta, z0, t_obs.data(), z_obs.data(), NOBS, TOL); };
  auto grad = [&] {
    for (double& d : dtheta) d = 0.0;
    return ode_loss_grad(theta, z0, t_obs.data(), z_obs.data(), NOBS, TOL, dtheta);
  };

  std::printf("ode: Lotka-Volterra fit, adaptive Heun/Euler (tol %g), %d observations up to "
              "t = %g, parameters theta = log(alpha, beta, delta, gamma)\n",
              TOL, NOBS, t_obs[NOBS - 1]);
  double value = loss();
  bool ok = sample::same_value(value, grad());
  std::printf("loss = %.10f at the starting guess\n", value);
  std::printf("gradient vs central finite differences:\n");
  // (tolerance 1e-4: the step-size control makes the loss smooth only between the points
  // where an accept/reject decision flips)
  for (int i = 0; i < 4; ++i) ok &= sample::fd_check("theta", i, theta, dtheta[i], loss, 1e-4);
  double tp = sample::median_seconds(loss);
  double tg = sample::median_seconds(grad);
  sample::print_timing(tp, tg);
  sample::print_tape();

  // Gradient descent on theta; each step halves until the loss decreases enough (Armijo).
  std::printf("gradient descent:\n");
  constexpr int ITERS = 40;
  double lr = 1e-3;
  double f = grad(), f_start = f;
  for (int it = 0; it <= ITERS; ++it) {
    double g2 = 0.0, trial[4];
    for (double d : dtheta) g2 += d * d;
    if (it < 5 || it % 5 == 0)
      std::printf("  iter %2d  loss %.6e  |grad| %.3e\n", it, f, std::sqrt(g2));
    if (it == ITERS) break;
    double step = 2.0 * lr, ftrial = f;
    for (int tries = 0; tries < 40; ++tries) {
      for (int i = 0; i < 4; ++i) trial[i] = theta[i] - step * dtheta[i];
      ftrial = ode_loss(trial, z0, t_obs.data(), z_obs.data(), NOBS, TOL);
      if (ftrial <= f - 1e-4 * step * g2) break;
      step *= 0.5;
    }
    lr = step;
    for (int i = 0; i < 4; ++i) theta[i] = trial[i];
    f = grad();
  }
  if (!(f < 0.05 * f_start)) {
    std::printf("FAILED: gradient descent did not lower the loss 20-fold\n");
    ok = false;
  }
  std::printf("fitted:");
  for (int i = 0; i < 4; ++i)
    std::printf(" %s %.4f (true %.4f)%s", names[i], std::exp(theta[i]), truth[i], i < 3 ? "," : "\n");
  if (!ok) std::printf("ode: FAILED: a gradient entry disagrees with finite differences\n");
  return ok ? 0 : 1;
}
