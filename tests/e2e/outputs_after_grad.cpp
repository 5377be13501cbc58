// After f_grad returns, every buffer f writes holds what f leaves in it, bit
// for bit, whatever the reverse sweep restored there on the way (in-place
// updates through the kernel and through helpers, repeated overwrites,
// early exits). Checked against f run on the same inputs. The same holds for
// f_jvp (forward mode): it leaves in those buffers, the undifferentiated log
// included, what f leaves there.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cgpad %s -o %t -- -std=c++17
// RUN: %cxx %cxxflags %t/outputs_after_grad.cgp.cpp -o %t/run %ldflags && %t/run
// RUN: %cxx %cxxflags %sanitize %t/outputs_after_grad.cgp.cpp -o %t/run-san %ldflags && %t/run-san
#include <cgp/cgp.h>
#include <cmath>

static void relax(double *v, const double *w, int n) {
  for (int i = 1; i < n; ++i)
    v[i] = std::tanh(v[i] * w[i] + v[i - 1]);
}

CGP_GRAD(h, w)
CGP_JVP(h, w)
double inplace(double *h, const double *w, double *log, int n, int steps) {
  double loss = 0;
  for (int s = 0; s < steps; ++s) {
    relax(h, w, n);
    for (int i = 0; i < n; ++i) {
      h[i] = h[i] * h[i] + 0.1;
      log[s * n + i] = h[i];
    }
    if (h[0] > 10.0)
      return loss;
    loss += h[n - 1];
  }
  return loss;
}

CGP_GRAD(out, x)
CGP_JVP(out, x)
void scatter(double *out, const double *x, int n) {
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < n; ++i)
      out[(i * 7 + r) % n] = std::sin(out[(i * 3) % n] + x[i]);
}

#ifndef __CGP_AD__
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;

static void same(const char *what, const std::vector<double> &a, const std::vector<double> &b) {
  bool equal = a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  std::printf("  %s  %s\n", equal ? "PASS" : "FAIL", what);
  failures += !equal;
}

int main() {
  const int n = 6, steps = 5;
  std::vector<double> w(n), h0(n), x(n), out0(n);
  for (int i = 0; i < n; ++i) {
    w[i] = 0.3 + 0.1 * i;
    h0[i] = 0.2 * i - 0.4;
    x[i] = 0.15 * i - 0.3;
    out0[i] = 0.05 * i;
  }
  {
    std::vector<double> h = h0, log(n * steps, 0.0), hg = h0, logg(n * steps, 0.0);
    std::vector<double> dh(n, 1.0), dw(n, 0.0);
    double f = inplace(h.data(), w.data(), log.data(), n, steps);
    double g = inplace_grad(hg.data(), w.data(), logg.data(), n, steps, dh.data(), dw.data());
    std::printf("inplace: f = %.17g, f_grad = %.17g\n", f, g);
    same("inplace: returned value", {f}, {g});
    same("inplace: h holds the kernel's final state", h, hg);
    same("inplace: log (written, not differentiated) holds the kernel's values", log, logg);
    std::vector<double> hj = h0, logj(n * steps, 0.0), th(n), tw(n);
    for (int i = 0; i < n; ++i) {
      th[i] = 0.5 - 0.15 * i;
      tw[i] = 0.1 * i - 0.2;
    }
    inplace_jvp(hj.data(), w.data(), logj.data(), n, steps, th.data(), tw.data());
    same("inplace: after f_jvp, h holds the kernel's final state", h, hj);
    same("inplace: after f_jvp, log holds the kernel's values", log, logj);
  }
  {
    std::vector<double> out = out0, outg = out0, dout(n, 1.0), dx(n, 0.0);
    scatter(out.data(), x.data(), n);
    scatter_grad(outg.data(), x.data(), n, dout.data(), dx.data());
    same("scatter: out holds the kernel's values", out, outg);
    std::vector<double> outj = out0, tout(n), tx(n);
    for (int i = 0; i < n; ++i) {
      tout[i] = 0.3 - 0.1 * i;
      tx[i] = 0.2 * i - 0.5;
    }
    scatter_jvp(outj.data(), x.data(), n, tout.data(), tx.data());
    same("scatter: after f_jvp, out holds the kernel's values", out, outj);
  }
  std::printf("%s\n", failures ? "FAILED" : "all passed");
  return failures != 0;
}
#endif
