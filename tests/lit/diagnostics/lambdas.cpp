// Lambdas that cgp-ad refuses, each with an error naming the kernel and the
// construct: a lambda passed to a function whose body cgp-ad cannot see, to
// another lambda or to a constructor, a capturing lambda passed on from inside
// another lambda, a variable a passed lambda captures that the callee may
// also change through a reference, a lambda returned by a function, stored in a
// struct, copied or referred to, capturing 'this', an array captured by value
// that changes later, a mutable lambda's struct, a capturing lambda called
// from inside another lambda, a two-dimensional array captured, a variable
// given to a lambda both as a reference argument and through a capture.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DPASS 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTO_LAMBDA 2>&1 | FileCheck %s --check-prefix=TO_LAMBDA
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTO_CONSTRUCTOR 2>&1 | FileCheck %s --check-prefix=TO_CONSTRUCTOR
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DPASS_INNER 2>&1 | FileCheck %s --check-prefix=PASS_INNER
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DPASS_ALIASED 2>&1 | FileCheck %s --check-prefix=PASS_ALIASED
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DRETURNED 2>&1 | FileCheck %s --check-prefix=RETURNED
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSTORED 2>&1 | FileCheck %s --check-prefix=STORED
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DCOPY 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DREFERENCE 2>&1 | FileCheck %s --check-prefix=REFERENCE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTHIS 2>&1 | FileCheck %s --check-prefix=THIS
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DARRAY_BY_VALUE 2>&1 | FileCheck %s --check-prefix=ARRAY_BY_VALUE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMUTABLE_STRUCT 2>&1 | FileCheck %s --check-prefix=MUTABLE_STRUCT
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DINNER_CALL 2>&1 | FileCheck %s --check-prefix=INNER_CALL
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTWO_D 2>&1 | FileCheck %s --check-prefix=TWO_D
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DALIASED 2>&1 | FileCheck %s --check-prefix=ALIASED
// RUN: test ! -e %t/out
#include <cgp/cgp.h>

#ifdef PASS
#include <algorithm>
CGP_GRAD(x) double k(double x) {
  double a[3] = {x, 2 * x, 1.0};
  std::sort(a, a + 3, [](double s, double v) { return s > v; });
  // PASS: lambdas.cpp:[[@LINE-1]]:23: error: cannot differentiate 'k': passing a lambda to 'std::sort' is not supported; lambdas can be passed to functions and methods whose body cgp-ad sees, other than lambdas and functions with a custom pullback
  return a[0];
}
#endif

#ifdef TO_LAMBDA
CGP_GRAD(x) double k(double x) {
  auto sq = [](double v) { return v * v; };
  auto apply = [](auto f, double v) { return f(v); };
  return apply(sq, x);
  // TO_LAMBDA: lambdas.cpp:[[@LINE-1]]:16: error: cannot differentiate 'k': passing a lambda to another lambda is not supported; lambdas can be passed to functions and methods whose body cgp-ad sees, other than lambdas and functions with a custom pullback
}
#endif

#ifdef TO_CONSTRUCTOR
struct Scaled {
  double v;
  template <class F> Scaled(F f, double x) : v(f(x)) {}
  // TO_CONSTRUCTOR: lambdas.cpp:[[@LINE-1]]:31: error: cannot differentiate 'k': in 'Scaled' (called from 'k'): parameter 'f' is a lambda; lambdas can be passed to functions and methods, not to constructors or operators
};
CGP_GRAD(x) double k(double x) {
  auto sq = [](double v) { return v * v; };
  Scaled s(sq, x);
  return s.v;
}
#endif

#ifdef PASS_INNER
template <class F> double at(F f, double v) { return f(v); }
CGP_GRAD(x) double k(double x) {
  double s = x;
  auto f = [&](double v) { return v * s; };
  auto g = [&](double v) { return at(f, v) + 1.0; };
  // PASS_INNER: lambdas.cpp:[[@LINE-1]]:35: error: cannot differentiate 'k': in 'k_g' (called from 'k'): passes the lambda 'k_f', which captures variables, from inside another lambda; capture what it needs in that lambda instead, or make it a helper function
  return g(x);
}
#endif

#ifdef PASS_ALIASED
template <class F> void bump(double &v, F f) { v += f(); v += f(); }
CGP_GRAD(x) double k(double x) {
  double s = x;
  bump(s, [&] { return s; });
  // PASS_ALIASED: lambdas.cpp:[[@LINE-1]]:11: error: cannot differentiate 'k': passes 's' to 'bump', whose lambda argument captures it by reference, and which could change it through its parameter 'v'; this aliasing is not supported
  return s;
}
#endif

#ifdef RETURNED
auto scaler(double a) { return [a](double v) { return a * v; }; }
CGP_GRAD(x) double k(double x) {
  auto f = scaler(2.0);
  // RETURNED: lambdas.cpp:[[@LINE-1]]:8: error: cannot differentiate 'k': the lambda 'f' comes from a function; lambdas returned by functions are not supported
  return f(x);
}
#endif

#ifdef STORED
template <class F> struct Holder { F g; double w; };
CGP_GRAD(x) double k(double x) {
  auto f = [](double v) { return v * v; };
  Holder<decltype(f)> h{f, 2.0};
  // STORED: lambdas.cpp:[[@LINE-1]]:23: error: cannot differentiate 'k': local 'h': member 'g' is a lambda; storing a lambda in a struct is not supported
  return h.w * x;
}
#endif

#ifdef COPY
CGP_GRAD(x) double k(double x) {
  auto f = [](double v) { return v * v; };
  auto g = f;
  // COPY: lambdas.cpp:[[@LINE-1]]:8: error: cannot differentiate 'k': the lambda 'g' must be initialised with a lambda expression; copying a lambda is not supported
  return g(x);
}
#endif

#ifdef REFERENCE
CGP_GRAD(x) double k(double x) {
  auto f = [](double v) { return v * v; };
  auto& g = f;
  // REFERENCE: lambdas.cpp:[[@LINE-1]]:9: error: cannot differentiate 'k': the reference 'g' to a lambda is not supported; call the lambda itself
  return g(x);
}
#endif

#ifdef THIS
struct S {
  double a;
  double get(double x) const {
    auto f = [this](double v) { return a * v; };
    // THIS: lambdas.cpp:[[@LINE-1]]:15: error: cannot differentiate 'k': in 'get' (called from 'k'): lambdas that capture 'this' are not supported
    return f(x);
  }
};
CGP_GRAD(x) double k(double x) {
  S s{2.0};
  return s.get(x);
}
#endif

#ifdef ARRAY_BY_VALUE
CGP_GRAD(x) double k(double x) {
  double w[2] = {x, 1.0};
  auto f = [=](int i) { return w[i]; };
  // ARRAY_BY_VALUE: lambdas.cpp:[[@LINE-1]]:32: error: cannot differentiate 'k': the lambda captures the array 'w' by value, and it may change after the lambda is created; capture it by reference
  w[0] = 3.0;
  return f(0);
}
#endif

#ifdef MUTABLE_STRUCT
struct P { double a, b; };
CGP_GRAD(x) double k(double x) {
  P p{x, 1.0};
  auto f = [p]() mutable { p.a *= 2; return p.a; };
  // MUTABLE_STRUCT: lambdas.cpp:[[@LINE-1]]:13: error: cannot differentiate 'k': the mutable lambda captures the struct 'p' by value; a mutable lambda may capture by value only scalars and pointers
  return f() + f();
}
#endif

#ifdef INNER_CALL
CGP_GRAD(x) double k(double x) {
  double s = x;
  auto f = [&](double v) { return v * s; };
  auto g = [&](double v) { return f(v) + 1.0; };
  // INNER_CALL: lambdas.cpp:[[@LINE-1]]:35: error: cannot differentiate 'k': in 'k_g' (called from 'k'): calls the lambda 'k_f', which captures variables, from inside another lambda; capture what it needs in that lambda instead, or make it a helper function
  return g(x);
}
#endif

#ifdef TWO_D
CGP_GRAD(x) double k(double x) {
  double a[2][2] = {{x, 1}, {2, 3}};
  auto f = [&](int i) { return a[i][0]; };
  // TWO_D: lambdas.cpp:[[@LINE-1]]:12: error: cannot differentiate 'k': in 'k_f' (called from 'k'): the lambda 'k_f' captures the two-dimensional array 'a'; lambdas may capture one-dimensional arrays only
  return f(0);
}
#endif

#ifdef ALIASED
CGP_GRAD(x) double k(double x) {
  double s = x;
  auto f = [&](double& v) { v += s; v += s; };
  f(s);
  // ALIASED: lambdas.cpp:[[@LINE-1]]:5: error: cannot differentiate 'k': passes 's' to the lambda 'k_f', which captures it by reference and could change it through its parameter 'v'; this aliasing is not supported
  return s;
}
#endif

