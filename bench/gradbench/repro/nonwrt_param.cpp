// Reproducer found by bench/gradbench (ht, particle): cgp-ad refuses a
// parameter that is NOT differentiated because of its type, although
// docs interface §3 says "A parameter that is not wrt is a constant, whatever
// its type: no type is refused for it unless the kernel writes through it".
// Run: cgp-ad nonwrt_param.cpp -o /tmp/out -- -std=c++17 -I<prefix>/include
// Expected: f_grad and g_grad generated. Seen: two errors (parameter 'm':
// structs holding containers; parameter 'ps': std::vector of 'P').
#include <cgp/cgp.h>
#include <vector>

struct Model { std::vector<double> w; };
struct P { double x, y; };

CGP_GRAD(x)
double f(const double* x, const Model* m) { return x[0] * m->w[0]; }

CGP_GRAD(x)
double g(const double* x, const std::vector<P>& ps) { return x[0] * ps[0].x; }
