// cgp/complex.h - the parts of std::complex's results that generated code
// takes from the standard library: `cgp::complex_exp_re(x, y)` is the real
// part of `std::exp(std::complex<T>(x, y))`. cgp-ad lowers a complex number
// to its two parts and differentiates its arithmetic as arithmetic of real
// numbers; for division and the transcendental functions it calls these, so
// that the gradient's values are the primal's to the last bit, whatever
// algorithm the library uses (scaled division, the C library's cexp), and
// differentiates them with the table's rules (the Cauchy-Riemann equations
// of each function's complex derivative). Host code only.
#ifndef CGP_COMPLEX_H
#define CGP_COMPLEX_H

#include <complex>

namespace cgp {

#define CGP_COMPLEX_PARTS(T)                                                                  \
  inline T complex_div_re(T a, T b, T c, T d) {                                               \
    return (std::complex<T>(a, b) / std::complex<T>(c, d)).real();                            \
  }                                                                                           \
  inline T complex_div_im(T a, T b, T c, T d) {                                               \
    return (std::complex<T>(a, b) / std::complex<T>(c, d)).imag();                            \
  }                                                                                           \
  inline T complex_exp_re(T x, T y) { return std::exp(std::complex<T>(x, y)).real(); }        \
  inline T complex_exp_im(T x, T y) { return std::exp(std::complex<T>(x, y)).imag(); }        \
  inline T complex_log_re(T x, T y) { return std::log(std::complex<T>(x, y)).real(); }        \
  inline T complex_log_im(T x, T y) { return std::log(std::complex<T>(x, y)).imag(); }        \
  inline T complex_log10_re(T x, T y) { return std::log10(std::complex<T>(x, y)).real(); }    \
  inline T complex_log10_im(T x, T y) { return std::log10(std::complex<T>(x, y)).imag(); }    \
  inline T complex_sin_re(T x, T y) { return std::sin(std::complex<T>(x, y)).real(); }        \
  inline T complex_sin_im(T x, T y) { return std::sin(std::complex<T>(x, y)).imag(); }        \
  inline T complex_cos_re(T x, T y) { return std::cos(std::complex<T>(x, y)).real(); }        \
  inline T complex_cos_im(T x, T y) { return std::cos(std::complex<T>(x, y)).imag(); }        \
  inline T complex_tan_re(T x, T y) { return std::tan(std::complex<T>(x, y)).real(); }        \
  inline T complex_tan_im(T x, T y) { return std::tan(std::complex<T>(x, y)).imag(); }        \
  inline T complex_sinh_re(T x, T y) { return std::sinh(std::complex<T>(x, y)).real(); }      \
  inline T complex_sinh_im(T x, T y) { return std::sinh(std::complex<T>(x, y)).imag(); }      \
  inline T complex_cosh_re(T x, T y) { return std::cosh(std::complex<T>(x, y)).real(); }      \
  inline T complex_cosh_im(T x, T y) { return std::cosh(std::complex<T>(x, y)).imag(); }      \
  inline T complex_tanh_re(T x, T y) { return std::tanh(std::complex<T>(x, y)).real(); }      \
  inline T complex_tanh_im(T x, T y) { return std::tanh(std::complex<T>(x, y)).imag(); }      \
  inline T complex_sqrt_re(T x, T y) { return std::sqrt(std::complex<T>(x, y)).real(); }      \
  inline T complex_sqrt_im(T x, T y) { return std::sqrt(std::complex<T>(x, y)).imag(); }      \
  inline T complex_pow_re(T a, T b, T c, T d) {                                               \
    return std::pow(std::complex<T>(a, b), std::complex<T>(c, d)).real();                     \
  }                                                                                           \
  inline T complex_pow_im(T a, T b, T c, T d) {                                               \
    return std::pow(std::complex<T>(a, b), std::complex<T>(c, d)).imag();                     \
  }                                                                                           \
  inline T complex_pow_real_re(T a, T b, T p) {                                               \
    return std::pow(std::complex<T>(a, b), p).real();                                         \
  }                                                                                           \
  inline T complex_pow_real_im(T a, T b, T p) {                                               \
    return std::pow(std::complex<T>(a, b), p).imag();                                         \
  }                                                                                           \
  inline T complex_real_pow_re(T a, T c, T d) {                                               \
    return std::pow(a, std::complex<T>(c, d)).real();                                         \
  }                                                                                           \
  inline T complex_real_pow_im(T a, T c, T d) {                                               \
    return std::pow(a, std::complex<T>(c, d)).imag();                                         \
  }                                                                                           \
  inline T complex_pow_int_re(T a, T b, int n) { return std::pow(std::complex<T>(a, b), n).real(); } \
  inline T complex_pow_int_im(T a, T b, int n) { return std::pow(std::complex<T>(a, b), n).imag(); }

CGP_COMPLEX_PARTS(float)
CGP_COMPLEX_PARTS(double)

#undef CGP_COMPLEX_PARTS

} // namespace cgp

#endif // CGP_COMPLEX_H
