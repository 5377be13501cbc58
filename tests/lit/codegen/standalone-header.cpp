// NAME.cgp.h includes the standard headers whose types its declarations
// name, so that a file including it alone compiles (the user's own types
// come from the user's headers, included first).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: FileCheck %s < %t/standalone-header.cgp.h
// RUN: echo '#include "standalone-header.cgp.h"' > %t/use.cpp
// RUN: %cxx %cxxflags -fsyntax-only -I%t %t/use.cpp
#include <cgp/cgp.h>
#include <array>
#include <complex>
#include <vector>

CGP_GRAD(x)
double scaled(const std::vector<double> &x, std::complex<double> z) {
  double s = 0;
  for (double v : x)
    s += v * z.real();
  return s;
}

CGP_GRAD(a)
double corners(const std::array<double, 4> &a) { return a[0] * a[3] - a[1] * a[2]; }

// CHECK: #define CGP_GENERATED_STANDALONE_HEADER_CGP_H
// CHECK-EMPTY:
// CHECK-NEXT: #include <array>
// CHECK-NEXT: #include <complex>
// CHECK-NEXT: #include <vector>
// CHECK-EMPTY:
// CHECK-NEXT: // Gradient of 'scaled'.
// CHECK: // Gradient of 'corners'.
