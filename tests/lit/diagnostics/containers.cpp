// Uses of standard containers that cgp-ad refuses: each is an error naming
// the kernel and the construct, with status 1 and no output.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DPUSH_BACK 2>&1 | FileCheck %s --check-prefix=PUSH_BACK
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DVECTOR_ASSIGN 2>&1 | FileCheck %s --check-prefix=VECTOR_ASSIGN
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DVECTOR_OF_STRUCTS 2>&1 | FileCheck %s --check-prefix=VECTOR_OF_STRUCTS
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMAP 2>&1 | FileCheck %s --check-prefix=MAP
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMETHOD 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DVECTOR_INIT 2>&1 | FileCheck %s --check-prefix=VECTOR_INIT
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DBY_VALUE_CHANGED 2>&1 | FileCheck %s --check-prefix=BY_VALUE_CHANGED
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DFOREIGN_ITERATOR 2>&1 | FileCheck %s --check-prefix=FOREIGN_ITERATOR
// RUN: test ! -e %t/out
#include <cgp/cgp.h>
#include <array>
#include <map>
#include <vector>

#ifdef PUSH_BACK
CGP_GRAD(y)
void k(std::vector<double>& y, double a) {
  y.push_back(a);
  // PUSH_BACK: containers.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': 'push_back' changes the size of 'y'; only a std::vector local of the function may change its size (a parameter's size is the caller's)
}
#endif

#ifdef VECTOR_ASSIGN
CGP_GRAD(x)
void k(const std::vector<double>& x, std::vector<double>& y) {
  y = x;
  // VECTOR_ASSIGN: containers.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': assigns a whole std::vector ('y') that is not a local of this function; its size is the caller's
}
#endif

#ifdef VECTOR_OF_STRUCTS
struct P { double x, y; };
CGP_GRAD(a)
void k(std::vector<P>& ps, double a) {
  // VECTOR_OF_STRUCTS: containers.cpp:[[@LINE-1]]:24: error: cannot differentiate 'k': parameter 'ps': std::vector of 'P' is not supported; containers may hold numbers (float, double, integers) or, for std::array, arrays of them
  ps[0].x = a;
}
#endif

#ifdef MAP
CGP_GRAD(a)
double k(std::map<int, double>& m, double a) {
  // MAP: containers.cpp:[[@LINE-1]]:33: error: cannot differentiate 'k': parameter 'm': 'std::map<int, double>' is not supported; of the standard library's types, cgp-ad differentiates std::vector and std::array of numbers, and std::complex<float|double>
  m[0] = a;
  return a * m.at(0);
}
#endif

#ifdef METHOD
CGP_GRAD(x)
double k(const std::vector<double>& x) {
  return x[0] * x.capacity();
  // METHOD: containers.cpp:[[@LINE-1]]:17: error: cannot differentiate 'k': the method 'capacity' of a standard container is not supported; use size(), data(), [], at(), front(), back(), empty() and fill()
}
#endif

#ifdef VECTOR_INIT
CGP_GRAD(x)
double k(const std::vector<double>& x) {
  std::vector<double> t(x.size(), x[0], std::allocator<double>());
  // VECTOR_INIT: containers.cpp:[[@LINE-1]]:23: error: cannot differentiate 'k': this constructor of the std::vector 't' is not supported; write std::vector<T> t(n), (n, value), (first, last), (other) or {a, b, ...}
  return t[0];
}
#endif

#ifdef BY_VALUE_CHANGED
void scale(std::vector<double>& v, double a) {
  for (double& e : v)
    e *= a;
}
CGP_GRAD(v)
double k(std::vector<double> v, double a) {
  scale(v, a);
  // BY_VALUE_CHANGED: containers.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': passes 'v', a parameter taken by value, to 'scale', which may change it; cgp-ad keeps parameters taken by value read-only: take it by reference, or copy it into a local variable first
  return v[0];
}
#endif

#ifdef FOREIGN_ITERATOR
#include <iterator>
struct Q { double x, y; };
CGP_GRAD(a)
double k(double a, const std::vector<Q>& qs) { return a * std::distance(qs.begin(), qs.end()); }
// FOREIGN_ITERATOR: containers.cpp:[[@LINE-1]]:73: error: cannot differentiate 'k': 'qs' has a type cgp-ad does not take apart: a value of type 'const_iterator' read from it can only be passed whole to a function whose body cgp-ad sees; read numbers from it
#endif
