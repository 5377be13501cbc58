// real.h - the scalar type of the suite's kernels. Each kernel is written
// once in terms of `real`: double for the primal and for cgp-ad, ADOL-C's
// adouble when a driver includes the same kernel source with SUITE_ADOLC
// defined (inside a namespace of its own), so both tools differentiate the
// very same code. No include guard: each such inclusion needs its typedef.
#ifdef SUITE_ADOLC
typedef adouble real;
#else
typedef double real;
#endif
