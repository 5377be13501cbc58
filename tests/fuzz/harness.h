// harness.h - the run-time checker of the cgp-ad differential fuzzer.
//
// run.py compiles this header into every batch's main.cpp, next to the
// trace twins of the generated kernels (gen.py). One fz::Case per kernel
// calls the kernel, its traced twin and the generated f_grad through lambdas
// and prints machine-readable lines that run.py parses:
//   B <case> <what> <16 hex digits>   exact bits of f_grad's value and of every d_ entry
//   F <case> <message>                a failed check
//   S <case> fd=N skip=N unreliable=N finite-difference checks done / skipped
//   D <case> <why>                    degenerate inputs (e.g. non-finite value): no checks
// Checks: the primal is deterministic and equals its traced twin (to 1e-12);
// f_grad returns f's value bit for bit; every d_ entry is finite; const inputs
// are left alone; every d_ entry of a wrt parameter agrees with a
// Richardson-extrapolated central finite difference of
//   L = f's value + sum(seed * values f leaves in the in/out buffers)
// (interface.md section 3) unless a perturbation changes the twin's trace of
// discrete decisions (branches, trip counts, switch cases, kinks of fabs/fmin/
// ...), in which case the entry is skipped and counted; += accumulation into
// prefilled d_ buffers; a second call is bit-identical.
// Float kernels are differentiated in float but their finite differences are
// taken on a double twin (same code in double), so float rounding does not
// drown the reference; the tolerance is then float-sized.
#ifndef CGP_FUZZ_HARNESS_H
#define CGP_FUZZ_HARNESS_H

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace fz {

// ---- the trace of discrete decisions, written by the traced twins
inline std::uint64_t& trace_word() {
  static std::uint64_t t = 0;
  return t;
}
inline void mix(std::uint64_t v) {
  std::uint64_t& t = trace_word();
  t = (t ^ (v + 0x9e3779b97f4a7c15ULL)) * 0x100000001b3ULL;
  t ^= t >> 29;
}
inline void reset_trace() { trace_word() = 0xcbf29ce484222325ULL; }

}  // namespace fz

// Spelled without a namespace so that the generated twins stay short.
inline bool trb(bool c) {
  fz::mix(c ? 11 : 13);
  return c;
}
inline int tri(int v) {
  fz::mix(1000 + static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  return v;
}
template <class U>
U tr_fabs(U a) {
  fz::mix(a < 0 ? 21 : a > 0 ? 22 : 23);
  return std::fabs(a);
}
template <class U>
U tr_abs(U a) {
  fz::mix(a < 0 ? 21 : a > 0 ? 22 : 23);
  return std::abs(a);
}
template <class U>
U tr_fmin(U a, U b) {
  fz::mix(a < b ? 31 : a > b ? 32 : 33);
  return std::fmin(a, b);
}
template <class U>
U tr_fmax(U a, U b) {
  fz::mix(a < b ? 31 : a > b ? 32 : 33);
  return std::fmax(a, b);
}
template <class U>
U tr_min(U a, U b) {
  fz::mix(a < b ? 31 : a > b ? 32 : 33);
  return std::min(a, b);
}
template <class U>
U tr_max(U a, U b) {
  fz::mix(a < b ? 31 : a > b ? 32 : 33);
  return std::max(a, b);
}

namespace fz {

enum Kind { IN, SCALAR, INOUT };

// Parameter buffers, in double and in float: a case uses the kind its kernel has
// (the double twin of a float kernel uses the double ones).
struct Bufs {
  std::vector<std::vector<double>> d;
  std::vector<std::vector<float>> f;
  double* pd(int k) { return d[k].data(); }
  float* pf(int k) { return f[k].data(); }
  double sd(int k) { return d[k][0]; }
  float sf(int k) { return f[k][0]; }
  // a T& kernel parameter: the one element of an INOUT buffer, by reference (const T& ones
  // take sd/sf, like by-value scalars)
  double& rd(int k) { return d[k][0]; }
  float& rf(int k) { return f[k][0]; }
};

struct Param {
  std::string name;
  Kind kind;
  bool wrt;
  std::vector<double> base;     // entry values
  std::vector<double> seed;     // INOUT: the seed in d_ on entry
  std::vector<double> prefill;  // random start of d_ for the accumulation check
};

inline std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline bool same_bits(double a, double b) { return bits_of(a) == bits_of(b); }

struct Totals {
  int fd = 0, skip = 0, unreliable = 0, failures = 0;
};
inline Totals& totals() {
  static Totals t;
  return t;
}

class Case {
 public:
  Case(std::string name, bool is_float, bool returns) : name_(std::move(name)), float_(is_float), returns_(returns) {
    std::uint64_t h = 1469598103934665603ULL;
    for (char c : name_) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    rng_ = h | 1;
  }
  // A floating parameter (all of them are registered, wrt or not, in order).
  void add(const char* name, Kind kind, bool wrt, std::vector<double> values) {
    Param p;
    p.name = name;
    p.kind = kind;
    p.wrt = wrt;
    for (double v : values) p.base.push_back(round(v));
    for (std::size_t i = 0; i < values.size(); ++i) {
      p.seed.push_back(round(signed_unit()));
      p.prefill.push_back(round(signed_unit()));
    }
    ps_.push_back(p);
  }
  std::function<double(Bufs&)> primal;            // calls f on b.f / b.d (kernel's type)
  std::function<double(Bufs&)> twin;              // traced twin, kernel's type
  std::function<double(Bufs&)> twin_d;            // float kernels: traced twin in double, on b.d
  std::function<double(Bufs&, Bufs&)> grad;       // calls f_grad; d_ buffers in the second Bufs

  void run() {
    std::fflush(stdout);
    Bufs b, g;
    load(b, -1, 0, 0);
    const double f0 = primal(b);
    const double L0 = L_of(b, f0, false);
    std::vector<double> out0 = outs(b, false);
    if (!std::isfinite(L0) || std::fabs(L0) > 1e12) {
      std::printf("D %s value %.17g is not finite or too large\n", name_.c_str(), L0);
      return;
    }
    {
      load(b, -1, 0, 0);
      const double f1 = primal(b);
      if (!same_bits(f1, f0) || outs(b, false) != out0) fail("primal is not deterministic");
    }
    // traced twin at the entry values: same value, the reference trace
    load(b, -1, 0, 0);
    reset_trace();
    const double ft = twin(b);
    const std::uint64_t t0 = trace_word();
    // The twin is compiled in another translation unit: the compiler may fold or
    // inline differently (1 ulp; a float kernel's ulps are 2^-23 relative, and
    // seed 9157 differed by 2 of them); only a real difference is a bug of the
    // generator.
    const double twinTolerance = float_ ? 1e-6 : 1e-12;
    if (!close(ft, f0, twinTolerance) || !close(outs(b, false), out0, twinTolerance))
      fail("fuzzer bug: the traced twin's value %.17g differs from the kernel's %.17g", ft, f0);
    std::uint64_t td0 = t0;
    bool precision_flip = false;
    if (float_) {
      load(b, -1, 0, 0);
      reset_trace();
      twin_d(b);
      td0 = trace_word();
      precision_flip = td0 != t0;  // float and double take different branches here
    }

    // the reference gradient
    const double r0 = call_grad(b, g, false);
    std::vector<std::vector<double>> G0(ps_.size());
    for (std::size_t k = 0; k < ps_.size(); ++k)
      if (ps_[k].wrt) G0[k] = grads(g, k);
    if (returns_ && !same_bits(r0, f0)) fail("f_grad returns %.17g, f returns %.17g (not bit-identical)", r0, f0);
    std::printf("B %s return %016llx\n", name_.c_str(), static_cast<unsigned long long>(bits_of(r0)));
    for (std::size_t k = 0; k < ps_.size(); ++k) {
      if (!ps_[k].wrt) continue;
      for (std::size_t i = 0; i < G0[k].size(); ++i) {
        std::printf("B %s d_%s[%zu] %016llx\n", name_.c_str(), ps_[k].name.c_str(), i,
                    static_cast<unsigned long long>(bits_of(G0[k][i])));
        if (!std::isfinite(G0[k][i])) fail("d_%s[%zu] = %g is not finite", ps_[k].name.c_str(), i, G0[k][i]);
      }
    }
    for (std::size_t k = 0; k < ps_.size(); ++k) {
      if (ps_[k].kind == INOUT) continue;
      for (std::size_t i = 0; i < ps_[k].base.size(); ++i)
        if (!same_bits(value(b, k, i), ps_[k].base[i])) {
          fail("f_grad changed the const input %s[%zu]", ps_[k].name.c_str(), i);
          break;
        }
    }

    // finite differences
    int fd = 0, skip = 0, unreliable = 0;
    for (std::size_t k = 0; k < ps_.size(); ++k) {
      if (!ps_[k].wrt) continue;
      for (std::size_t i = 0; i < ps_[k].base.size(); ++i) {
        if (precision_flip) {
          ++skip;
          continue;
        }
        const double x = ps_[k].base[i];
        const double h = 1e-5 * std::max(1.0, std::fabs(x));
        bool flipped = false;
        const double d1 = central(b, k, i, x, h, td0, flipped);
        const double d2 = central(b, k, i, x, h / 2, td0, flipped);
        if (flipped) {
          ++skip;
          continue;
        }
        const double est = d2 + (d2 - d1) / 3;
        const double gi = G0[k][i];
        const double scale = std::max({1.0, std::fabs(gi), std::fabs(est)});
        const double rtol = float_ ? 2e-3 : 1e-6;
        // the FD is a reference only if it is stable at its own scale (not the gradient's: a
        // chaotic kernel has a huge gradient and FDs that mean nothing)
        if (!(std::fabs(d2 - d1) <= 0.5 * 1e-6 * std::max(1.0, std::fabs(est))) || !std::isfinite(est)) {
          ++unreliable;
          continue;
        }
        ++fd;
        const double err = std::fabs(gi - est) / scale;
        if (!(err <= rtol))
          fail("d_%s[%zu] = %.17g but central FD gives %.17g (rel err %.2e, x = %.17g)", ps_[k].name.c_str(), i, gi,
               est, err, x);
      }
    }

    // accumulation into prefilled buffers
    {
      const double r1 = call_grad(b, g, true);
      if (returns_ && !same_bits(r1, f0)) fail("f_grad with prefilled d_ returns %.17g, f returns %.17g", r1, f0);
      for (std::size_t k = 0; k < ps_.size(); ++k) {
        if (!ps_[k].wrt) continue;
        const std::vector<double> gk = grads(g, k);
        const double tol = float_ ? 1e-4 : 1e-10;
        for (std::size_t i = 0; i < gk.size(); ++i) {
          const double r = ps_[k].kind == INOUT ? 0.0 : ps_[k].prefill[i];
          const double err = std::fabs(gk[i] - r - G0[k][i]) / std::max({1.0, std::fabs(r), std::fabs(G0[k][i])});
          if (!(err <= tol)) {
            fail("d_%s[%zu] does not accumulate: prefilled %.17g, got %.17g, expected %.17g + %.17g", ps_[k].name.c_str(),
                 i, r, gk[i], r, G0[k][i]);
            break;
          }
        }
      }
    }
    // a second call with zeroed buffers is bit-identical
    {
      const double r2 = call_grad(b, g, false);
      bool same = !returns_ || same_bits(r2, r0);
      for (std::size_t k = 0; k < ps_.size() && same; ++k)
        if (ps_[k].wrt) {
          const std::vector<double> gk = grads(g, k);
          for (std::size_t i = 0; i < gk.size(); ++i) same = same && same_bits(gk[i], G0[k][i]);
        }
      if (!same) fail("a second call of f_grad gives other bits (tape reuse)");
    }
    std::printf("S %s fd=%d skip=%d unreliable=%d\n", name_.c_str(), fd, skip, unreliable);
    std::fflush(stdout);
    totals().fd += fd;
    totals().skip += skip;
    totals().unreliable += unreliable;
  }

 private:
  static bool close(double a, double b, double tolerance = 1e-12) {
    return std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(a));
  }
  static bool close(const std::vector<double>& a, const std::vector<double>& b,
                    double tolerance = 1e-12) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!close(a[i], b[i], tolerance)) return false;
    return true;
  }
  double round(double v) const { return float_ ? static_cast<double>(static_cast<float>(v)) : v; }
  double signed_unit() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    const double m = 0.5 + static_cast<double>(rng_ >> 11) / 9007199254740992.0;
    return (rng_ & 1) ? -m : m;
  }
  template <class... A>
  void fail(const char* fmt, A... a) {
    char buf[1024];
    std::snprintf(buf, sizeof buf, fmt, a...);
    std::printf("F %s %s\n", name_.c_str(), buf);
    std::fflush(stdout);
    ++totals().failures;
  }
  void fail(const char* msg) { fail("%s", msg); }

  // Entry values into b (both types), entry (k, i) replaced by v when k >= 0.
  void load(Bufs& b, int k, std::size_t i, double v) {
    b.d.resize(ps_.size());
    b.f.resize(ps_.size());
    for (std::size_t j = 0; j < ps_.size(); ++j) {
      b.d[j] = ps_[j].base;
      b.f[j].assign(ps_[j].base.begin(), ps_[j].base.end());
    }
    if (k >= 0) {
      b.d[k][i] = v;
      b.f[k][i] = static_cast<float>(v);
    }
  }
  double value(Bufs& b, std::size_t k, std::size_t i) const {
    return float_ ? static_cast<double>(b.f[k][i]) : b.d[k][i];
  }
  std::vector<double> outs(Bufs& b, bool dbl) const {
    std::vector<double> o;
    for (std::size_t k = 0; k < ps_.size(); ++k)
      if (ps_[k].kind == INOUT)
        for (std::size_t i = 0; i < ps_[k].base.size(); ++i) o.push_back(dbl ? b.d[k][i] : value(b, k, i));
    return o;
  }
  double L_of(Bufs& b, double ret, bool dbl) const {
    double L = ret;
    for (std::size_t k = 0; k < ps_.size(); ++k)
      if (ps_[k].kind == INOUT)
        for (std::size_t i = 0; i < ps_[k].base.size(); ++i)
          L += ps_[k].seed[i] * (dbl ? b.d[k][i] : value(b, k, i));
    return L;
  }
  // L at entry (k, i) = v, by the traced twin (double twin for float kernels).
  double L_at(Bufs& b, std::size_t k, std::size_t i, double v, std::uint64_t ref, bool& flipped) {
    load(b, static_cast<int>(k), i, v);
    reset_trace();
    const double r = float_ ? twin_d(b) : twin(b);
    if (trace_word() != ref) flipped = true;
    return L_of(b, r, float_);
  }
  double central(Bufs& b, std::size_t k, std::size_t i, double x, double h, std::uint64_t ref, bool& flipped) {
    double xp = x + h, xm = x - h;
    const double Lp = L_at(b, k, i, xp, ref, flipped);
    const double Lm = L_at(b, k, i, xm, ref, flipped);
    return (Lp - Lm) / (xp - xm);
  }
  std::vector<double> grads(Bufs& g, std::size_t k) const {
    std::vector<double> v;
    for (std::size_t i = 0; i < ps_[k].base.size(); ++i)
      v.push_back(float_ ? static_cast<double>(g.f[k][i]) : g.d[k][i]);
    return v;
  }
  double call_grad(Bufs& b, Bufs& g, bool prefill) {
    g.d.assign(ps_.size(), {});
    g.f.assign(ps_.size(), {});
    for (std::size_t k = 0; k < ps_.size(); ++k) {
      for (std::size_t i = 0; i < ps_[k].base.size(); ++i) {
        const double v = ps_[k].kind == INOUT ? ps_[k].seed[i] : prefill ? ps_[k].prefill[i] : 0.0;
        g.d[k].push_back(v);
        g.f[k].push_back(static_cast<float>(v));
      }
    }
    load(b, -1, 0, 0);
    return grad(b, g);
  }

  std::string name_;
  bool float_, returns_;
  std::uint64_t rng_;
  std::vector<Param> ps_;
};

// std::vector and std::array kernel parameters (and their adjoints) are built from their flat
// buffers for each call and, when the kernel may change them, stored back after it.
template <class P>
std::vector<P> vec(const P* p, std::size_t n) {
  return std::vector<P>(p, p + n);
}
template <std::size_t N, class P>
std::array<P, N> arr(const P* p) {
  std::array<P, N> a;
  for (std::size_t i = 0; i < N; ++i) a[i] = p[i];
  return a;
}
template <class C, class P>
void store(const C& c, P* p) {
  for (std::size_t i = 0; i < c.size(); ++i) p[i] = c[i];
}

}  // namespace fz

#endif  // CGP_FUZZ_HARNESS_H
