// enzyme.h - the declarations an Enzyme adapter needs: Enzyme's clang plugin replaces calls
// to __enzyme_autodiff with the reverse-mode derivative of the function named in its first
// argument; enzyme_dup / enzyme_const mark how each following argument is treated (a pointer
// with its adjoint, or an argument not differentiated).
#pragma once

extern int enzyme_dup;
extern int enzyme_const;
void __enzyme_autodiff(void *, ...);
