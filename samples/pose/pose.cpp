// pose.cpp - the Eigen sample's kernel: how badly a rigid motion (a rotation given by its
// axis-angle vector w and a translation t, Eigen::Vector3d each) moves a model point cloud
// onto observed points, under a Cauchy loss that forgives outliers. cgp-ad differentiates
// it with respect to w and t, through Rodrigues' formula written with Eigen's matrices.
#include <cgp/cgp.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>
#include <vector>

// The rotation matrix of the axis-angle vector w (Rodrigues' formula), smooth at w = 0.
static Eigen::Matrix3d rotation(const Eigen::Vector3d& w) {
  double theta = std::sqrt(w.squaredNorm() + 1e-18);
  Eigen::Vector3d k = w / theta;
  Eigen::Matrix3d K;
  K << 0.0, -k.z(), k.y(),
       k.z(), 0.0, -k.x(),
       -k.y(), k.x(), 0.0;
  return Eigen::Matrix3d::Identity() + std::sin(theta) * K + (1.0 - std::cos(theta)) * K * K;
}

CGP_GRAD(w, t)
double pose_loss(const Eigen::Vector3d& w, const Eigen::Vector3d& t,
                 const std::vector<Eigen::Vector3d>& model,
                 const std::vector<Eigen::Vector3d>& observed, double scale) {
  Eigen::Matrix3d R = rotation(w);
  double loss = 0.0;
  for (std::size_t i = 0; i < model.size(); ++i) {
    Eigen::Vector3d r = R * model[i] + t - observed[i];
    loss += std::log1p(r.squaredNorm() / (scale * scale));
  }
  return loss;
}
