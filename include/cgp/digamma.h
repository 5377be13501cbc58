// cgp/digamma.h - the digamma function psi(x) = d/dx log(gamma(x)), which
// generated code calls for the derivatives of std::lgamma (psi) and
// std::tgamma (tgamma times psi). Header-only and CGP_HOST_DEVICE, so that
// gradients of CUDA kernels call it on the device too.
//
// Method: for x < 1/2 the reflection formula psi(x) = psi(1 - x) - pi cot(pi x),
// with cot taken of the distance from x to the nearest integer, so that large
// negative arguments lose no accuracy; then the recurrence
// psi(x) = psi(x + 1) - 1/x up to x >= 10; then the asymptotic series
// psi(x) = log x - 1/(2x) - sum B_2k / (2k x^2k), to x^-14. About 1e-15
// relative error away from the zero of psi near 1.4616 (where the error is
// about 1e-16 absolute); at 0 and the negative integers psi has poles and
// the result is infinite or NaN, as lgamma's derivative is.
#ifndef CGP_DIGAMMA_H
#define CGP_DIGAMMA_H

#include <cgp/host_device.h>

#include <cmath>

namespace cgp {

CGP_HOST_DEVICE inline double digamma(double x) {
  const double pi = 3.141592653589793;
  double result = 0;
  if (x < 0.5) {
    // psi(x) = psi(1 - x) - pi cot(pi x); cot has period 1 in x and is odd
    // about each integer, so reduce x to r in [-1/2, 1/2] first: exactly,
    // since x - nearbyint(x) is exact.
    double r = x - std::floor(x + 0.5);
    if (r == 0)
      return x == 0 ? -std::copysign(HUGE_VAL, x) : NAN; // a pole
    result = -pi / std::tan(pi * r);
    x = 1 - x;
  }
  for (; x < 10; x += 1)
    result -= 1 / x;
  double inverse2 = 1 / (x * x);
  // The Bernoulli numbers' terms, B_2k / (2k), in Horner form in 1/x^2.
  double series =
      inverse2 *
      (1.0 / 12 -
       inverse2 *
           (1.0 / 120 -
            inverse2 *
                (1.0 / 252 -
                 inverse2 * (1.0 / 240 - inverse2 * (1.0 / 132 -
                                                      inverse2 * (691.0 / 32760 -
                                                                  inverse2 * (1.0 / 12)))))));
  return result + std::log(x) - 0.5 / x - series;
}

CGP_HOST_DEVICE inline float digamma(float x) {
  return static_cast<float>(digamma(static_cast<double>(x)));
}

} // namespace cgp

#endif // CGP_DIGAMMA_H
