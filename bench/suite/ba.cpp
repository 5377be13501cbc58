// ba.cpp - suite kernel: bundle adjustment reprojection error, as defined by
// the ADBench BA objective (written here from its definition). A camera has
// 11 parameters: Rodrigues rotation r (3), centre C (3), focal length f,
// principal point x0 (2), radial distortion k (2). Observation i sees point
// X[obs[2i+1]] from camera obs[2i]; its residual is
//   w_i (f L(|p|^2) p + x0 - feat_i),  p = (RX)_{0,1} / (RX)_2,  RX = R(r) (X - C),
//   L(s) = 1 + k1 s + k2 s^2,
// and each weight adds the residual 1 - w_i^2. The scalar loss is the sum of
// the squares of all residuals. Gradient with respect to cams, X and w.
#include <cgp/cgp.h>
#include <cmath>

#include "real.h"

constexpr int CAM = 11; // parameters per camera

// out = R(r) v, with R the rotation of angle |r| about r / |r| (Rodrigues);
// near r = 0, the first-order form v + r x v.
static void rodrigues_rotate(const real *r, const real *v, real *out) {
  real sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  if (sqtheta != 0.0) {
    real theta = sqrt(sqtheta);
    real costheta = cos(theta);
    real sintheta = sin(theta);
    real w[3];
    for (int i = 0; i < 3; ++i)
      w[i] = r[i] / theta;
    real wv = w[0] * v[0] + w[1] * v[1] + w[2] * v[2];
    real tmp = wv * (1.0 - costheta);
    out[0] = v[0] * costheta + (w[1] * v[2] - w[2] * v[1]) * sintheta + w[0] * tmp;
    out[1] = v[1] * costheta + (w[2] * v[0] - w[0] * v[2]) * sintheta + w[1] * tmp;
    out[2] = v[2] * costheta + (w[0] * v[1] - w[1] * v[0]) * sintheta + w[2] * tmp;
  } else {
    out[0] = v[0] + r[1] * v[2] - r[2] * v[1];
    out[1] = v[1] + r[2] * v[0] - r[0] * v[2];
    out[2] = v[2] + r[0] * v[1] - r[1] * v[0];
  }
}

// proj = the image of point pt through camera cam (radial distortion).
static void project(const real *cam, const real *pt, real *proj) {
  real v[3];
  for (int i = 0; i < 3; ++i)
    v[i] = pt[i] - cam[3 + i];
  real rx[3];
  rodrigues_rotate(cam, v, rx);
  real p0 = rx[0] / rx[2];
  real p1 = rx[1] / rx[2];
  real rsq = p0 * p0 + p1 * p1;
  real distortion = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
  proj[0] = cam[6] * distortion * p0 + cam[7];
  proj[1] = cam[6] * distortion * p1 + cam[8];
}

CGP_GRAD(cams, X, w)
real ba_objective(const real *cams, const real *X, const real *w, const int *obs,
                  const double *feats, int nobs) {
  real loss = 0.0;
  for (int i = 0; i < nobs; ++i) {
    const int c = obs[2 * i];
    const int pt = obs[2 * i + 1];
    real proj[2];
    project(cams + c * CAM, X + pt * 3, proj);
    real e0 = w[i] * (proj[0] - feats[2 * i]);
    real e1 = w[i] * (proj[1] - feats[2 * i + 1]);
    real we = 1.0 - w[i] * w[i];
    loss += e0 * e0 + e1 * e1 + we * we;
  }
  return loss;
}
