// spring_law.h - included by spring.cpp only: the energy of a stretched
// spring; SPRING_K comes from the target's compile definitions.
#pragma once
#ifndef SPRING_K
#error "SPRING_K must come from the target's compile definitions"
#endif

inline double spring(double d) { return 0.5 * SPRING_K * d * d; }
