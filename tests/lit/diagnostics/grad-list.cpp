// Mistakes in CGP_GRAD itself: reported at the marker, exit status 1,
// nothing written.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DUNKNOWN 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DNOT_FLOATING 2>&1 | FileCheck %s --check-prefix=NOT_FLOATING
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSTRUCT_WITH_BASE 2>&1 | FileCheck %s --check-prefix=STRUCT_WITH_BASE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMALFORMED 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTWICE 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DNO_BODY 2>&1 | FileCheck %s --check-prefix=NO_BODY
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DNO_FLOATING_PARAM 2>&1 | FileCheck %s --check-prefix=NO_FLOATING_PARAM
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMEMBER 2>&1 | FileCheck %s --check-prefix=MEMBER
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTEMPLATE 2>&1 | FileCheck %s --check-prefix=TEMPLATE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DCONFLICT 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DJVP 2>&1 | FileCheck %s --check-prefix=JVP
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DJVP_OUTPUT 2>&1 | FileCheck %s --check-prefix=JVP_OUTPUT
// RUN: test ! -e %t/out
//
// A kernel whose gradient is always zero is a warning, and still generated.
// RUN: %cgpad %s -o %t/zero -- -std=c++17 -DZERO 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: test -e %t/zero/grad-list.cgp.h
#include <cgp/cgp.h>

#ifdef UNKNOWN
CGP_GRAD(W, q)
// UNKNOWN: grad-list.cpp:[[@LINE-1]]:1: error: 'q' named in CGP_GRAD is not a parameter of 'k'
double k(const double *W, int n) { return W[0] * n; }
#endif

#ifdef NOT_FLOATING
CGP_GRAD(W, n)
// NOT_FLOATING: grad-list.cpp:[[@LINE-1]]:1: error: parameter 'n' of 'k' has type 'int', which holds no floating-point value; CGP_GRAD names parameters that carry derivatives (floating scalars, pointers, arrays and containers of them, structs with floating members)
double k(const double *W, int n) { return W[0] * n; }
#endif

#ifdef STRUCT_WITH_BASE
struct Base { double a; };
struct Derived : Base { double b; };
CGP_GRAD(d)
// STRUCT_WITH_BASE: grad-list.cpp:[[@LINE-1]]:1: error: parameter 'd' of 'k' has type 'const Derived &', which cgp-ad cannot differentiate (structs with base classes or virtual functions are not supported); CGP_GRAD names parameters that carry derivatives (floating scalars, pointers, arrays and containers of them, structs with floating members)
double k(const Derived& d) { return d.a * d.b; }
#endif

#ifdef MALFORMED
CGP_GRAD(W n)
// MALFORMED: grad-list.cpp:[[@LINE-1]]:1: error: malformed CGP_GRAD list 'W n' of 'k': expected parameter names separated by commas
double k(const double *W, int n) { return W[0] * n; }
#endif

#ifdef TWICE
CGP_GRAD(W, W)
// TWICE: grad-list.cpp:[[@LINE-1]]:1: error: 'W' is named twice in CGP_GRAD of 'k'
double k(const double *W, int n) { return W[0] * n; }
#endif

#ifdef NO_BODY
CGP_GRAD(x)
// NO_BODY: grad-list.cpp:[[@LINE-1]]:1: error: 'k' is marked CGP_GRAD but its body is not in this file; cgp-ad needs the definition to differentiate it
double k(double x);
#endif

#ifdef NO_FLOATING_PARAM
CGP_GRAD()
// NO_FLOATING_PARAM: grad-list.cpp:[[@LINE-1]]:1: error: 'k' has no floating-point parameter to differentiate with respect to
double k(int n) { return n * 0.5; }
#endif

#ifdef MEMBER
struct Model {
  CGP_GRAD(x)
  // MEMBER: grad-list.cpp:[[@LINE-1]]:3: error: 'k' is a member function; CGP_GRAD marks free functions only
  double k(double x) { return x * x; }
};
#endif

#ifdef TEMPLATE
// A mistake in the list of a template is reported once, not per instantiation.
template <class T>
CGP_GRAD(y)
// TEMPLATE: grad-list.cpp:[[@LINE-1]]:1: error: 'y' named in CGP_GRAD is not a parameter of 'k'
// TEMPLATE-NOT: error: {{.*}}not a parameter
T k(T x) { return x * x; }
template double k<double>(double);
template float k<float>(float);
#endif

#ifdef CONFLICT
CGP_GRAD(x)
// CONFLICT: grad-list.cpp:[[@LINE-1]]:1: error: declarations of 'k' are marked with different CGP_GRAD lists
double k(double x, double y);
CGP_GRAD(y)
double k(double x, double y) { return x * y; }
#endif

#ifdef JVP
CGP_JVP(x, z)
// JVP: grad-list.cpp:[[@LINE-1]]:1: error: 'z' named in CGP_JVP is not a parameter of 'k'
double k(double x) { return x * x; }
#endif

#ifdef JVP_OUTPUT
// A scratch buffer that carries derivatives must have a tangent.
CGP_JVP(x)
// JVP_OUTPUT: grad-list.cpp:[[@LINE+1]]:8: error: cannot differentiate 'k': parameter 'work' of 'k' carries derivatives, but is not named in CGP_JVP; name it so that its tangent has a t_work buffer
double k(const double *x, double *work) {
  work[0] = x[0] * 2;
  return work[0] * work[0];
}
#endif

#ifdef ZERO
CGP_GRAD(x)
void k(const double *x, double *y, int n) {
  // ZERO: grad-list.cpp:[[@LINE-1]]:6: warning: the gradient of 'k' is always zero: it returns no floating-point value and no parameter named in CGP_GRAD is a buffer it writes; name its output buffers in CGP_GRAD
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * x[i];
}
#endif
