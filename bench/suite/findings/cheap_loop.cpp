// cheap_loop.cpp - minimal kernel for a run-time finding of bench/suite: a
// long loop of cheap iterations reversed under a memory budget spends most
// of its time computing the checkpoint schedule (cgp::rt::binomialCapped and
// BinomialSchedule::split), not replaying iterations. Build and run:
//   cgp-ad --memory-budget=1GiB cheap_loop.cpp -o out -- -std=c++17 -I P/include
//   g++ -O2 -std=c++17 -I P/include out/cheap_loop.cgp.cpp -L P/lib -lcgp_rt -o cheap
//   ./cheap 10000; CGP_MEMORY_BUDGET=40000 ./cheap 10000   # half of the 80 KB tape
// Measured (2026-12-01, AMD EPYC, g++ 12 -O2): 0.4 ms without a budget, 8 ms
// with it (4999 snapshots, 5000 replayed iterations); under perf, at n =
// 100000, binomialCapped + split take 58% of the samples.
#include <cgp/cgp.h>
#include <cmath>

CGP_GRAD(p)
double cheap(const double *p, int n) {
  double x = p[0];
  for (int i = 0; i < n; ++i)
    x = std::sin(x) * p[1] + p[2];
  return x;
}

#ifndef __CGP_AD__
#include <cgp/runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
double cheap_grad(const double *p, int n, double *d_p);
int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 10000;
  double p[3] = {0.3, 0.9, 0.1};
  for (int rep = 0; rep < 5; ++rep) {
    double d[3] = {0, 0, 0};
    cgp::rt::resetStats();
    auto a = std::chrono::steady_clock::now();
    cheap_grad(p, n, d);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    cgp::rt::Stats st = cgp::rt::stats();
    std::printf("n=%d %.3f ms peak_tape=%llu replayed=%llu\n", n, s * 1e3,
                static_cast<unsigned long long>(st.peakTapeBytes),
                static_cast<unsigned long long>(st.recomputedIterations));
  }
  return 0;
}
#endif
