// Uses of std::complex that cgp-ad refuses: each is an error naming the
// kernel and the construct, with status 1 and no output.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DOTHER_FUNCTION 2>&1 | FileCheck %s --check-prefix=OTHER_FUNCTION
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DLONG_DOUBLE 2>&1 | FileCheck %s --check-prefix=LONG_DOUBLE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DVECTOR_TO_WRITER 2>&1 | FileCheck %s --check-prefix=VECTOR_TO_WRITER
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMIXED_VECTOR 2>&1 | FileCheck %s --check-prefix=MIXED_VECTOR
// RUN: test ! -e %t/out
#include <cgp/cgp.h>
#include <complex>
#include <vector>

using cd = std::complex<double>;

#ifdef OTHER_FUNCTION
CGP_GRAD(x)
double k(const double* x) {
  cd z(x[0], x[1]);
  return std::asin(z).real();
  // OTHER_FUNCTION: complex.cpp:[[@LINE-1]]:10: error: cannot differentiate 'k': 'std::asin' of complex numbers is not supported; cgp-ad differentiates their arithmetic, conj, polar, exp, log, log10, sqrt, pow, sin, cos, tan, sinh, cosh, tanh, abs, arg, norm, real and imag
}
#endif

#ifdef LONG_DOUBLE
CGP_GRAD(x)
double k(const double* x) {
  std::complex<long double> z(x[0], x[1]);
  // LONG_DOUBLE: complex.cpp:[[@LINE-1]]:29: error: cannot differentiate 'k': 'std::complex<long double>' is not supported; of the standard library's types, cgp-ad differentiates std::vector and std::array of numbers, and std::complex<float|double>
  return static_cast<double>(z.real());
}
#endif

#ifdef VECTOR_TO_WRITER
static void rotate(std::vector<cd>& v) {
  for (cd& z : v)
    z *= cd(0.0, 1.0);
}
CGP_GRAD(v)
double k(std::vector<cd>& v) {
  rotate(v);
  // VECTOR_TO_WRITER: complex.cpp:[[@LINE-1]]:10: error: cannot differentiate 'k': passing the vector of structs parameter 'v' to a helper that may change it is not supported; pass it by const reference, or pass its elements
  return v[0].real();
}
#endif

#ifdef MIXED_VECTOR
struct Tagged {
  int tag;
  double w;
};
CGP_GRAD(v)
double k(const std::vector<Tagged>& v) {
  // MIXED_VECTOR: complex.cpp:[[@LINE-1]]:37: error: cannot differentiate 'k': parameter 'v': arrays of 'Tagged' are supported only when every member has one floating type; member 'tag' is 'int'
  return v[0].w;
}
#endif
