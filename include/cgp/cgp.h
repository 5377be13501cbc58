// cgp/cgp.h - the annotations a user puts on kernels for cgp-ad.
//
// CGP_GRAD(p, q, ...) marks a function for reverse-mode differentiation with
// respect to the named parameters (all floating parameters when the list is
// empty). While cgp-ad parses a file it defines __CGP_AD__, and the macros
// become Clang `annotate` attributes that the tool reads. For every other
// compiler they expand to nothing, so annotated code builds and runs unchanged.
#ifndef CGP_CGP_H
#define CGP_CGP_H

#if defined(__CGP_AD__)
#define CGP_GRAD(...) __attribute__((annotate("cgp_grad:" #__VA_ARGS__)))
#define CGP_JVP(...) __attribute__((annotate("cgp_jvp:" #__VA_ARGS__)))
#define CGP_PULLBACK_OF(g) __attribute__((annotate("cgp_pullback_of:" #g)))
#else
#define CGP_GRAD(...)
#define CGP_JVP(...)
#define CGP_PULLBACK_OF(g)
#endif

#endif // CGP_CGP_H
