// check.h - the checker every end-to-end numeric test (tests/e2e/*.cpp) uses.
//
// Namespace cgp_test. A test registers the differentiated (wrt) parameters
// of a kernel f with a Checker, gives it two lambdas (one that calls f, one
// that calls the generated f_grad) and calls run(). The checker owns the
// buffers the lambdas pass to the kernel, so that it can reset and perturb
// them; data that is not differentiated stays in the test. This header
// declares the checker; its definitions are in check.cpp, which lit compiles
// once per set of flags and links into every test (%harness and %san-harness
// in tests/lit.cfg.py), so that a test compiles only its own code.
//
//   cgp_test::Checker c("rnn T=7");
//   std::vector<double>& W  = c.in("W", n * n, -0.5, 0.5);   // const double* W
//   double& s               = c.scalar("s", 0.7);            // double s (by value)
//   std::vector<double>& h  = c.inout("h", n, -1.0, 1.0);    // double* h (in/out)
//   std::vector<double> xs  = c.random_vector(T * n, -1, 1); // inactive data
//   c.primal([&] { return f(W.data(), s, h.data(), xs.data(), T, n); });
//   c.grad([&](cgp_test::Grads& d) {
//     return f_grad(W.data(), s, h.data(), xs.data(), T, n,
//                   d.f64("W"), d.f64("s"), d.f64("h"));
//   });
//   c.jvp([&](cgp_test::Tangents& t) {   // optional: the kernel is also CGP_JVP(W, s, h)
//     return f_jvp(W.data(), s, h.data(), xs.data(), T, n,
//                  t.f64("W"), t.s64("s"), t.f64("h"));
//   });
//   c.run();                       // prints one line per check
//   ...
//   return cgp_test::finish();     // summary; nonzero exit status on any failure
//
// Registration (element type T = double by default, or float):
//   in<T>(name, n, lo, hi) / in<T>(name, values): a const pointer or array param.
//   scalar<T>(name, value): a floating scalar passed by value (d_ is a T*).
//   inout<T>(name, n, lo, hi) / inout<T>(name, values): a NON-const pointer or
//     array param (interface.md section 3: in and out). The checker gives it a
//     random seed (or seed(name, values)), passes the seed in its d_ buffer,
//     and the loss it differentiates becomes
//         L = f's return value (0 for void f) + sum_i seed_i * out_i
//     where out_i are the values f leaves in the buffer. A non-const pointer
//     that f only reads is registered with inout() too: its d_ must then come
//     back as seed + gradient, which is what the contract implies.
//   The returned reference is the buffer the lambdas pass to the kernel; a test
//   may edit values through it until run(), which takes them as entry values.
//   on_reset(fn): called before every call of f or f_grad, after the checker
//     has restored its own buffers; for inactive buffers that f writes.
//   Before every call of f or f_grad the checker copies the entry values of
//   all registered parameters into the buffers the lambdas see, so the
//   (unspecified) primal contents f_grad leaves behind never leak into a
//   later call, and tests never look at them.
//
// What run() checks (one output line per check and parameter):
//   - the primal is deterministic (two calls, same bits): guards the test itself;
//   - (a) f_grad's return value equals f's, bit for bit, same inputs
//     (value kernels only);
//   - every d_ entry is finite (no NaN/inf);
//   - const (in) parameters are left unchanged by f_grad;
//   - (b)/(e) every d_ entry agrees with a central finite difference of L
//     with respect to that entry's value on entry (for inout parameters this
//     checks the seed semantics: d_ on exit = adjoint of the entry values);
//   - (c) += accumulation: d_ buffers of in/scalar parameters prefilled with
//     random r; after the call (d - r) must match the zero-prefill gradient to
//     ACC_RTOL relative (inout buffers keep their seed and must come back as in
//     the reference call); the return value must again equal f's;
//   - (d) a second call with zeroed buffers gives bit-identical gradients and
//     return value (tape reuse);
//   - expect_grad(name, values, rtol): optional analytic values.
//
// Forward mode (only when the test sets c.jvp(fn) or, for void f,
// c.jvp_void(fn)): fn gets a Tangents& t and calls f_jvp with, for every
// registered parameter, in parameter order:
//   t.f64(name) / t.f32(name): the t_ buffer of a pointer or array parameter
//     (in: the tangent of its values, f_jvp must leave it alone; inout: the
//     tangent of the entry values, which f_jvp replaces by the tangent of the
//     values f leaves there);
//   t.s64(name) / t.s32(name): the tangent VALUE of a scalar parameter.
// Every registered parameter takes part (the CGP_JVP list is the CGP_GRAD
// list the checker was built for). For 2 random directions t (every entry
// uniform in [-1, 1], inout entry tangents included; drawn from their own
// generator, so the test's other random data stays as without jvp) run()
// then checks, after the checks above, one line each, tagged "jvp #1/#2":
//   - (iii) f_jvp leaves in each inout buffer exactly (bit for bit) what f
//     leaves there (the primal side effects);
//   - (iv) const (in) inputs and their t_ buffers are unchanged;
//   - f_jvp's value and the out tangents are finite;
//   - (i) duality with f_grad's reference gradient G (same seeds):
//         jvp = f_jvp's value + sum_i seed_i * t_out_i  ==  sum <G, t>
//     to ACC_RTOL relative to max(1, sum of the magnitudes of all the terms);
//   - (ii) jvp agrees with a Richardson central FD of L(x + e t) in e (all
//     entries moved at once, one step h = FD step * max(1, largest |x|)),
//     same tolerances and "FD unreliable" rule as below;
//   - (v) a second f_jvp call gives the same bits (value, t_ and outputs).
// The float rule (step, tolerances) applies to a direction as soon as one
// parameter uses it. The dump (CGP_TEST_DUMP) gets each direction's f_jvp
// value and out tangents too, as "jvp#N return" and "jvp#N t_<name>[i]".
//
// Finite differences: Richardson-extrapolated central differences,
//   D(h) = (L(x+h) - L(x-h)) / ((x+h) - (x-h))   (the denominator is the exact
//   difference of the two perturbed values as stored in the element type),
//   fd = D(h/2) + (D(h/2) - D(h)) / 3, error estimate |D(h/2) - D(h)|.
//   double: h = 1e-5 * max(1, |x|), pass if |g - fd| <= 1e-6 * max(1, |g|, |fd|).
//   float kernels: the perturbed entry is rounded to float and f runs in its
//     own type, so L carries float rounding noise (~1e-7 relative); the step
//     is h = 2e-2 * max(1, |x|) and the tolerance 2e-3 * max(1, |g|, |fd|).
//     A double parameter whose value flows through a double->float cast sees
//     the same noise: call float_precision() to use the float rule for every
//     parameter of that checker.
//   If the error estimate itself exceeds half the tolerance (double) or ten
//   times it (float: the estimate is D(h)'s truncation error, large with the
//   float step, not the extrapolated value's) the FD is not a valid
//   reference (the step crosses a branch boundary or L is too noisy);
//   that counts as a failure of the test's inputs ("FD unreliable"), so no
//   check passes vacuously.
//   ACC_RTOL: 1e-10 (double), 1e-4 (float), relative to max(1, |r|, |g|).
//   Margins seen with a correct gradient (cgp-ad and hand-written ones): FD
//   errors up to ~5e-10 (double) and ~2e-5 (float); a gradient off by 1e-5
//   relative (double) or 1% (float) fails.
//
// Maintenance mode: with check.cpp compiled with -DCGP_TEST_FD_PROBE the
// checker never uses the gradients the grad lambda produces. It still calls
// the lambda (so stub f_grad definitions must exist) and then replaces the d_
// buffers by a finite difference with a step 8x larger (double) / 4x smaller
// (float), then runs all checks. That validates a test's inputs (FD stable
// across step sizes, no branch boundary nearby) and its primal under the
// sanitizers before cgp-ad exists; it proves nothing about cgp-ad.
// (expect_grad tolerances are raised to the FD tolerance in that mode.)
// Likewise it replaces f_jvp's value and out tangents by FDs along t, and the
// outputs by f's, after calling the jvp lambda (so stub f_jvp definitions
// must exist too); the duality check then uses the FD tolerance.
// lit never builds this mode. By hand, compile check.cpp with the macro
// together with the test, the macro on both (a test built with it does not
// link against a check.cpp built without it):
//   c++ -std=c++17 -O2 -DCGP_TEST_FD_PROBE -Itests/e2e/harness
//       -I<prefix>/include tests/e2e/harness/check.cpp <out>/t.cgp.cpp
//       -o probe -L<prefix>/lib -lcgp_rt && ./probe
// (with the flags of %sanitize in tests/lit.cfg.py for the sanitizers), where
// <out>/t.cgp.cpp is cgp-ad's output for the test t.cpp or, before cgp-ad
// handles t.cpp, a copy of t.cpp with stub f_grad/f_jvp definitions above
// its main.
#ifndef CGP_TEST_CHECK_H
#define CGP_TEST_CHECK_H

// Every test parses this header (up to six times), so it includes only what
// its declarations need: no <functional>, <memory> or <random> (Callback,
// the owning pointers and Rng's engine below stand in for them).
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cgp_test {

// ---------------------------------------------------------------- tolerances
constexpr double FD_STEP_DOUBLE = 1e-5;
constexpr double FD_RTOL_DOUBLE = 1e-6;
constexpr double FD_STEP_FLOAT = 2e-2;
constexpr double FD_RTOL_FLOAT = 2e-3;
// "FD unreliable" when the error estimate |D(h/2) - D(h)| exceeds this
// fraction of the tolerance. It measures D(h)'s truncation, far above the
// extrapolated value's; float's large step needs the larger factor.
constexpr double FD_UNRELIABLE_DOUBLE = 0.5;
constexpr double FD_UNRELIABLE_FLOAT = 10.0;
constexpr double ACC_RTOL_DOUBLE = 1e-10;
constexpr double ACC_RTOL_FLOAT = 1e-4;

// ---------------------------------------------------------------- tally
struct Tally {
  int checks = 0;
  int failures = 0;
};
// The checks and failures of the whole program (every Checker adds to it).
Tally& tally();

bool same_bits(double a, double b);

// Deterministic on every platform: mt19937's output sequence is fixed by the
// standard, the conversion to [0, 1) is ours (std distributions are not).
class Rng {
 public:
  explicit Rng(unsigned seed);
  Rng(const Rng& other);
  Rng& operator=(const Rng& other);
  ~Rng();
  double u01();
  double uniform(double lo, double hi);
  int integer(int lo, int hi);  // inclusive

 private:
  struct Engine;    // std::mt19937 (check.cpp)
  Engine* engine_;  // owned
};

namespace detail {
struct Param;  // one registered parameter: its buffers (check.cpp)

#ifdef CGP_TEST_FD_PROBE
// Probe mode is chosen where check.cpp is compiled. This function exists only
// in an object of check.cpp built with -DCGP_TEST_FD_PROBE, so a test built
// with the macro does not link against a checker that uses f_grad's results.
bool probe_mode_built();
static const bool probe_mode_linked = probe_mode_built();
#endif
}  // namespace detail

// A callable the checker keeps (the test's lambdas): what std::function
// would do, for the few signatures the checker needs. Move-only; empty until
// assigned.
template <class Signature>
class Callback;
template <class R, class... A>
class Callback<R(A...)> {
 public:
  Callback() = default;
  template <class F, class = typename std::enable_if<!std::is_same<typename std::decay<F>::type, Callback>::value>::type>
  Callback(F fn) : fn_(new Holder<F>(std::move(fn))) {}
  Callback(Callback&& other) noexcept : fn_(other.fn_) { other.fn_ = nullptr; }
  Callback& operator=(Callback&& other) noexcept {
    std::swap(fn_, other.fn_);
    return *this;
  }
  ~Callback() { delete fn_; }
  explicit operator bool() const { return fn_ != nullptr; }
  R operator()(A... a) const { return fn_->call(a...); }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual R call(A... a) = 0;
  };
  template <class F>
  struct Holder final : Base {
    explicit Holder(F f) : fn(std::move(f)) {}
    R call(A... a) override {
      if constexpr (std::is_void<R>::value)
        fn(a...);  // as std::function<void(...)>, drop what fn returns
      else
        return fn(a...);
    }
    F fn;
  };
  Base* fn_ = nullptr;
};

// The d_ buffers handed to the grad lambda: d.f64("W") for a double (or
// double-element) parameter, d.f32("x") for a float one. The accessor's type
// must match the registration; a mismatch or an unknown name stops the test.
class Grads {
 public:
  explicit Grads(std::vector<detail::Param*>* ps) : ps_(ps) {}
  double* f64(const std::string& name);
  float* f32(const std::string& name);

 private:
  detail::Param& find(const std::string& name);
  std::vector<detail::Param*>* ps_;
};

// The tangents handed to the jvp lambda. For a pointer or array parameter
// (registered with in() or inout()), t.f64("W") / t.f32("W") is its t_
// buffer: the tangent of the entry values (for inout, f_jvp overwrites it
// with the tangent of the values f leaves). For a scalar parameter
// (registered with scalar()), t.s64("s") / t.s32("s") is the tangent VALUE
// that f_jvp takes by value. A wrong accessor (pointer vs scalar, double vs
// float) or an unknown name stops the test.
class Tangents {
 public:
  explicit Tangents(std::vector<detail::Param*>* ps) : ps_(ps) {}
  double* f64(const std::string& name);
  float* f32(const std::string& name);
  double s64(const std::string& name);
  float s32(const std::string& name);

 private:
  detail::Param* buffer(const std::string& name, bool want_float, const char* acc);
  detail::Param* value(const std::string& name, bool want_float, const char* acc);
  detail::Param& find(const std::string& name, bool want_float, const char* acc);
  std::vector<detail::Param*>* ps_;
};

class Checker {
 public:
  explicit Checker(std::string name, unsigned seed = 20240611u);
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // ---- random data for the test's own (inactive) inputs
  double uniform(double lo, double hi);
  int integer(int lo, int hi);
  std::vector<double> random_vector(std::size_t n, double lo, double hi);
  std::vector<float> random_vector_f(std::size_t n, double lo, double hi);

  // ---- registration of wrt parameters
  template <class T = double>
  std::vector<T>& in(const std::string& name, std::size_t n, double lo, double hi) {
    return add<T>(name, draw(n, lo, hi), false);
  }
  template <class T = double>
  std::vector<T>& in(const std::string& name, const std::vector<double>& values) {
    return add<T>(name, values, false);
  }
  template <class T = double>
  T& scalar(const std::string& name, double value) {
    return add<T>(name, std::vector<double>{value}, false, true)[0];
  }
  template <class T = double>
  std::vector<T>& inout(const std::string& name, std::size_t n, double lo, double hi) {
    return add<T>(name, draw(n, lo, hi), true);
  }
  template <class T = double>
  std::vector<T>& inout(const std::string& name, const std::vector<double>& values) {
    return add<T>(name, values, true);
  }
  // Replace the random seed of an inout parameter.
  void seed(const std::string& name, const std::vector<double>& values);
  void on_reset(Callback<void()> fn);
  // Use the float FD rule (step and tolerance) for every parameter.
  void float_precision();
  // Analytic values the gradient must match (in addition to FD).
  void expect_grad(const std::string& name, const std::vector<double>& values, double rtol);

  // ---- the kernel
  // Value kernels: primal returns f's value; grad calls f_grad and returns its value.
  void primal(Callback<double()> fn);
  void grad(Callback<double(Grads&)> fn);
  // void kernels.
  void primal_void(Callback<void()> fn);
  void grad_void(Callback<void(Grads&)> fn);
  // Optional forward mode: jvp calls f_jvp and returns its value (the
  // directional derivative); jvp_void for void kernels.
  void jvp(Callback<double(Tangents&)> fn);
  void jvp_void(Callback<void(Tangents&)> fn);

  // Runs every check; returns the number of failed checks of this checker.
  int run();

 private:
  struct Expect {
    std::string name;
    std::vector<double> values;
    double rtol;
  };
  using Table = std::vector<std::vector<double>>;  // one row per registered parameter
  struct JvpResult;                                // what one f_jvp call left (check.cpp)

  std::vector<double> draw(std::size_t n, double lo, double hi);

  // Registration by element type: the templates above come here, and the
  // work lies in the two non-template functions it calls.
  template <class T>
  std::vector<T>& add(const std::string& name, const std::vector<double>& values, bool inout, bool scalar = false) {
    static_assert(std::is_same<T, double>::value || std::is_same<T, float>::value, "double or float");
    if constexpr (std::is_same<T, float>::value)
      return add_float(name, values, inout, scalar);
    else
      return add_double(name, values, inout, scalar);
  }
  std::vector<double>& add_double(const std::string& name, const std::vector<double>& values, bool inout, bool scalar);
  std::vector<float>& add_float(const std::string& name, const std::vector<double>& values, bool inout, bool scalar);
  detail::Param& add_param(const std::string& name, const std::vector<double>& values, bool is_float, bool inout,
                           bool scalar);

  detail::Param& find(const std::string& name);
  std::size_t index(const std::string& name);

  // ---- the reverse-mode checks and their finite differences
  void load(const detail::Param* which, std::size_t idx, double value);
  double eval_L(const detail::Param* which, std::size_t idx, double value, double* fret);
  double central(std::size_t k, std::size_t i, double h);
  std::pair<double, double> fd(std::size_t k, std::size_t i, double factor);
  void fd_check(std::size_t k, const std::vector<double>& g);
  double call_grad(bool prefill);

  // ---- forward mode (f_jvp)
  Table snapshot_work() const;
  bool dir_float() const;
  std::vector<double> along(const Table& t, double s);
  std::vector<std::pair<double, double>> fd_along(const Table& t, double factor);
  JvpResult call_jvp(const Table& t);
  void jvp_checks(const Table& G0);
  bool has_inout() const;

  std::string name_;
  Rng rng_;
  bool float_all_ = false;
  bool returns_value_ = true;
  std::vector<detail::Param*> params_;  // owned: ~Checker deletes them
  std::vector<std::vector<double>> prefill_;
  std::vector<Callback<void()>> resets_;
  std::vector<Expect> expects_;
  Callback<double()> primal_;
  Callback<double(Grads&)> grad_;
  Callback<double(Tangents&)> jvp_;
  bool jvp_returns_value_ = true;
  Rng tangent_rng_;  // the jvp directions; apart from rng_ so tests' own draws stay as they were
  // The FD gradient that replaces f_grad's in probe mode. Always declared, so
  // that the class has one layout whether or not check.cpp was built for probe mode.
  std::vector<std::vector<double>> probe_;
};

// Prints the summary; the value to return from main (0 iff every check passed).
int finish();

}  // namespace cgp_test

#endif  // CGP_TEST_CHECK_H
