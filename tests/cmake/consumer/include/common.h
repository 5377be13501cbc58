// common.h - a smooth |x| that both kernels call (cgp-ad differentiates it
// in each); tests/cmake/check-gradients.sh edits it to regenerate both.
#pragma once
#include <cmath>

inline double soft_abs(double x) { return std::sqrt(x * x + 1e-2); }
