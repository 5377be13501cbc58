// Uses of Eigen that cgp-ad refuses: each is an error naming the kernel and
// the construct, with status 1 and no output.
//
// REQUIRES: eigen
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DDYNAMIC 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DAUTO 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DINVERSE4 2>&1 | FileCheck %s --check-prefix=INVERSE4
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DMAP 2>&1 | FileCheck %s --check-prefix=MAP
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DQUATERNION 2>&1 | FileCheck %s --check-prefix=QUATERNION
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DROW_MAJOR 2>&1 | FileCheck %s --check-prefix=ROW_MAJOR
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DOTHER_METHOD 2>&1 | FileCheck %s --check-prefix=OTHER_METHOD
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DBLOCK_SIZE 2>&1 | FileCheck %s --check-prefix=BLOCK_SIZE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 %eigen -DBY_VALUE 2>&1 | FileCheck %s --check-prefix=BY_VALUE
// RUN: test ! -e %t/out
#include <cgp/cgp.h>
#include <Eigen/Dense>
#include <Eigen/Geometry>

#ifdef DYNAMIC
CGP_GRAD(v)
double k(const Eigen::VectorXd& v) {
  // DYNAMIC: eigen.cpp:[[@LINE-2]]:1: error: parameter 'v' of 'k' has type 'const Eigen::VectorXd &', which cgp-ad cannot differentiate (Eigen matrices of dynamic size are not supported; use fixed sizes (Eigen::Matrix<T, R, C>, Vector3d, Matrix4d))
  return v.squaredNorm();
}
#endif

#ifdef AUTO
CGP_GRAD(a, b)
double k(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  auto s = a + b;
  // AUTO: eigen.cpp:[[@LINE-1]]:8: error: cannot differentiate 'k': local 's': a variable holding an Eigen expression ('auto x = a + b') is not supported; give it a matrix type (Eigen::Vector3d x = a + b)
  return s.sum();
}
#endif

#ifdef INVERSE4
CGP_GRAD(m)
double k(const Eigen::Matrix4d& m) {
  Eigen::Matrix4d inv = m.inverse();
  // INVERSE4: eigen.cpp:[[@LINE-1]]:25: error: cannot differentiate 'k': 'inverse' is supported for 1x1, 2x2 and 3x3 matrices (Eigen inverts 4x4 ones with code of its own for each instruction set)
  return inv.sum();
}
#endif

#ifdef MAP
CGP_GRAD(x)
double k(const double* x) {
  Eigen::Map<const Eigen::VectorXd> v(x, 3);
  // MAP: eigen.cpp:[[@LINE-1]]:37: error: cannot differentiate 'k': local 'v': this 'Eigen::Map' is not supported; a Map of a fixed-size matrix with the default strides may be a local made from a pointer (Eigen::Map<const Eigen::Vector3d> v(x)); elsewhere copy the coefficients into a fixed-size matrix
  return v.squaredNorm();
}
#endif

#ifdef QUATERNION
CGP_GRAD(q)
double k(const Eigen::Quaterniond& q) {
  // QUATERNION: eigen.cpp:[[@LINE-2]]:1: error: parameter 'q' of 'k' has type 'const Eigen::Quaterniond &', which cgp-ad cannot differentiate ('Eigen::Quaterniond' is not supported; of Eigen's types, cgp-ad differentiates the fixed-size Eigen::Matrix and Eigen::Array)
  return q.w();
}
#endif

#ifdef ROW_MAJOR
CGP_GRAD(m)
double k(const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>& m) {
  // ROW_MAJOR: eigen.cpp:[[@LINE-2]]:1: error: parameter 'm' of 'k' has type {{.*}}, which cgp-ad cannot differentiate (row-major Eigen matrices are not supported; use the default column-major storage)
  return m.sum();
}
#endif

#ifdef OTHER_METHOD
CGP_GRAD(v)
double k(const Eigen::Vector3d& v) {
  return v.stableNorm();
  // OTHER_METHOD: eigen.cpp:[[@LINE-1]]:10: error: cannot differentiate 'k': the Eigen function 'stableNorm' is not supported
}
#endif

#ifdef BLOCK_SIZE
CGP_GRAD(v)
double k(const Eigen::Vector4d& v, int n) {
  return v.head(n).sum();
  // BLOCK_SIZE: eigen.cpp:[[@LINE-1]]:10: error: cannot differentiate 'k': the size of 'head' must be known at compile time (write it as a template argument, 'head<n>(...)', or a constant)
}
#endif

#ifdef BY_VALUE
CGP_GRAD(m)
double k(Eigen::Matrix2d m, const Eigen::Vector2d& v) {
  m(0, 1) += 0.5;
  // BY_VALUE: eigen.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': assigns to 'm', a parameter taken by value whose elements cgp-ad reads in the caller's argument; copy it into a local and change the copy
  return v.dot(m * v);
}
#endif
