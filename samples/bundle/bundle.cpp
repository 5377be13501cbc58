// bundle.cpp - the kernel of the bundle-adjustment sample, written in modern C++: the
// squared reprojection error of 3-D points seen by pinhole cameras with radial distortion
// (the ADBench bundle-adjustment model: 11 parameters per camera, Rodrigues rotation,
// centre, focal length, principal point, two distortion terms), plus a prior pulling every
// observation weight to one. Camera parameters, points and weights are std::vectors, the
// robust-loss settings a struct passed by value, the projection a function template on the
// scalar type with std::array temporaries.
#include "bundle.h"

#include <cgp/cgp.h>

#include <array>
#include <cmath>
#include <vector>

template <typename T>
T sqnorm(const std::array<T, 3>& v) {
  T s = 0;
  for (const T& x : v)
    s += x * x;
  return s;
}

/// out = X rotated by the axis-angle vector rot (Rodrigues' formula).
template <typename T>
void rodrigues(const T* rot, const std::array<T, 3>& X, std::array<T, 3>& out) {
  std::array<T, 3> w = {rot[0], rot[1], rot[2]};
  T theta2 = sqnorm(w);
  if (theta2 > 1e-12) {
    T theta = std::sqrt(theta2);
    T c = std::cos(theta), s = std::sin(theta);
    std::array<T, 3> k = {w[0] / theta, w[1] / theta, w[2] / theta};
    std::array<T, 3> kx = {k[1] * X[2] - k[2] * X[1], k[2] * X[0] - k[0] * X[2],
                           k[0] * X[1] - k[1] * X[0]};
    T kdot = k[0] * X[0] + k[1] * X[1] + k[2] * X[2];
    for (int i = 0; i < 3; ++i)
      out[i] = X[i] * c + kx[i] * s + k[i] * kdot * (1 - c);
  } else {
    out[0] = X[0] + w[1] * X[2] - w[2] * X[1];
    out[1] = X[1] + w[2] * X[0] - w[0] * X[2];
    out[2] = X[2] + w[0] * X[1] - w[1] * X[0];
  }
}

/// Projects the point X with the camera cam (CAM parameters) to the image.
template <typename T>
void project(const T* cam, const T* X, std::array<T, 2>& proj) {
  std::array<T, 3> Xc = {X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]};
  std::array<T, 3> Xr{};
  rodrigues(cam, Xc, Xr);
  std::array<T, 2> p = {Xr[0] / Xr[2], Xr[1] / Xr[2]};
  T r2 = p[0] * p[0] + p[1] * p[1];
  T distortion = 1 + cam[9] * r2 + cam[10] * r2 * r2;
  for (int i = 0; i < 2; ++i)
    proj[i] = cam[6] * distortion * p[i] + cam[7 + i];
}

template <typename T>
T huber(T r2, double delta) {
  if (r2 <= delta * delta)
    return r2;
  return 2 * delta * std::sqrt(r2) - delta * delta;
}

// The loss: observation i sees point obs[2i + 1] from camera obs[2i] at feats[2i..2i+1].
CGP_GRAD(cams, X, w)
double bundle_loss(const std::vector<double>& cams, const std::vector<double>& X,
                   const std::vector<double>& w, const std::vector<int>& obs,
                   const std::vector<double>& feats, LossSettings settings) {
  std::vector<double> residuals(feats.size());
  double total = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::array<double, 2> proj{};
    project(&cams[obs[2 * i] * CAM], &X[obs[2 * i + 1] * 3], proj);
    for (int j = 0; j < 2; ++j)
      residuals[2 * i + j] = w[i] * (proj[j] - feats[2 * i + j]);
    double r2 = residuals[2 * i] * residuals[2 * i] + residuals[2 * i + 1] * residuals[2 * i + 1];
    total += huber(r2, settings.huber);
  }
  for (double wi : w)
    total += settings.weight_prior * (1 - wi * wi) * (1 - wi * wi);
  return total;
}
