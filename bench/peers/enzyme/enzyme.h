// enzyme.h - what an Enzyme adapter needs: Enzyme's clang plugin replaces each call to
// __enzyme_autodiff with the reverse-mode derivative of the function in its first argument;
// the globals enzyme_dup and enzyme_const, passed before an argument, say how it is treated (a
// pointer followed by its adjoint, or not differentiated). Enzyme knows them by name; they are
// defined here because each suite program links exactly one adapter.
#pragma once

int enzyme_dup;
int enzyme_const;
void __enzyme_autodiff(void *, ...);
