// main.cpp - the consumer's program: includes the installed headers, counts
// one call of a gradient with counters of its own (as generated code does),
// pushes and pops values across several tape chunks as a gradient would, and
// prints statsLine() on stdout. Exit status 1 if a value came back wrong.
#include <cgp/cgp.h>
#include <cgp/runtime.h>

#include <cstdio>

CGP_GRAD(x) // expands to nothing outside cgp-ad
double square(double x) { return x * x; }

int main() {
  static cgp::rt::GradientStats &stats = cgp::rt::gradientStats("square_grad");
  cgp::rt::countCall(stats);
  cgp::rt::Tape &tape = cgp::rt::Tape::current();
  const int n = 100000; // 800000 bytes: more than one chunk
  for (int i = 0; i < n; ++i)
    tape.push(square(i));
  tape.notePeak();
  int bad = 0;
  for (int i = n - 1; i >= 0; --i)
    bad += tape.pop<double>() != square(i);
  std::printf("%s\n", cgp::rt::statsLine().c_str());
  if (bad || tape.bytes() != 0) {
    std::fprintf(stderr, "consumer: %d wrong values, %zu bytes left\n", bad, tape.bytes());
    return 1;
  }
  return 0;
}
