// Eigen matrices inside what holds them: a struct of matrices with a const
// method (a camera projecting points), a helper writing a Vector2d through
// a reference, a std::vector<Vector3d> parameter that is differentiated and
// a std::vector<Vector2d> that is not (its elements copied where a helper
// takes them), an array of Vector3d through a pointer, and Eigen::Map views
// of pointer parameters, read and written through. A matrix member is an
// array leaf of its struct (`cam_R[9]`); a vector of matrices is one flat
// buffer of their coefficients; a Map is its buffer and an offset (`p_at`).
//
// REQUIRES: eigen
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17 %eigen
// RUN: %cxx %cxxflags %harness %t/eigen_structs_and_containers.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %san-harness %t/eigen_structs_and_containers.cgp.cpp -o %t/run-san %ldflags && %t/run-san
// RUN: %check-strategies %s %t/strategies
#define EIGEN_DONT_VECTORIZE
#include <cgp/cgp.h>
#include <Eigen/Dense>
#include <cstddef>
#include <vector>

using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;

struct Camera {
  Matrix3d R;
  Vector3d t;
  double f;
  Vector2d project(const Vector3d& X) const {
    Vector3d p = R * X + t;
    return Vector2d(f * p(0) / p(2), f * p(1) / p(2));
  }
};

void residual(const Camera& cam, const Vector3d& X, const Vector2d& obs, Vector2d& r) {
  r = cam.project(X) - obs;
}

CGP_GRAD(cam, pts)
CGP_JVP(cam, pts)
double reprojection(const Camera& cam, const std::vector<Vector3d>& pts,
                    const std::vector<Vector2d>& obs) {
  double e = 0.0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    Vector2d r;
    residual(cam, pts[i], obs[i], r);
    e += r.squaredNorm();
  }
  return e;
}

CGP_GRAD(pts)
CGP_JVP(pts)
double spread(const Vector3d* pts, int n) {
  Vector3d c = Vector3d::Zero();
  for (int i = 0; i < n; ++i)
    c += pts[i];
  c /= n;
  double s = 0.0;
  for (int i = 0; i < n; ++i)
    s += (pts[i] - c).norm();
  return s;
}

// Eigen::Map locals over pointer parameters, read and written through, and a
// Map made where it is used.
CGP_GRAD(x, y)
CGP_JVP(x, y)
double mapped(const double* x, double* y, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) {
    Eigen::Map<const Vector3d> p(x + 3 * i);
    Eigen::Map<Vector3d> q(y + 3 * i);
    q = 0.5 * q + p.cross(Vector3d::UnitZ());
    s += p.squaredNorm() * q(1);
  }
  return s + Eigen::Map<const Matrix3d>(x).determinant();
}

#ifndef __CGP_AD__
#include "check.h"

double reprojection_grad(const Camera& cam, const std::vector<Vector3d>& pts,
                         const std::vector<Vector2d>& obs, Camera* d_cam,
                         std::vector<Vector3d>* d_pts);
double reprojection_jvp(const Camera& cam, const std::vector<Vector3d>& pts,
                        const std::vector<Vector2d>& obs, Camera t_cam,
                        std::vector<Vector3d> t_pts);
double spread_grad(const Vector3d* pts, int n, Vector3d* d_pts);
double spread_jvp(const Vector3d* pts, int n, const Vector3d* t_pts);

// A Camera is 13 doubles: R, t, f; n points are 3n doubles.
static Camera camera(const double* v) {
  Camera c;
  for (int k = 0; k < 9; ++k) c.R.data()[k] = v[k];
  c.t = Vector3d(v[9], v[10], v[11]);
  c.f = v[12];
  return c;
}
static void store(const Camera& c, double* v) {
  for (int k = 0; k < 9; ++k) v[k] = c.R.data()[k];
  for (int k = 0; k < 3; ++k) v[9 + k] = c.t(k);
  v[12] = c.f;
}
static std::vector<Vector3d> points(const double* v, int n) {
  std::vector<Vector3d> p(n);
  for (int i = 0; i < n; ++i) p[i] = Vector3d(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
  return p;
}
static void store(const std::vector<Vector3d>& p, double* v) {
  for (std::size_t i = 0; i < p.size(); ++i)
    for (int k = 0; k < 3; ++k) v[3 * i + k] = p[i](k);
}

int main() {
  const int n = 5;
  {
    cgp_test::Checker c("reprojection (struct of matrices with a method, vector<Vector3d>)");
    std::vector<double>& cam = c.in("cam", 13, -0.2, 0.2);
    std::vector<double>& X = c.in("pts", 3 * n, -0.5, 0.5);
    for (int k = 0; k < 3; ++k) cam[4 * k] += 1.0; // R near the identity
    cam[11] = 4.0;                                 // points in front of the camera
    cam[12] = 1.5;
    std::vector<Vector2d> obs(n);
    for (int i = 0; i < n; ++i) obs[i] = Vector2d(c.uniform(-0.3, 0.3), c.uniform(-0.3, 0.3));
    c.primal([&] { return reprojection(camera(cam.data()), points(X.data(), n), obs); });
    c.grad([&](cgp_test::Grads& d) {
      Camera dc = camera(d.f64("cam"));
      std::vector<Vector3d> dp = points(d.f64("pts"), n);
      double value = reprojection_grad(camera(cam.data()), points(X.data(), n), obs, &dc, &dp);
      store(dc, d.f64("cam"));
      store(dp, d.f64("pts"));
      return value;
    });
    c.jvp([&](cgp_test::Tangents& t) {
      return reprojection_jvp(camera(cam.data()), points(X.data(), n), obs,
                              camera(t.f64("cam")), points(t.f64("pts"), n));
    });
    c.run();
  }
  {
    cgp_test::Checker c("spread (const Vector3d*)");
    std::vector<double>& X = c.in("pts", 3 * n, -1.0, 1.0);
    c.primal([&] {
      std::vector<Vector3d> p = points(X.data(), n);
      return spread(p.data(), n);
    });
    c.grad([&](cgp_test::Grads& d) {
      std::vector<Vector3d> p = points(X.data(), n), dp = points(d.f64("pts"), n);
      double value = spread_grad(p.data(), n, dp.data());
      store(dp, d.f64("pts"));
      return value;
    });
    c.jvp([&](cgp_test::Tangents& t) {
      std::vector<Vector3d> p = points(X.data(), n), tp = points(t.f64("pts"), n);
      return spread_jvp(p.data(), n, tp.data());
    });
    c.run();
  }
  {
    cgp_test::Checker c("mapped (Eigen::Map over pointers)");
    std::vector<double>& x = c.in("x", 9, -1.0, 1.0);
    std::vector<double>& y = c.inout("y", 9, -1.0, 1.0);
    c.primal([&] { return mapped(x.data(), y.data(), 3); });
    c.grad([&](cgp_test::Grads& d) { return mapped_grad(x.data(), y.data(), 3, d.f64("x"), d.f64("y")); });
    c.jvp([&](cgp_test::Tangents& t) { return mapped_jvp(x.data(), y.data(), 3, t.f64("x"), t.f64("y")); });
    c.run();
  }
  return cgp_test::finish();
}
#endif
