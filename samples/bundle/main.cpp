// main.cpp - the bundle-adjustment sample's driver: builds a small synthetic scene (cameras
// on a ring looking at a cloud of points, noisy observations), calls bundle_loss and
// bundle_loss_grad on std::vectors, checks gradient entries against central finite
// differences, prints timings and tape size, then takes a few gradient steps.
#include "bundle.h"
#include "bundle.cgp.h"
#include "../common/sample_util.h"

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  constexpr int NCAM = 6, NPT = 40, NOBS = 160;
  sample::Rng rng(11);
  std::vector<double> cams(NCAM * CAM), X(NPT * 3), w(NOBS, 1.0), feats(2 * NOBS);
  std::vector<int> obs(2 * NOBS);
  for (int c = 0; c < NCAM; ++c) {
    double a = 2 * 3.14159265358979 * c / NCAM;
    double* cam = &cams[c * CAM];
    cam[0] = 0.05 * rng.normal(); cam[1] = a + 0.05 * rng.normal(); cam[2] = 0.05 * rng.normal();
    cam[3] = -8 * std::sin(a); cam[4] = 0.2 * rng.normal(); cam[5] = -8 * std::cos(a);
    cam[6] = 1.0 + 0.1 * rng.normal(); cam[7] = 0.01 * rng.normal(); cam[8] = 0.01 * rng.normal();
    cam[9] = 0.01 * rng.normal(); cam[10] = 0.001 * rng.normal();
  }
  for (double& v : X) v = rng.normal();
  for (int i = 0; i < NOBS; ++i) {
    obs[2 * i] = i % NCAM;
    obs[2 * i + 1] = (7 * i) % NPT;
    feats[2 * i] = 0.3 * rng.normal();
    feats[2 * i + 1] = 0.3 * rng.normal();
  }
  const LossSettings settings{0.5, 0.1};

  auto loss = [&] { return bundle_loss(cams, X, w, obs, feats, settings); };
  std::vector<double> dcams(cams.size()), dX(X.size()), dw(w.size());
  auto grad = [&] {
    for (auto* d : {&dcams, &dX, &dw}) std::fill(d->begin(), d->end(), 0.0);
    return bundle_loss_grad(cams, X, w, obs, feats, settings, &dcams, &dX, &dw);
  };

  std::printf("bundle: bundle adjustment in modern C++ (std::vector data, a settings struct, "
              "function templates), %d cameras, %d points, %d observations\n", NCAM, NPT, NOBS);
  double value = loss();
  bool ok = sample::same_value(value, grad());
  std::printf("loss = %.10f (Huber reprojection error + weight prior)\n", value);
  std::printf("gradient vs central finite differences:\n");
  ok &= sample::fd_check("cams", 1 * CAM + 1, cams.data(), dcams[1 * CAM + 1], loss); // rotation
  ok &= sample::fd_check("cams", 2 * CAM + 6, cams.data(), dcams[2 * CAM + 6], loss); // focal
  ok &= sample::fd_check("cams", 4 * CAM + 9, cams.data(), dcams[4 * CAM + 9], loss); // distortion
  ok &= sample::fd_check("X", 7, X.data(), dX[7], loss);
  ok &= sample::fd_check("w", 3, w.data(), dw[3], loss);
  double tp = sample::median_seconds(loss);
  double tg = sample::median_seconds(grad);
  sample::print_timing(tp, tg);
  sample::print_tape();

  // A few gradient steps on the points; each step halves until the loss decreases.
  std::printf("gradient steps (points):\n");
  double f = value, f_start = value, lr = 1e-2;
  std::printf("  step  0  loss %.6f\n", f);
  for (int it = 1; it <= 8; ++it) {
    f = grad();
    std::vector<double> saved = X;
    double step = 2.0 * lr, ftrial = f;
    for (int tries = 0; tries < 40 && ftrial >= f; ++tries) {
      step *= 0.5;
      for (std::size_t i = 0; i < X.size(); ++i) X[i] = saved[i] - step * dX[i];
      ftrial = loss();
    }
    if (ftrial >= f) X = saved;
    f = ftrial < f ? ftrial : f;
    std::printf("  step %2d  loss %.6f\n", it, f);
  }
  ok &= f < f_start;
  std::printf("%s\n", ok ? "bundle: OK" : "bundle: FAILED");
  return ok ? 0 : 1;
}
