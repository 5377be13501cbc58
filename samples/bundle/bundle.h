// bundle.h - what the bundle-adjustment sample's kernel and driver share: the camera layout,
// the loss settings passed by value, and the kernel's declaration. Included before the
// generated bundle.cgp.h, whose gradient takes a LossSettings.
#ifndef BUNDLE_H
#define BUNDLE_H

#include <vector>

constexpr int CAM = 11; // rotation (3), centre (3), focal (1), principal point (2), distortion (2)

/// How residuals count: Huber beyond `huber`, and the weight prior's strength.
struct LossSettings {
  double huber;
  double weight_prior;
};

double bundle_loss(const std::vector<double>& cams, const std::vector<double>& X,
                   const std::vector<double>& w, const std::vector<int>& obs,
                   const std::vector<double>& feats, LossSettings settings);

#endif
