// Each unsupported construct is an error that names the kernel and the
// construct, exits with status 1 and writes nothing.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DGOTO 2>&1 | FileCheck %s --check-prefix=GOTO
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DNOBODY_CALL 2>&1 | FileCheck %s --check-prefix=NOBODY_CALL
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DLOCAL_POINTER 2>&1 | FileCheck %s --check-prefix=LOCAL_POINTER
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DPOINTER_UNINIT 2>&1 | FileCheck %s --check-prefix=POINTER_UNINIT
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DREF_TWICE 2>&1 | FileCheck %s --check-prefix=REF_TWICE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSTATIC_LOCAL 2>&1 | FileCheck %s --check-prefix=STATIC_LOCAL
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMUTABLE_GLOBAL 2>&1 | FileCheck %s --check-prefix=MUTABLE_GLOBAL
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DINDIRECT 2>&1 | FileCheck %s --check-prefix=INDIRECT
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DRANGE_FOR 2>&1 | FileCheck %s --check-prefix=RANGE_FOR
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DREFERENCE 2>&1 | FileCheck %s --check-prefix=REFERENCE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DLONG_DOUBLE 2>&1 | FileCheck %s --check-prefix=LONG_DOUBLE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DPOINTER_ARITH 2>&1 | FileCheck %s --check-prefix=POINTER_ARITH
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DDO_WHILE_CONTINUE 2>&1 | FileCheck %s --check-prefix=DO_WHILE_CONTINUE
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DREAD_AROUND_COPY 2>&1 | FileCheck %s --check-prefix=READ_AROUND_COPY
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DREAD_AFTER_LAZY_COPY 2>&1 | FileCheck %s --check-prefix=READ_AFTER_LAZY_COPY
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DASSIGN_IN_EXPR 2>&1 | FileCheck %s --check-prefix=ASSIGN_IN_EXPR
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DCOMMA 2>&1 | FileCheck %s --check-prefix=COMMA
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DCONDITION_DECL 2>&1 | FileCheck %s --check-prefix=CONDITION_DECL
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSCRATCH_BUFFER 2>&1 | FileCheck %s --check-prefix=SCRATCH_BUFFER
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTHREE_D 2>&1 | FileCheck %s --check-prefix=THREE_D
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTRY 2>&1 | FileCheck %s --check-prefix=TRY
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DCLASS_PARAM 2>&1 | FileCheck %s --check-prefix=CLASS_PARAM
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DNEW_EXPR 2>&1 | FileCheck %s --check-prefix=NEW_EXPR
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMEMBER_CALL 2>&1 | FileCheck %s --check-prefix=MEMBER_CALL
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DALIASED_ARGS 2>&1 | FileCheck %s --check-prefix=ALIASED_ARGS
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSTRUCT_LAZY 2>&1 | FileCheck %s --check-prefix=STRUCT_LAZY
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DRETURN_REF 2>&1 | FileCheck %s --check-prefix=RETURN_REF
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSTRUCT_KERNEL 2>&1 | FileCheck %s --check-prefix=STRUCT_KERNEL
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSTRUCT_ARRAY_MIXED 2>&1 | FileCheck %s --check-prefix=STRUCT_ARRAY_MIXED
// RUN: test ! -e %t/out
#include <cgp/cgp.h>
#include <cmath>

#ifdef GOTO
CGP_GRAD(x) double k(double x) {
  int i = 0;
again:
  // GOTO: unsupported.cpp:[[@LINE-1]]:1: error: cannot differentiate 'k': labels are not supported
  x = x * 2;
  if (++i < 3) goto again;
  return x;
}
#endif

#ifdef NOBODY_CALL
double external(double);
CGP_GRAD(x) double k(double x) { return external(x) * 2.0; }
// NOBODY_CALL: unsupported.cpp:[[@LINE-1]]:34: error: cannot differentiate 'k': the call of 'external' has no visible body and no derivative, and its arguments carry derivatives
#endif

#ifdef LOCAL_POINTER
CGP_GRAD(W, V) double k(const double *W, const double *V, int n) {
  const double *row = W + n;
  row = V;
  // LOCAL_POINTER: unsupported.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': the local pointer 'row' points into 'W' and is set here to point into 'V'; a local pointer must stay in the buffer it was initialised with
  return row[0];
}
#endif

#ifdef POINTER_UNINIT
CGP_GRAD(W) double k(const double *W, int n) {
  const double *row;
  // POINTER_UNINIT: unsupported.cpp:[[@LINE-1]]:17: error: cannot differentiate 'k': the local pointer 'row' must be initialised where it is declared, so that cgp-ad knows which buffer it points into
  row = W + n;
  return row[0];
}
#endif

#ifdef REF_TWICE
void rotate(double &a, double &b) {
  double t = a;
  a = b;
  b = t;
}
CGP_GRAD(x) double k(double x) {
  double u = x;
  rotate(u, u);
  // REF_TWICE: unsupported.cpp:[[@LINE-1]]:13: error: cannot differentiate 'k': passes 'u' to two reference parameters of 'rotate'; this aliasing is not supported
  return u;
}
#endif

#ifdef STATIC_LOCAL
CGP_GRAD(x) double k(double x) {
  static double scale = 2.0;
  // STATIC_LOCAL: unsupported.cpp:[[@LINE-1]]:17: error: cannot differentiate 'k': static local variables such as 'scale' are not supported
  return x * scale;
}
#endif

#ifdef MUTABLE_GLOBAL
double gain = 3.0;
CGP_GRAD(x) double k(double x) { return x * gain; }
// MUTABLE_GLOBAL: unsupported.cpp:[[@LINE-1]]:45: error: cannot differentiate 'k': reads the global variable 'gain', which is not const; only constant globals are supported
#endif

#ifdef INDIRECT
CGP_GRAD(x) double k(double x, double (*f)(double)) { return f(x); }
// INDIRECT: unsupported.cpp:[[@LINE-1]]:41: error: cannot differentiate 'k': parameter 'f': pointers to 'double (double)' are not supported
#endif

#ifdef RANGE_FOR
CGP_GRAD(x) double k(double x) {
  double a[2][2] = {{1, 2}, {3, 4}};
  for (auto &row : a)
    // RANGE_FOR: unsupported.cpp:[[@LINE-1]]:20: error: cannot differentiate 'k': range-based 'for' loops are supported over one-dimensional arrays, std::arrays and std::vectors only
    x *= row[0];
  return x;
}
#endif

#ifdef REFERENCE
CGP_GRAD(x) double k(double x) {
  double &&r = x * 2.0;
  // REFERENCE: unsupported.cpp:[[@LINE-1]]:12: error: cannot differentiate 'k': local 'r': rvalue references are not supported
  return r * r;
}
#endif

#ifdef LONG_DOUBLE
CGP_GRAD(x) double k(double x) {
  long double wide = x;
  // LONG_DOUBLE: unsupported.cpp:[[@LINE-1]]:15: error: cannot differentiate 'k': local 'wide': variables of type 'long double' are not supported
  return (double)(wide * wide);
}
#endif

#ifdef POINTER_ARITH
CGP_GRAD(W) double k(const double *W, int n) { return (W + n)[1]; }
// POINTER_ARITH: unsupported.cpp:[[@LINE-1]]:55: error: cannot differentiate 'k': only arrays and pointer parameters can be indexed; pointer arithmetic in an index base is not supported
#endif

#ifdef READ_AROUND_COPY
static double bump(double &a) { a = a * 2.0; return a; }
CGP_GRAD(x) double k(double x) {
  double w = x;
  double s = bump(w) + w;
  // READ_AROUND_COPY: unsupported.cpp:[[@LINE-1]]:19: error: cannot differentiate 'k': reads 'w' in the expression that passes it by reference to 'bump', which changes it, in an order C++ leaves open; make that call a statement of its own
  return s;
}
#endif

#ifdef READ_AFTER_LAZY_COPY
static double bump(double &a) { a = a * 2.0; return a; }
CGP_GRAD(x) double k(double x) {
  double w = x;
  double s = 0;
  if (x > 0.0 && bump(w) > 0.0 && w > 1.5)
    // READ_AFTER_LAZY_COPY: unsupported.cpp:[[@LINE-1]]:23: error: cannot differentiate 'k': reads 'w' after 'bump' changes it through a reference, in an expression where that call may not run; make that call a statement of its own
    s = x;
  return s;
}
#endif

#ifdef DO_WHILE_CONTINUE
CGP_GRAD(W) double k(const double *W, int n) {
  int i = 0;
  double s = 0;
  do {
    if (W[i] > 1.0)
      continue;
    s += W[i];
  } while (i++ < n);
  // DO_WHILE_CONTINUE: unsupported.cpp:[[@LINE-1]]:12: error: cannot differentiate 'k': this 'do ... while' condition needs statements of its own (a '++', a struct temporary, a call taking a reference), which 'continue' in the body would skip; compute it in the body into a local
  return s;
}
#endif

#ifdef ASSIGN_IN_EXPR
CGP_GRAD(x) double k(double x) {
  double y, z;
  y = z = x;
  // ASSIGN_IN_EXPR: unsupported.cpp:[[@LINE-1]]:7: error: cannot differentiate 'k': assignments inside expressions are not supported; write them as statements
  return y + z;
}
#endif

#ifdef COMMA
CGP_GRAD(x) double k(double x) {
  double y = (x, 2.0 * x);
  // COMMA: unsupported.cpp:[[@LINE-1]]:15: error: cannot differentiate 'k': the comma operator is not supported
  return y;
}
#endif

#ifdef CONDITION_DECL
CGP_GRAD(x) double k(double x) {
  if (double y = x * 2)
    // CONDITION_DECL: unsupported.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': declarations in 'if' conditions are not supported
    return y;
  return x;
}
#endif

#ifdef SCRATCH_BUFFER
CGP_GRAD(W) double k(const double *W, double *work, int n) {
  // SCRATCH_BUFFER: unsupported.cpp:[[@LINE-1]]:20: error: cannot differentiate 'k': parameter 'work' of 'k' carries derivatives, but is not named in CGP_GRAD; name it so that its adjoint has a d_work buffer
  for (int i = 0; i < n; ++i)
    work[i] = 2.0 * W[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += work[i] * work[i];
  return s;
}
#endif

#ifdef THREE_D
CGP_GRAD(x) double k(double x) {
  double cube[2][2][2] = {};
  // THREE_D: unsupported.cpp:[[@LINE-1]]:10: error: cannot differentiate 'k': local 'cube': arrays of more than two dimensions are not supported
  cube[0][0][0] = x;
  return cube[0][0][0];
}
#endif

#ifdef TRY
CGP_GRAD(x) double k(double x) {
  try {
    // TRY: unsupported.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': 'try' statements are not supported
    x = x * x;
  } catch (...) {
  }
  return x;
}
#endif

#ifdef CLASS_PARAM
struct Pair { double a; const double *rest; };
CGP_GRAD(x) double k(double x, Pair& p) { p.a = x; return x * p.a; }
// CLASS_PARAM: unsupported.cpp:[[@LINE-1]]:38: error: cannot differentiate 'k': parameter 'p': member 'rest' of type 'const double *' is not supported
#endif

#ifdef NEW_EXPR
CGP_GRAD(x) double k(double x) {
  delete new int(3);
  // NEW_EXPR: unsupported.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': an expression whose value is unused is not supported here
  return x;
}
#endif

#ifdef MEMBER_CALL
struct Scale {
  double s;
  double operator*(double v) const; // no body
};
CGP_GRAD(x) double k(double x) { Scale m{2.0}; return m * x; }
// MEMBER_CALL: unsupported.cpp:[[@LINE-1]]:55: error: cannot differentiate 'k': calls of overloaded operators are supported only for operators of your own structs whose body cgp-ad sees
#endif

#ifdef STRUCT_LAZY
struct V2 { double x, y; };
static V2 twice(const V2 &v) { return {2 * v.x, 2 * v.y}; }
CGP_GRAD(x) double k(double x) {
  V2 v = {x, 1.0};
  double r = x > 0 ? twice(v).y : x;
  // STRUCT_LAZY: unsupported.cpp:[[@LINE-1]]:22: error: cannot differentiate 'k': a struct made by a call, a constructor or braces on a side of '&&', '||' or '?:' that may not run is not supported; make it a local first
  return r;
}
#endif

#ifdef RETURN_REF
struct V2 {
  double x, y;
  V2 &add(const V2 &o) { x += o.x; y += o.y; return *this; }
};
CGP_GRAD(x) double k(double x) {
  V2 v = {x, 1.0}, w = {1.0, x};
  return v.add(w).x;
  // RETURN_REF: unsupported.cpp:[[@LINE-1]]:10: error: cannot differentiate 'k': the struct that 'add' returns by reference can only be ignored; call it as a statement of its own
}
#endif

#ifdef STRUCT_ARRAY_MIXED
struct Tagged { double v; int id; };
CGP_GRAD(ts) double k(const Tagged *ts, int n) { return ts[0].v * n; }
// STRUCT_ARRAY_MIXED: unsupported.cpp:[[@LINE-1]]:37: error: cannot differentiate 'k': parameter 'ts': arrays of 'Tagged' are supported only when every member has one floating type; member 'id' is 'int'
#endif

#ifdef STRUCT_KERNEL
struct V2 { double x, y; };
CGP_GRAD(x) V2 k(double x) { return {x, x}; }
// STRUCT_KERNEL: unsupported.cpp:[[@LINE-1]]:16: error: cannot differentiate 'k': kernels that return a struct are not supported; return a scalar, or write the struct into an 'S&' parameter
#endif

#ifdef ALIASED_ARGS
static void shift(double *out, const double *in, int n) {
  for (int i = 1; i < n; ++i)
    out[i] = in[i - 1];
}
CGP_GRAD(h) void k(double *h, int n) {
  shift(h, h, n);
  // ALIASED_ARGS: unsupported.cpp:[[@LINE-1]]:3: error: cannot differentiate 'k': 'h' is passed twice to 'shift', which writes through one of them; cgp-ad assumes that the pointer arguments of a call do not overlap
}
#endif
