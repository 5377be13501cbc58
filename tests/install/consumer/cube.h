// cube.h - a helper kernel.cpp includes: check-consumer.sh edits it and
// expects cgp-ad to run again, through cgp-ad's depfile (DEPFILE).
#pragma once

inline double cube(double v) { return v * v * v; }
