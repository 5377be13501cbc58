#!/usr/bin/env python3
# many_kernels.py N [--zero]: prints a C++ file of N marked kernels (loops,
# branches, math calls, helper() from helper.h) to time cgp-ad on a big input
# and its fast rerun (tests/lit/cli/incremental.test, docs/reference.md).
# --zero adds a kernel whose gradient is always zero: cgp-ad warns about it
# each time it parses the file, which shows whether a rerun parsed.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
print('#include <cgp/cgp.h>\n#include <cmath>\n#include "helper.h"\n')
for k in range(n):
    print(f"""CGP_GRAD(x, w)
double kernel{k}(const double* x, double w, int n) {{
  double s = 0.0;
  for (int i = 0; i < n; ++i) {{
    double v = x[i] * w + {k + 1}.0;
    if (v > 0.0)
      s += std::sin(v) * helper(v);
    else
      s += v * v * {k % 7 + 1}.0;
  }}
  return s / n;
}}
""")
if "--zero" in sys.argv:
    print("""CGP_GRAD(x)
void zero(const double* x, double* y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * x[i];
}""")
