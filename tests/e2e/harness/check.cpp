// check.cpp - the definitions of the end-to-end checker that check.h
// declares (what it checks and how: the comment at the top of check.h).
//
// A separate file so that it is compiled once per set of flags rather than
// once per test: tests/lit.cfg.py builds it into an object at -O2 and one with
// the sanitizers (%harness and %san-harness) and every test links one of them.
// Compiled into each test, as when the checker was header-only, it took
// several seconds per compile (over 10 s with the sanitizers), more than the
// test's own code. Built with -DCGP_TEST_FD_PROBE it is the probe mode's
// checker (check.h says how to build one by hand).
#include "check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace cgp_test {

namespace detail {

struct Param {
  std::string name;
  bool is_float = false;  // element type float (else double)
  bool inout = false;
  bool float_fd = false;  // use the float FD rule
  std::vector<double> base;  // entry values (exact in the element type)
  std::vector<double> seed;  // inout only
  std::vector<double> work_d;
  std::vector<float> work_f;  // what the kernel sees
  std::vector<double> grad_d;
  std::vector<float> grad_f;  // the d_ buffer
  bool touched = false;       // an accessor handed out its d_ buffer
  bool scalar = false;        // registered with scalar(): passed by value
  std::vector<double> tan_d;
  std::vector<float> tan_f;   // the t_ buffer (or, for a scalar, its value)
  bool t_touched = false;     // a Tangents accessor handed out its t_

  std::size_t size() const { return base.size(); }
  double round(double v) const { return is_float ? static_cast<double>(static_cast<float>(v)) : v; }
  double work(std::size_t i) const { return is_float ? static_cast<double>(work_f[i]) : work_d[i]; }
  void set_work(std::size_t i, double v) {
    if (is_float) work_f[i] = static_cast<float>(v);
    else work_d[i] = v;
  }
  double grad(std::size_t i) const { return is_float ? static_cast<double>(grad_f[i]) : grad_d[i]; }
  void set_grad(std::size_t i, double v) {
    if (is_float) grad_f[i] = static_cast<float>(v);
    else grad_d[i] = v;
  }
  std::vector<double> grads() const {
    std::vector<double> g(size());
    for (std::size_t i = 0; i < size(); ++i) g[i] = grad(i);
    return g;
  }
  double tan(std::size_t i) const { return is_float ? static_cast<double>(tan_f[i]) : tan_d[i]; }
  void set_tan(std::size_t i, double v) {
    if (is_float) tan_f[i] = static_cast<float>(v);
    else tan_d[i] = v;
  }
  // x + delta computed in the element type.
  double perturbed(double x, double delta) const {
    if (is_float) return static_cast<double>(static_cast<float>(x) + static_cast<float>(delta));
    return x + delta;
  }
};

#ifdef CGP_TEST_FD_PROBE
// The link check of check.h: this object is the probe mode's checker.
bool probe_mode_built() { return true; }
#endif

}  // namespace detail

namespace {

#ifdef CGP_TEST_FD_PROBE
constexpr double PROBE_FACTOR_DOUBLE = 8.0;
constexpr double PROBE_FACTOR_FLOAT = 0.25;
#endif

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "cgp_test: test error: %s\n", msg.c_str());
  std::fflush(stdout);
  std::exit(2);
}

template <class... A>
std::string fmt(const char* f, A... a) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

// One output line, counted in the tally.
void check(bool ok, const std::string& what) {
  ++tally().checks;
  if (!ok) ++tally().failures;
  std::printf("  %s  %s\n", ok ? "PASS" : "FAIL", what.c_str());
}

}  // namespace

Tally& tally() {
  static Tally t;
  return t;
}

bool same_bits(double a, double b) {
  std::uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

// ---------------------------------------------------------------- Rng

struct Rng::Engine {
  explicit Engine(unsigned seed) : g(seed) {}
  std::mt19937 g;
};

Rng::Rng(unsigned seed) : engine_(new Engine(seed)) {}
Rng::Rng(const Rng& other) : engine_(new Engine(*other.engine_)) {}
Rng& Rng::operator=(const Rng& other) {
  *engine_ = *other.engine_;
  return *this;
}
Rng::~Rng() { delete engine_; }

double Rng::u01() { return (static_cast<double>(engine_->g()) + 0.5) / 4294967296.0; }
double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * u01(); }
int Rng::integer(int lo, int hi) {
  return lo + static_cast<int>(engine_->g() % static_cast<std::uint32_t>(hi - lo + 1));
}

// ---------------------------------------------------------------- Grads, Tangents

double* Grads::f64(const std::string& name) {
  detail::Param& p = find(name);
  if (p.is_float) die("d.f64(\"" + name + "\") but it was registered as float");
  p.touched = true;
  return p.grad_d.data();
}

float* Grads::f32(const std::string& name) {
  detail::Param& p = find(name);
  if (!p.is_float) die("d.f32(\"" + name + "\") but it was registered as double");
  p.touched = true;
  return p.grad_f.data();
}

detail::Param& Grads::find(const std::string& name) {
  for (auto& p : *ps_)
    if (p->name == name) return *p;
  die("no parameter named \"" + name + "\" was registered");
}

double* Tangents::f64(const std::string& name) { return &buffer(name, false, "f64")->tan_d[0]; }
float* Tangents::f32(const std::string& name) { return &buffer(name, true, "f32")->tan_f[0]; }
double Tangents::s64(const std::string& name) { return value(name, false, "s64")->tan_d[0]; }
float Tangents::s32(const std::string& name) { return value(name, true, "s32")->tan_f[0]; }

detail::Param* Tangents::buffer(const std::string& name, bool want_float, const char* acc) {
  detail::Param& p = find(name, want_float, acc);
  if (p.scalar)
    die(std::string("t.") + acc + "(\"" + name + "\") but it is a scalar: use t.s64/t.s32 for its tangent value");
  return &p;
}

detail::Param* Tangents::value(const std::string& name, bool want_float, const char* acc) {
  detail::Param& p = find(name, want_float, acc);
  if (!p.scalar)
    die(std::string("t.") + acc + "(\"" + name + "\") but it is a pointer or array: use t.f64/t.f32");
  return &p;
}

detail::Param& Tangents::find(const std::string& name, bool want_float, const char* acc) {
  for (auto& p : *ps_)
    if (p->name == name) {
      if (p->is_float != want_float)
        die(std::string("t.") + acc + "(\"" + name + "\") but it was registered as " +
            (p->is_float ? "float" : "double"));
      p->t_touched = true;
      return *p;
    }
  die("no parameter named \"" + name + "\" was registered");
}

// ---------------------------------------------------------------- Checker

Checker::Checker(std::string name, unsigned seed)
    : name_(std::move(name)), rng_(seed), tangent_rng_(seed ^ 0x5bd1e995u) {}
Checker::~Checker() {
  for (detail::Param* p : params_) delete p;
}

double Checker::uniform(double lo, double hi) { return rng_.uniform(lo, hi); }
int Checker::integer(int lo, int hi) { return rng_.integer(lo, hi); }

std::vector<double> Checker::random_vector(std::size_t n, double lo, double hi) {
  std::vector<double> v(n);
  for (auto& x : v) x = rng_.uniform(lo, hi);
  return v;
}

std::vector<float> Checker::random_vector_f(std::size_t n, double lo, double hi) {
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng_.uniform(lo, hi));
  return v;
}

void Checker::seed(const std::string& name, const std::vector<double>& values) {
  detail::Param& p = find(name);
  if (!p.inout) die("seed(\"" + name + "\"): not an inout parameter");
  if (values.size() != p.size()) die("seed(\"" + name + "\"): wrong size");
  for (std::size_t i = 0; i < values.size(); ++i) p.seed[i] = p.round(values[i]);
}

void Checker::float_precision() {
  float_all_ = true;
  for (auto& p : params_) p->float_fd = true;
}

void Checker::expect_grad(const std::string& name, const std::vector<double>& values, double rtol) {
  expects_.push_back(Expect{name, values, rtol});
}

void Checker::on_reset(Callback<void()> fn) { resets_.push_back(std::move(fn)); }

void Checker::primal(Callback<double()> fn) {
  primal_ = std::move(fn);
  returns_value_ = true;
}

void Checker::grad(Callback<double(Grads&)> fn) { grad_ = std::move(fn); }

void Checker::primal_void(Callback<void()> fn) {
  primal_ = [fn = std::move(fn)]() {
    fn();
    return 0.0;
  };
  returns_value_ = false;
}

void Checker::grad_void(Callback<void(Grads&)> fn) {
  grad_ = [fn = std::move(fn)](Grads& d) {
    fn(d);
    return 0.0;
  };
}

void Checker::jvp(Callback<double(Tangents&)> fn) {
  jvp_ = std::move(fn);
  jvp_returns_value_ = true;
}

void Checker::jvp_void(Callback<void(Tangents&)> fn) {
  jvp_ = [fn = std::move(fn)](Tangents& t) {
    fn(t);
    return 0.0;
  };
  jvp_returns_value_ = false;
}

int Checker::run() {
  std::printf("== %s\n", name_.c_str());
  const int before = tally().failures;
  if (!primal_ || !grad_ || params_.empty()) {
    check(false, "test is complete (primal, grad and at least one parameter registered)");
    return tally().failures - before;
  }
  // The test may have edited values through the returned references.
  for (auto& p : params_)
    for (std::size_t i = 0; i < p->size(); ++i) p->base[i] = p->work(i);
  double f0 = 0;
  const double L0 = eval_L(nullptr, 0, 0, &f0);
  const double L0b = eval_L(nullptr, 0, 0, nullptr);
  check(same_bits(L0, L0b), fmt("primal is deterministic (L = %.17g)", L0));
  check(std::isfinite(L0), "primal value is finite");

  // Reference gradient: in buffers zeroed, inout buffers seeded.
  const double r0 = call_grad(false);
  std::vector<std::vector<double>> G0;
  for (auto& p : params_) G0.push_back(p->grads());
  const Table grad_out = snapshot_work();  // what f_grad leaves in every buffer
  for (auto& p : params_)
    if (!p->touched) check(false, "grad lambda passes d_" + p->name + " to f_grad");
  if (returns_value_)
    check(same_bits(r0, f0), fmt("f_grad returns f's value bit for bit (f = %.17g, f_grad = %.17g)", f0, r0));
  for (std::size_t k = 0; k < params_.size(); ++k) {
    bool finite = true;
    for (double g : G0[k]) finite = finite && std::isfinite(g);
    check(finite, "d_" + params_[k]->name + " is finite (no NaN/inf)");
  }
  for (auto& p : params_) {
    if (p->inout) continue;
    bool same = true;
    for (std::size_t i = 0; i < p->size(); ++i) same = same && same_bits(p->work(i), p->base[i]);
    check(same, "f_grad leaves const input " + p->name + " unchanged");
  }
  // An inout buffer holds after f_grad what f leaves there (interface.md
  // section 3: the redo tape puts back what the reverse sweep restored).
  {
    load(nullptr, 0, 0);
    primal_();
    const Table f_out = snapshot_work();
    for (std::size_t k = 0; k < params_.size(); ++k) {
      if (!params_[k]->inout) continue;
      bool same = grad_out[k].size() == f_out[k].size();
      for (std::size_t i = 0; same && i < f_out[k].size(); ++i)
        same = same_bits(grad_out[k][i], f_out[k][i]);
      check(same, "f_grad leaves in " + params_[k]->name + " what f leaves there, bit for bit");
    }
  }

  // The exact bits of the reference gradient, for comparing builds made
  // with other strategies or memory budgets (CGP_TEST_DUMP=file).
  if (const char* dump = std::getenv("CGP_TEST_DUMP")) {
    if (FILE* out = std::fopen(dump, "a")) {
      std::uint64_t bits;
      std::memcpy(&bits, &r0, sizeof bits);
      std::fprintf(out, "%s: return %016llx\n", name_.c_str(), static_cast<unsigned long long>(bits));
      for (std::size_t k = 0; k < params_.size(); ++k)
        for (std::size_t i = 0; i < G0[k].size(); ++i) {
          std::memcpy(&bits, &G0[k][i], sizeof bits);
          std::fprintf(out, "%s: d_%s[%zu] %016llx\n", name_.c_str(), params_[k]->name.c_str(), i,
                       static_cast<unsigned long long>(bits));
        }
      std::fclose(out);
    }
  }

  // (b)/(e): finite differences.
  for (std::size_t k = 0; k < params_.size(); ++k) fd_check(k, G0[k]);

  // (c): accumulation.
  {
    const double r1 = call_grad(true);
    if (returns_value_)
      check(same_bits(r1, f0), "f_grad returns f's value with prefilled d_ buffers");
    for (std::size_t k = 0; k < params_.size(); ++k) {
      detail::Param& p = *params_[k];
      const double rtol = p.is_float ? ACC_RTOL_FLOAT : ACC_RTOL_DOUBLE;
      double worst = 0;
      std::size_t bad = 0, first = 0;
      for (std::size_t i = 0; i < p.size(); ++i) {
        const double r = p.inout ? 0.0 : prefill_[k][i];
        const double got = p.grad(i) - r;
        const double err = std::fabs(got - G0[k][i]) / std::max({1.0, std::fabs(r), std::fabs(G0[k][i])});
        if (!(err <= rtol)) {
          if (bad++ == 0) first = i;
        }
        if (!(err <= worst)) worst = err;
      }
      std::string what = p.inout ? fmt("inout d_%s with the same seed, other d_ prefilled: same adjoint (max rel err %.2e)",
                                       p.name.c_str(), worst)
                                 : fmt("d_%s accumulates (+=) into prefilled values (max rel err %.2e, tol %.0e)",
                                       p.name.c_str(), worst, rtol);
      if (bad)
        what += fmt("; %zu bad, first [%zu]: d-r = %.17g, expected %.17g", bad, first,
                    p.grad(first) - (p.inout ? 0.0 : prefill_[k][first]), G0[k][first]);
      check(bad == 0, what);
    }
  }

  // (d): repeat call, bit for bit.
  {
    const double r2 = call_grad(false);
    bool same = !returns_value_ || same_bits(r2, r0);
    std::string where;
    for (std::size_t k = 0; k < params_.size(); ++k)
      for (std::size_t i = 0; i < params_[k]->size(); ++i)
        if (!same_bits(params_[k]->grad(i), G0[k][i])) {
          if (same) where = fmt("; first difference d_%s[%zu]", params_[k]->name.c_str(), i);
          same = false;
        }
    check(same, "second call with zeroed buffers is bit-identical (tape reuse)" + where);
  }

  // analytic expectations
  for (const Expect& e : expects_) {
    std::size_t k = index(e.name);
    detail::Param& p = *params_[k];
    if (e.values.size() != p.size()) die("expect_grad(\"" + e.name + "\"): wrong size");
    double worst = 0;
    bool ok = true;
#ifdef CGP_TEST_FD_PROBE
    const double rtol = std::max(e.rtol, p.float_fd ? FD_RTOL_FLOAT : FD_RTOL_DOUBLE);  // the "gradient" is a FD
#else
    const double rtol = e.rtol;
#endif
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double err = std::fabs(G0[k][i] - e.values[i]) / std::max({1.0, std::fabs(e.values[i])});
      ok = ok && err <= rtol;
      if (!(err <= worst)) worst = err;
    }
    std::string what = fmt("d_%s matches the analytic gradient (max rel err %.2e, tol %.0e)", p.name.c_str(), worst, rtol);
    if (!ok)
      for (std::size_t i = 0; i < p.size() && i < 8; ++i)
        what += fmt("\n      [%zu] got %.17g expected %.17g", i, G0[k][i], e.values[i]);
    check(ok, what);
  }

  if (jvp_) jvp_checks(G0);
  return tally().failures - before;
}

std::vector<double> Checker::draw(std::size_t n, double lo, double hi) {
  std::vector<double> v(n);
  for (auto& x : v) x = rng_.uniform(lo, hi);
  return v;
}

std::vector<double>& Checker::add_double(const std::string& name, const std::vector<double>& values, bool inout,
                                         bool scalar) {
  return add_param(name, values, false, inout, scalar).work_d;
}

std::vector<float>& Checker::add_float(const std::string& name, const std::vector<double>& values, bool inout,
                                       bool scalar) {
  return add_param(name, values, true, inout, scalar).work_f;
}

detail::Param& Checker::add_param(const std::string& name, const std::vector<double>& values, bool is_float, bool inout,
                                  bool scalar) {
  for (auto& p : params_)
    if (p->name == name) die("parameter \"" + name + "\" registered twice");
  if (values.empty()) die("parameter \"" + name + "\" has no entries");
  auto p = std::make_unique<detail::Param>();
  p->name = name;
  p->is_float = is_float;
  p->inout = inout;
  p->scalar = scalar;
  p->float_fd = p->is_float || float_all_;
  for (double v : values) p->base.push_back(p->round(v));
  const std::size_t n = values.size();
  if (inout) {
    // seeds of magnitude in [0.5, 1.5], random sign
    for (std::size_t i = 0; i < n; ++i) {
      const double m = rng_.uniform(0.5, 1.5);
      p->seed.push_back(p->round(rng_.u01() < 0.5 ? -m : m));
    }
  }
  if (p->is_float) {
    p->work_f.assign(n, 0.0f);
    p->grad_f.assign(n, 0.0f);
    p->tan_f.assign(n, 0.0f);
  } else {
    p->work_d.assign(n, 0.0);
    p->grad_d.assign(n, 0.0);
    p->tan_d.assign(n, 0.0);
  }
  for (std::size_t i = 0; i < n; ++i) p->set_work(i, p->base[i]);
  // the random prefill of check (c)
  std::vector<double> r(n);
  for (auto& x : r) {
    const double m = rng_.uniform(0.5, 1.5);
    x = p->round(rng_.u01() < 0.5 ? -m : m);
  }
  prefill_.push_back(r);
  params_.push_back(p.get());
  return *p.release();
}

detail::Param& Checker::find(const std::string& name) { return *params_[index(name)]; }

std::size_t Checker::index(const std::string& name) {
  for (std::size_t k = 0; k < params_.size(); ++k)
    if (params_[k]->name == name) return k;
  die("no parameter named \"" + name + "\" was registered");
}

// Copy entry values into the kernel's buffers (with one entry overridden),
// then run the test's reset callbacks.
void Checker::load(const detail::Param* which, std::size_t idx, double value) {
  for (auto& p : params_)
    for (std::size_t i = 0; i < p->size(); ++i) p->set_work(i, p->base[i]);
  if (which) const_cast<detail::Param*>(which)->set_work(idx, value);
  for (auto& fn : resets_) fn();
}

// L = f's value + sum over inout params of seed . (values f leaves there)
double Checker::eval_L(const detail::Param* which, std::size_t idx, double value, double* fret) {
  load(which, idx, value);
  const double ret = primal_();
  if (fret) *fret = ret;
  double L = ret;
  for (auto& p : params_)
    if (p->inout)
      for (std::size_t i = 0; i < p->size(); ++i) L += p->seed[i] * p->work(i);
  return L;
}

double Checker::central(std::size_t k, std::size_t i, double h) {
  detail::Param& p = *params_[k];
  const double x = p.base[i];
  const double xp = p.perturbed(x, h), xm = p.perturbed(x, -h);
  const double Lp = eval_L(&p, i, xp, nullptr);
  const double Lm = eval_L(&p, i, xm, nullptr);
  return (Lp - Lm) / (xp - xm);
}

// Richardson-extrapolated central difference and its error estimate.
std::pair<double, double> Checker::fd(std::size_t k, std::size_t i, double factor) {
  detail::Param& p = *params_[k];
  const double h = factor * (p.float_fd ? FD_STEP_FLOAT : FD_STEP_DOUBLE) * std::max(1.0, std::fabs(p.base[i]));
  const double d1 = central(k, i, h);
  const double d2 = central(k, i, h / 2);
  return {d2 + (d2 - d1) / 3, std::fabs(d2 - d1)};
}

void Checker::fd_check(std::size_t k, const std::vector<double>& g) {
  detail::Param& p = *params_[k];
  const double rtol = p.float_fd ? FD_RTOL_FLOAT : FD_RTOL_DOUBLE;
  double worst = 0;
  std::size_t bad = 0, unreliable = 0;
  std::string detail_lines;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto r = fd(k, i, 1.0);
    const double scale = std::max({1.0, std::fabs(g[i]), std::fabs(r.first)});
    const double err = std::fabs(g[i] - r.first) / scale;
    const bool noisy = !(r.second <= (p.float_fd ? FD_UNRELIABLE_FLOAT : FD_UNRELIABLE_DOUBLE) * rtol * scale);
    if (!(err <= worst)) worst = err;
    if (noisy || !(err <= rtol)) {
      if (noisy) ++unreliable;
      if (bad++ < 6)
        detail_lines += fmt("\n      [%zu] x = %.17g  d_ = %.17g  fd = %.17g  err = %.2e  fd-error-estimate = %.2e%s", i,
                            p.base[i], g[i], r.first, err, r.second / scale, noisy ? "  (FD unreliable)" : "");
    }
  }
  std::string what = fmt("d_%s vs central FD of L%s (%zu entries): max rel err %.2e (tol %.0e)", p.name.c_str(),
                         p.inout ? " = f + seed.out, wrt entry values" : "", p.size(), worst, rtol);
  if (unreliable) what += fmt("; %zu entries with FD unreliable (inputs near a kink or too noisy)", unreliable);
  check(bad == 0, what + detail_lines);
}

// ---- forward mode (f_jvp)

// What one f_jvp call left: its value, every t_ buffer and every buffer
// the kernel sees.
struct Checker::JvpResult {
  double ret = 0;
  Table tan, work;
};

Checker::Table Checker::snapshot_work() const {
  Table w;
  for (auto& p : params_) {
    w.emplace_back(p->size());
    for (std::size_t i = 0; i < p->size(); ++i) w.back()[i] = p->work(i);
  }
  return w;
}

// The float rule (step, tolerances) holds for the whole direction as soon
// as one parameter uses it.
bool Checker::dir_float() const {
  for (auto& p : params_)
    if (p->float_fd) return true;
  return false;
}

// Values along the tangents: every registered parameter at x + s * t
// (rounded to its element type). Returns {L, f's value, then the values f
// leaves in each inout buffer, in registration order}.
std::vector<double> Checker::along(const Table& t, double s) {
  for (std::size_t k = 0; k < params_.size(); ++k) {
    detail::Param& p = *params_[k];
    for (std::size_t i = 0; i < p.size(); ++i) p.set_work(i, p.round(p.base[i] + s * t[k][i]));
  }
  for (auto& fn : resets_) fn();
  const double ret = primal_();
  std::vector<double> q{ret, ret};
  for (auto& p : params_)
    if (p->inout)
      for (std::size_t i = 0; i < p->size(); ++i) {
        q[0] += p->seed[i] * p->work(i);
        q.push_back(p->work(i));
      }
  return q;
}

// Richardson-extrapolated central differences along t of every quantity
// along() returns, each with its error estimate |D(h/2) - D(h)|. The step
// h = factor * FD step * max(1, largest |entry value|) is shared by all
// entries, so the direction is t itself; its denominator 2h ignores the
// rounding of x +- h t to the element type (below 1e-11 relative for
// double, a few 1e-6 for float, far inside the tolerances).
std::vector<std::pair<double, double>> Checker::fd_along(const Table& t, double factor) {
  double big = 1.0;
  for (auto& p : params_)
    for (double x : p->base) big = std::max(big, std::fabs(x));
  const double h = factor * (dir_float() ? FD_STEP_FLOAT : FD_STEP_DOUBLE) * big;
  auto D = [&](double hh) {
    const std::vector<double> qp = along(t, hh), qm = along(t, -hh);
    std::vector<double> d(qp.size());
    for (std::size_t j = 0; j < d.size(); ++j) d[j] = (qp[j] - qm[j]) / (2 * hh);
    return d;
  };
  const std::vector<double> d1 = D(h), d2 = D(h / 2);
  std::vector<std::pair<double, double>> r(d1.size());
  for (std::size_t j = 0; j < r.size(); ++j) r[j] = {d2[j] + (d2[j] - d1[j]) / 3, std::fabs(d2[j] - d1[j])};
  return r;
}

// Calls f_jvp with the entry values and the tangents t.
Checker::JvpResult Checker::call_jvp(const Table& t) {
  for (std::size_t k = 0; k < params_.size(); ++k)
    for (std::size_t i = 0; i < params_[k]->size(); ++i) params_[k]->set_tan(i, t[k][i]);
  load(nullptr, 0, 0);
  Tangents tg(&params_);
  JvpResult r;
  r.ret = jvp_(tg);
#ifdef CGP_TEST_FD_PROBE
  // Replace what the (stub) f_jvp produced by f's outputs and FD tangents at another step.
  const auto fdq = fd_along(t, dir_float() ? PROBE_FACTOR_FLOAT : PROBE_FACTOR_DOUBLE);
  r.ret = fdq[1].first;
  std::size_t j = 2;
  for (auto& p : params_)
    if (p->inout)
      for (std::size_t i = 0; i < p->size(); ++i) p->set_tan(i, fdq[j++].first);
  load(nullptr, 0, 0);
  primal_();
#endif
  r.work = snapshot_work();
  for (auto& p : params_) {
    r.tan.emplace_back(p->size());
    for (std::size_t i = 0; i < p->size(); ++i) r.tan.back()[i] = p->tan(i);
  }
  return r;
}

// The forward-mode checks, for two random directions (see the top comment).
void Checker::jvp_checks(const Table& G0) {
  if (jvp_returns_value_ != returns_value_)
    die("jvp()/jvp_void() does not match primal()/primal_void()");
  load(nullptr, 0, 0);
  primal_();
  const Table f_out = snapshot_work();  // what f leaves in every buffer
  const bool flt = dir_float();
#ifdef CGP_TEST_FD_PROBE
  const double dual_rtol = flt ? FD_RTOL_FLOAT : FD_RTOL_DOUBLE;  // d_ and t_ are both FDs
#else
  const double dual_rtol = flt ? ACC_RTOL_FLOAT : ACC_RTOL_DOUBLE;
#endif
  const double fd_rtol = flt ? FD_RTOL_FLOAT : FD_RTOL_DOUBLE;
  for (int dir = 1; dir <= 2; ++dir) {
    const std::string tag = fmt("jvp #%d: ", dir);
    Table t;
    for (auto& p : params_) {
      t.emplace_back(p->size());
      for (double& v : t.back()) v = p->round(tangent_rng_.uniform(-1.0, 1.0));
    }
    const JvpResult r = call_jvp(t);
    if (dir == 1)
      for (auto& p : params_)
        if (!p->t_touched) check(false, "jvp lambda passes t_" + p->name + " to f_jvp");

    // (iii) the primal side effects, (iv) const inputs and their tangents
    for (std::size_t k = 0; k < params_.size(); ++k) {
      const detail::Param& p = *params_[k];
      if (p.inout) {
        std::size_t bad = 0, first = 0;
        for (std::size_t i = 0; i < p.size(); ++i)
          if (!same_bits(r.work[k][i], f_out[k][i]) && bad++ == 0) first = i;
        std::string what = tag + "f_jvp leaves in " + p.name + " what f leaves there, bit for bit";
        if (bad)
          what += fmt("; %zu differ, first [%zu]: f_jvp %.17g, f %.17g", bad, first, r.work[k][first], f_out[k][first]);
        check(bad == 0, what);
      } else {
        bool same = true;
        for (std::size_t i = 0; i < p.size(); ++i)
          same = same && same_bits(r.work[k][i], p.base[i]) && (p.scalar || same_bits(r.tan[k][i], t[k][i]));
        check(same, tag + "f_jvp leaves const input " + p.name + (p.scalar ? "" : " and its tangent t_" + p.name) +
                        " unchanged");
      }
    }
    bool finite = std::isfinite(r.ret);
    for (std::size_t k = 0; k < params_.size(); ++k)
      if (params_[k]->inout)
        for (double v : r.tan[k]) finite = finite && std::isfinite(v);
    check(finite, tag + (returns_value_ ? "f_jvp's value and" : "the") + " out tangents are finite (no NaN/inf)");

    // (i) duality: dL along t, from f_jvp, against <d_, t> from f_grad's gradient.
    double lhs = r.ret, rhs = 0, mag = std::fabs(r.ret);
    for (std::size_t k = 0; k < params_.size(); ++k) {
      const detail::Param& p = *params_[k];
      for (std::size_t i = 0; i < p.size(); ++i) {
        if (p.inout) {
          lhs += p.seed[i] * r.tan[k][i];
          mag += std::fabs(p.seed[i] * r.tan[k][i]);
        }
        rhs += G0[k][i] * t[k][i];
        mag += std::fabs(G0[k][i] * t[k][i]);
      }
    }
    // As for check (c), at least 1: where the terms cancel to round-off
    // (a gradient that is zero analytically) their sum is no scale.
    const double derr = std::fabs(lhs - rhs) / std::max(1.0, mag);
    check(derr <= dual_rtol,
          tag + fmt("duality: f_jvp%s = %.17g vs <d_, t> from f_grad = %.17g (rel err %.2e of max(1, terms), tol %.0e)",
                    has_inout() ? " + seed.t_out" : "", lhs, rhs, derr, dual_rtol));

    // (ii) against a central FD of L along t
    const std::pair<double, double> fd = fd_along(t, 1.0)[0];
    const double scale = std::max({1.0, std::fabs(lhs), std::fabs(fd.first)});
    const double ferr = std::fabs(lhs - fd.first) / scale;
    const bool noisy = !(fd.second <= (flt ? FD_UNRELIABLE_FLOAT : FD_UNRELIABLE_DOUBLE) * fd_rtol * scale);
    std::string what = tag + fmt("dL along t vs central FD of L%s: jvp %.17g, fd %.17g, rel err %.2e (tol %.0e)",
                                 has_inout() ? " = f + seed.out" : "", lhs, fd.first, ferr, fd_rtol);
    if (noisy) what += fmt("; FD unreliable (error estimate %.2e): inputs near a kink or too noisy", fd.second / scale);
    check(!noisy && ferr <= fd_rtol, what);

    // (v) a second call gives the same bits
    const JvpResult r2 = call_jvp(t);
    bool same = same_bits(r2.ret, r.ret);
    std::string where = same ? "" : "; the value differs";
    for (std::size_t k = 0; k < params_.size(); ++k)
      for (std::size_t i = 0; i < params_[k]->size(); ++i)
        if (!same_bits(r2.tan[k][i], r.tan[k][i]) || !same_bits(r2.work[k][i], r.work[k][i])) {
          if (same) where = fmt("; first difference in %s[%zu] or t_%s[%zu]", params_[k]->name.c_str(), i,
                                params_[k]->name.c_str(), i);
          same = false;
        }
    check(same, tag + "second f_jvp call is bit-identical" + where);

    if (const char* dump = std::getenv("CGP_TEST_DUMP")) {
      if (FILE* out = std::fopen(dump, "a")) {
        std::uint64_t bits;
        std::memcpy(&bits, &r.ret, sizeof bits);
        std::fprintf(out, "%s: jvp#%d return %016llx\n", name_.c_str(), dir, static_cast<unsigned long long>(bits));
        for (std::size_t k = 0; k < params_.size(); ++k)
          if (params_[k]->inout)
            for (std::size_t i = 0; i < params_[k]->size(); ++i) {
              std::memcpy(&bits, &r.tan[k][i], sizeof bits);
              std::fprintf(out, "%s: jvp#%d t_%s[%zu] %016llx\n", name_.c_str(), dir, params_[k]->name.c_str(), i,
                           static_cast<unsigned long long>(bits));
            }
        std::fclose(out);
      }
    }
  }
}

bool Checker::has_inout() const {
  for (auto& p : params_)
    if (p->inout) return true;
  return false;
}

// Calls f_grad with zeroed (or, for check (c), randomly prefilled) buffers
// for in parameters and the seed for inout parameters.
double Checker::call_grad(bool prefill) {
  for (std::size_t k = 0; k < params_.size(); ++k) {
    detail::Param& p = *params_[k];
    for (std::size_t i = 0; i < p.size(); ++i)
      p.set_grad(i, p.inout ? p.seed[i] : (prefill ? prefill_[k][i] : 0.0));
  }
  load(nullptr, 0, 0);
  Grads d(&params_);
  double ret = grad_(d);
#ifdef CGP_TEST_FD_PROBE
  // Replace what the (stub) f_grad produced by a FD gradient at another step.
  if (probe_.empty()) {
    for (std::size_t k = 0; k < params_.size(); ++k) {
      std::vector<double> v(params_[k]->size());
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = fd(k, i, params_[k]->float_fd ? PROBE_FACTOR_FLOAT : PROBE_FACTOR_DOUBLE).first;
      probe_.push_back(v);
    }
  }
  for (std::size_t k = 0; k < params_.size(); ++k) {
    detail::Param& p = *params_[k];
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double start = p.inout ? 0.0 : (prefill ? prefill_[k][i] : 0.0);
      p.set_grad(i, start + probe_[k][i]);
    }
  }
  eval_L(nullptr, 0, 0, &ret);
  load(nullptr, 0, 0);
#endif
  return ret;
}

int finish() {
  const Tally& t = tally();
#ifdef CGP_TEST_FD_PROBE
  std::printf("NOTE: built with CGP_TEST_FD_PROBE: f_grad's results were replaced by finite differences\n");
#endif
  std::printf("SUMMARY: %d checks, %d failed\n", t.checks, t.failures);
  std::fflush(stdout);
  return t.failures == 0 && t.checks > 0 ? 0 : 1;
}

}  // namespace cgp_test
