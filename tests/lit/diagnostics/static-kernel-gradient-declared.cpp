// A static kernel's gradient is static too; a declaration of it without
// 'static' before the generated definition would not compile, so cgp-ad
// refuses it, naming the declaration, with status 1 and no output.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 2>&1 | FileCheck %s
// RUN: test ! -e %t/out
#include <cgp/cgp.h>

CGP_GRAD(x)
static double f(const double *x) { return x[0] * x[1]; }

double f_grad(const double *x, double *d_x);
// CHECK: static-kernel-gradient-declared.cpp:[[@LINE-1]]:8: error: 'f' is static, so its generated 'f_grad' is static too, but this declaration of it is not; declare it 'static' or drop 'static' from 'f'
