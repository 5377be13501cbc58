// Classes that cgp-ad refuses: each is an error naming the kernel and the
// construct, with status 1 and no output.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DOWNS_MEMORY 2>&1 | FileCheck %s --check-prefix=OWNS_MEMORY
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DACCESSOR_WRITE 2>&1 | FileCheck %s --check-prefix=ACCESSOR_WRITE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DVECTOR_MEMBER_PARAM 2>&1 | FileCheck %s --check-prefix=VECTOR_MEMBER_PARAM
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DVECTOR_STRUCT_RETURN 2>&1 | FileCheck %s --check-prefix=VECTOR_STRUCT_RETURN
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DRESIZE_IN_METHOD 2>&1 | FileCheck %s --check-prefix=RESIZE_IN_METHOD
// RUN: test ! -e %t/out
#include <cgp/cgp.h>
#include <vector>

#ifdef OWNS_MEMORY
struct Owned {
  explicit Owned(int n) : n_(n), data_(new double[n]) {}
  Owned(const Owned& o) : n_(o.n_), data_(new double[o.n_]) {}
  ~Owned() { delete[] data_; }
  int n_;
  double* data_;
};
CGP_GRAD(x)
double k(const double* x, int n) {
  Owned a(n);
  // OWNS_MEMORY: classes.cpp:[[@LINE-1]]:9: error: cannot differentiate 'k': 'Owned' defines its own copy or move constructor; classes that manage their own memory are not supported yet (hold the elements in a std::vector member instead)
  return x[0];
}
#endif

#ifdef ACCESSOR_WRITE
struct Clamped {
  double a[4];
  double& at(int k) {
    if (k > 3)
      k = 3;
    return a[k];
  }
};
CGP_GRAD(x)
double k(const double* x) {
  Clamped c{};
  c.at(5) = x[0];
  // ACCESSOR_WRITE: classes.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': assigns through the reference that 'at' returns; cgp-ad sees through functions that return a reference only when their body is one 'return' of an element or member
  return c.a[3];
}
#endif

#ifdef VECTOR_MEMBER_PARAM
struct Poly { std::vector<double> coef; };
CGP_GRAD(p)
double k(const Poly& p) {
  // VECTOR_MEMBER_PARAM: classes.cpp:[[@LINE-2]]:1: error: parameter 'p' of 'k' has type 'const Poly &', which cgp-ad cannot differentiate (member 'coef' is a std::vector; structs holding vectors are supported as locals and helper parameters only)
  return p.coef[0];
}
#endif

#ifdef VECTOR_STRUCT_RETURN
struct State { std::vector<double> q; };
State grown(const State& s) {
  State r = s;
  r.q.push_back(1.0);
  return r;
}
CGP_GRAD(x)
double k(const double* x) {
  State s;
  s.q.push_back(x[0]);
  State t = grown(s);
  // VECTOR_STRUCT_RETURN: classes.cpp:[[@LINE-1]]:13: error: cannot differentiate 'k': 'State': member 'q' is a std::vector; structs holding vectors are supported as locals and helper parameters only
  return t.q[1];
}
#endif

#ifdef RESIZE_IN_METHOD
struct Poly {
  std::vector<double> coef;
  void grow(double c) { coef.push_back(c); }
};
CGP_GRAD(x)
double k(const double* x) {
  Poly p;
  p.grow(x[0]);
  // RESIZE_IN_METHOD: classes.cpp:[[@LINE-6]]:25: error: cannot differentiate 'k': in 'grow' (called from 'k'): 'push_back' changes the size of 'coef'; only a std::vector local of the function may change its size (a parameter's size is the caller's)
  return p.coef[0];
}
#endif
