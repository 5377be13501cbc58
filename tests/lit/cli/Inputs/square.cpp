#include <cgp/cgp.h>

CGP_GRAD(x)
double square(double x) { return x * x; }
