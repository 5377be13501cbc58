// energy_terms.h - included by energy.cpp only: a double-well potential.
// check-gradients.sh edits it and expects only energy.cpp to regenerate.
#pragma once

inline double well(double x) { return 0.25 * x * x * x * x - 2.0 * x * x; }
