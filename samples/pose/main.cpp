// main.cpp - the Eigen sample's driver: moves a random model point cloud by a known rigid
// motion, adds noise and a few gross outliers, checks pose_loss_grad against central finite
// differences at the identity pose, then recovers the motion by gradient descent on the
// axis-angle vector w and the translation t.
#include <Eigen/Dense>

#include "pose.cgp.h"
#include "../common/sample_util.h"

#include <cmath>
#include <cstdio>
#include <vector>

// The kernel, defined in pose.cpp (the build compiles the generated pose.cgp.cpp instead).
double pose_loss(const Eigen::Vector3d& w, const Eigen::Vector3d& t,
                 const std::vector<Eigen::Vector3d>& model,
                 const std::vector<Eigen::Vector3d>& observed, double scale);

// Rodrigues' formula, as the kernel writes it, for the data.
static Eigen::Matrix3d rotate_by(const Eigen::Vector3d& w) {
  return Eigen::AngleAxisd(w.norm(), w.normalized()).toRotationMatrix();
}

int main() {
  constexpr int N = 400;
  constexpr double SCALE = 0.05;
  sample::Rng rng(7);
  const Eigen::Vector3d w_true(0.3, -0.2, 0.5), t_true(0.4, -0.1, 0.25);
  const Eigen::Matrix3d R_true = rotate_by(w_true);
  std::vector<Eigen::Vector3d> model(N), observed(N);
  for (int i = 0; i < N; ++i) {
    model[i] = Eigen::Vector3d(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    Eigen::Vector3d noise(rng.normal(), rng.normal(), rng.normal());
    observed[i] = R_true * model[i] + t_true + 0.01 * noise;
    if (i % 40 == 0) observed[i] += Eigen::Vector3d(1.5, -2.0, 1.0); // an outlier
  }

  // The 6 unknowns, w then t, as one buffer for the finite-difference checks.
  double p[6] = {0, 0, 0, 0, 0, 0};
  Eigen::Vector3d dw, dt;
  auto w = [&] { return Eigen::Vector3d(p[0], p[1], p[2]); };
  auto t = [&] { return Eigen::Vector3d(p[3], p[4], p[5]); };
  auto loss = [&] { return pose_loss(w(), t(), model, observed, SCALE); };
  auto grad = [&] {
    dw.setZero();
    dt.setZero();
    return pose_loss_grad(w(), t(), model, observed, SCALE, &dw, &dt);
  };

  std::printf("pose: rigid motion of %d points (Eigen::Vector3d, Matrix3d), Cauchy loss, "
              "unknowns w (axis-angle) and t\n", N);
  double value = loss();
  bool ok = sample::same_value(value, grad());
  std::printf("loss = %.10f at the identity pose\n", value);
  std::printf("gradient vs central finite differences:\n");
  for (int i = 0; i < 6; ++i) {
    double analytic = i < 3 ? dw(i) : dt(i - 3);
    ok &= sample::fd_check(i < 3 ? "w" : "t", i % 3, i < 3 ? p : p + 3, analytic, loss, 1e-5);
  }
  double tp = sample::median_seconds(loss);
  double tg = sample::median_seconds(grad);
  sample::print_timing(tp, tg);
  sample::print_tape();

  // Gradient descent with a backtracking step.
  std::printf("gradient descent:\n");
  constexpr int ITERS = 60;
  double lr = 1e-4;
  double f = grad(), f_start = f;
  for (int it = 0; it <= ITERS; ++it) {
    double g2 = dw.squaredNorm() + dt.squaredNorm();
    if (it < 3 || it % 10 == 0)
      std::printf("  iter %2d  loss %.6e  |grad| %.3e\n", it, f, std::sqrt(g2));
    if (it == ITERS) break;
    double step = 2.0 * lr, trial[6];
    for (int tries = 0; tries < 40; ++tries) {
      for (int k = 0; k < 3; ++k) {
        trial[k] = p[k] - step * dw(k);
        trial[3 + k] = p[3 + k] - step * dt(k);
      }
      double ftrial = pose_loss(Eigen::Vector3d(trial[0], trial[1], trial[2]),
                                Eigen::Vector3d(trial[3], trial[4], trial[5]), model, observed,
                                SCALE);
      if (ftrial <= f - 1e-4 * step * g2) break;
      step *= 0.5;
    }
    lr = step;
    for (int k = 0; k < 6; ++k) p[k] = trial[k];
    f = grad();
  }
  double w_err = (w() - w_true).norm(), t_err = (t() - t_true).norm();
  std::printf("fitted: w (%.4f, %.4f, %.4f), true (%.4f, %.4f, %.4f); t (%.4f, %.4f, %.4f), "
              "true (%.4f, %.4f, %.4f)\n", p[0], p[1], p[2], w_true(0), w_true(1), w_true(2),
              p[3], p[4], p[5], t_true(0), t_true(1), t_true(2));
  if (!(f < 0.5 * f_start) || w_err > 0.01 || t_err > 0.01) {
    std::printf("FAILED: gradient descent did not recover the motion (|w error| %.3g, "
                "|t error| %.3g)\n", w_err, t_err);
    ok = false;
  }
  if (!ok) std::printf("pose: FAILED\n");
  return ok ? 0 : 1;
}
