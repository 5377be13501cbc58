// A marked function template that the file never instantiates where cgp-ad
// sees it gets a warning saying how to make one, and no gradient.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17 2>&1 | FileCheck %s --check-prefix=UNUSED
// RUN: ! grep -q square_grad %t/template-kernel.cgp.h
#include <cgp/cgp.h>

template <typename T>
CGP_GRAD(x) T square(T x) { return x * x; }
// UNUSED: template-kernel.cpp:[[@LINE-1]]:1: warning: 'square' is a template that this file does not instantiate where cgp-ad sees it; no CGP_GRAD function is generated (an explicit instantiation such as 'template double square<double>(...);' makes one)
