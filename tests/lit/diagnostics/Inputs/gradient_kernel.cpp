// The first-order unit of diagnostics/higher_order.cpp: a kernel in reverse mode.
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(x)
double f(const double* x) { return std::sin(x[0]) * x[1]; }
