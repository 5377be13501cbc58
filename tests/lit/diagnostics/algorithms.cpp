// Calls of standard algorithms that cgp-ad refuses: each is an error naming
// the kernel and the construct, with status 1 and no output.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DWITH_OPERATION 2>&1 | FileCheck %s --check-prefix=WITH_OPERATION
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTWO_BUFFERS 2>&1 | FileCheck %s --check-prefix=TWO_BUFFERS
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DCOPY_IN_PLACE 2>&1 | FileCheck %s --check-prefix=COPY_IN_PLACE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DIN_CONDITION 2>&1 | FileCheck %s --check-prefix=IN_CONDITION
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DITERATOR_VARIABLE 2>&1 | FileCheck %s --check-prefix=ITERATOR_VARIABLE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DGENERIC_LAMBDA 2>&1 | FileCheck %s --check-prefix=GENERIC_LAMBDA
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DCOMPARISON 2>&1 | FileCheck %s --check-prefix=COMPARISON
// RUN: test ! -e %t/out
#include <cgp/cgp.h>
#include <algorithm>
#include <numeric>
#include <vector>

#ifdef WITH_OPERATION
CGP_GRAD(x)
void k(double* x, int n) {
  std::for_each(x, x + n, [](double &e) { e = e * e; });
  // WITH_OPERATION: algorithms.cpp:[[@LINE-1]]:38: error: cannot differentiate 'k': the lambda given to 'std::for_each' must take its elements by value or by const reference
}
#endif

#ifdef COMPARISON
CGP_GRAD(x)
double k(const double* x, int n) {
  return *std::max_element(x, x + n, [](double a, double b) { return a * a < b * b; });
  // COMPARISON: algorithms.cpp:[[@LINE-1]]:11: error: cannot differentiate 'k': 'std::max_element' with a comparison of its own is not supported; write the loop
}
#endif

#ifdef TWO_BUFFERS
CGP_GRAD(x)
double k(const double* x, const double* y) {
  return std::accumulate(x, y, 0.0);
  // TWO_BUFFERS: algorithms.cpp:[[@LINE-1]]:26: error: cannot differentiate 'k': the range of 'std::accumulate' starts in 'x' and ends in 'y'; both ends must be in one buffer
}
#endif

#ifdef COPY_IN_PLACE
CGP_GRAD(x)
void k(double* x, int n) {
  std::copy(x + 1, x + n, x);
  // COPY_IN_PLACE: algorithms.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': 'std::copy' within one buffer ('x') is not supported; copy through a local buffer
}
#endif

#ifdef IN_CONDITION
CGP_GRAD(x)
double k(const double* x, int n) {
  if (std::accumulate(x, x + n, 0.0) > 1.0 && std::accumulate(x, x + 2, 0.0) > 0.5)
  // IN_CONDITION: algorithms.cpp:[[@LINE-1]]:47: error: cannot differentiate 'k': 'std::accumulate' is not supported here (a condition, or a side of '&&', '||' or '?:'); give its value to a local first
    return x[0];
  return x[1];
}
#endif

// An iterator moved inside an expression is refused in the user's words,
// never with the library's members (`_M_current`).
#ifdef ITERATOR_VARIABLE
CGP_GRAD(x)
double k(const std::vector<double>& x) {
  auto it = std::max_element(x.begin(), x.end());
  double a = *it++;
  // ITERATOR_VARIABLE: algorithms.cpp:[[@LINE-1]]:15: error: cannot differentiate 'k': moving an iterator inside an expression ('*it++') is not supported; move it in a statement of its own ('++it;')
  // ITERATOR_VARIABLE-NOT: _M_current
  return a;
}
#endif

#ifdef GENERIC_LAMBDA
CGP_GRAD(x)
double k(const double* x, double* y, int n) {
  std::transform(x, x + n, y, [](auto v) { return v * v; });
  // GENERIC_LAMBDA: algorithms.cpp:[[@LINE-1]]:31: error: cannot differentiate 'k': a generic lambda ('auto' parameters) given to 'std::transform' is not supported; name the parameters' types
  return y[0];
}
#endif
