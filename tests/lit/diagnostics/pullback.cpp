// Mistakes in CGP_PULLBACK_OF: a pullback whose parameters do not agree
// with g's, a g that does not exist, two pullbacks of one function, and
// what a custom derivative cannot do. Each is an error at the marker (or
// at the call), exit status 1, nothing written.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTYPES 2>&1 | FileCheck %s --check-prefix=TYPES
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DMISSING_ADJOINT 2>&1 | FileCheck %s --check-prefix=MISSING_ADJOINT
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DNOT_VOID 2>&1 | FileCheck %s --check-prefix=NOT_VOID
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DUNKNOWN 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DTWO 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DFORWARD_POINTER 2>&1 | FileCheck %s --check-prefix=FORWARD_POINTER
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DSTRUCT_TYPES 2>&1 | FileCheck %s --check-prefix=STRUCT_TYPES
// RUN: %expect-exit 1 %cgpad %s -o %t/out -- -std=c++17 -DNO_DEFAULT 2>&1 | FileCheck %s --check-prefix=NO_DEFAULT
// RUN: test ! -e %t/out
#include <cgp/cgp.h>
#include <vector>

#ifdef TYPES
double g(double x, const double *v, int n);
CGP_PULLBACK_OF(g)
// TYPES: pullback.cpp:[[@LINE-1]]:1: error: the parameters of 'g_pb' do not agree with those of 'g': a pullback of 'g' must be declared 'void g_pb(double x, const double * v, int n, double d_ret, double * d_x, double * d_v)'
void g_pb(double x, const double *v, int n, double d_ret, double *d_x, const double *d_v);
#endif

#ifdef MISSING_ADJOINT
double g(double x, double y);
CGP_PULLBACK_OF(g)
// MISSING_ADJOINT: pullback.cpp:[[@LINE-1]]:1: error: the parameters of 'g_pb' do not agree with those of 'g'
void g_pb(double x, double y, double d_ret, double *d_x);
#endif

#ifdef NOT_VOID
float g(float x);
CGP_PULLBACK_OF(g)
// NOT_VOID: pullback.cpp:[[@LINE-1]]:1: error: the parameters of 'g_pb' do not agree with those of 'g': a pullback of 'g' must be declared 'void g_pb(float x, float d_ret, float * d_x)'
float g_pb(float x, float d_ret, float *d_x);
#endif

#ifdef UNKNOWN
CGP_PULLBACK_OF(gg)
// UNKNOWN: pullback.cpp:[[@LINE-1]]:1: error: CGP_PULLBACK_OF(gg) on 'g_pb': no function 'gg' is declared in this file
void g_pb(double x, double d_ret, double *d_x);
#endif

#ifdef TWO
double g(double x);
CGP_PULLBACK_OF(g)
void g_pb(double x, double d_ret, double *d_x);
CGP_PULLBACK_OF(g)
// TWO: pullback.cpp:[[@LINE-1]]:1: error: 'g' has two pullbacks, 'g_pb' and 'g_pb2'
void g_pb2(double x, double d_ret, double *d_x);
#endif

#ifdef FORWARD_POINTER
double g(const double *v, int n);
CGP_PULLBACK_OF(g)
void g_pb(const double *v, int n, double d_ret, double *d_v);
CGP_JVP(v)
double k(const double *v) {
  // FORWARD_POINTER: pullback.cpp:[[@LINE+1]]:10: error: cannot differentiate 'k': forward mode cannot differentiate the call of 'g': it has no visible body, and its pullback (CGP_PULLBACK_OF) takes the pointer 'v', whose extent cgp-ad does not know
  double r = g(v, 3);
  return r * r;
}
#endif

#ifdef STRUCT_TYPES
struct Cam {
  double f, c[2];
  int id;
};
double proj(const Cam &cam, const std::vector<double> &X, int n);
CGP_PULLBACK_OF(proj)
// STRUCT_TYPES: pullback.cpp:[[@LINE-1]]:1: error: the parameters of 'proj_pb' do not agree with those of 'proj': a pullback of 'proj' must be declared 'void proj_pb(const Cam & cam, const std::vector<double> & X, int n, double d_ret, Cam * d_cam, std::vector<double> * d_X)'
void proj_pb(const Cam &cam, const std::vector<double> &X, int n, double d_ret, double *d_cam,
             double *d_X);
#endif

#ifdef NO_DEFAULT
struct Gain {
  explicit Gain(double g) : g(g) {}
  double g;
};
double amplify(const Gain &gain, double x);
CGP_PULLBACK_OF(amplify)
void amplify_pb(const Gain &gain, double x, double d_ret, Gain *d_gain, double *d_x);
CGP_GRAD(x)
double k(double x) {
  Gain gain(2.0);
  return amplify(gain, x);
}
// NO_DEFAULT: pullback.cpp:[[@LINE-8]]:{{[0-9]+}}: error: cannot differentiate 'k': the struct 'Gain' of parameter 'gain' has no default constructor; the pullback of 'amplify' needs one to receive it and its adjoint
#endif
