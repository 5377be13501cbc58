// suite.h - the shared driver of the cgp-ad vs ADOL-C suite. A kernel's
// main (main_*.cpp) sets up its data and fills a suite::Kernel: the primal,
// cgp-ad's gradient under three plans (default, store-all, budget) and the
// same kernel taped by ADOL-C. One process runs one mode, so that its peak
// RSS belongs to one tool:
//   --mode=check   computes every gradient, compares them (relative 1e-8
//                  against ADOL-C; cgp-ad's plans must agree to the bit),
//                  checks a directional central finite difference, writes
//                  ADOL-C's gradient to --ref and exits 1 on a mismatch;
//   --mode=primal|cgp|store-all|budget|adolc|fd
//                  computes that gradient once, checks it against --ref
//                  (exit 1 on a mismatch, before any timing), then times it
//                  with Google Benchmark (median and minimum of repetitions,
//                  CPU time), the primal's repetitions interleaved with it.
// Either way it writes one JSON object of its own numbers (tape bytes, peak
// RSS, errors) to --stats; Google Benchmark writes the times
// (--benchmark_out=FILE --benchmark_out_format=json).
#pragma once
#include <adolc/adolc.h>
#include <benchmark/benchmark.h>
#include <cgp/runtime.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace suite {

// Deterministic uniform values in [-scale/2, scale/2) + shift.
inline void fill(std::vector<double> &v, double scale, unsigned seed, double shift = 0.0) {
  std::uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (double &x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = shift + scale * (static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5);
  }
}
inline std::uint64_t nextRandom(std::uint64_t &s) {
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  return s >> 33;
}

// One parameter array the gradient is taken with respect to.
struct Wrt {
  const char *name;
  std::vector<double> *values;
};

struct Kernel {
  std::string name;
  std::vector<Wrt> wrt;
  std::function<double()> primal;
  // cgp-ad's gradients: add the gradient into d[i] (zeroed by the caller),
  // one buffer per wrt array, and return the kernel's value.
  std::function<double(double *const *d)> cgpDefault, cgpStoreAll, cgpBudget;
  // The kernel on ADOL-C's adoubles, one array per wrt array.
  std::function<adouble(adouble *const *x)> adolc;
  // Whether the full central finite-difference gradient is cheap enough to
  // time (few parameters).
  bool fdTimed = false;
};

inline std::size_t currentRssKb() {
  std::ifstream f("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * (static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / 1024);
}
inline std::size_t peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::size_t>(u.ru_maxrss);
}

inline std::uint64_t hashBits(const std::vector<double> &g) {
  std::uint64_t h = 1469598103934665603ull;
  for (double d : g) {
    std::uint64_t u;
    std::memcpy(&u, &d, 8);
    h = (h ^ u) * 1099511628211ull;
  }
  return h;
}

// Largest relative difference of a from the reference b, per component:
// |a_i - b_i| / max(|a_i|, |b_i|, 1e-3 max_j |b_j|) (the floor keeps a
// component that is zero up to rounding from counting as a relative error).
inline double relError(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size())
    return INFINITY;
  double scale = 0;
  for (double x : b)
    scale = std::max(scale, std::fabs(x));
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double den = std::max({std::fabs(a[i]), std::fabs(b[i]), 1e-3 * scale, 1e-300});
    double e = std::fabs(a[i] - b[i]) / den;
    if (!(e <= worst)) // NaN counts as the worst
      worst = std::isnan(e) ? INFINITY : e;
  }
  return worst;
}

// The runner of one kernel: flat gradient vectors, one per tool.
class Runner {
public:
  explicit Runner(Kernel &k) : k_(k) {
    for (auto &w : k_.wrt) {
      offsets_.push_back(n_);
      n_ += w.values->size();
    }
  }
  std::size_t size() const { return n_; }

  // A cgp-ad gradient into g (zeroed here), returning the kernel's value.
  double cgp(const std::function<double(double *const *)> &f, std::vector<double> &g) {
    g.assign(n_, 0.0);
    std::vector<double *> d;
    for (std::size_t off : offsets_)
      d.push_back(g.data() + off);
    return f(d.data());
  }

  // ADOL-C: tape the kernel (keeping the Taylor values), then one reverse
  // sweep. The first call tapes with ADOL-C's default buffers to learn the
  // tape's size; later calls give buffers that hold the whole tape, so it
  // stays in memory (unless it would exceed the core limit).
  double adolc(std::vector<double> &g) {
    if (xa_.empty()) {
      xa_.resize(n_);
      for (std::size_t i = 0; i < k_.wrt.size(); ++i)
        xp_.push_back(xa_.data() + offsets_[i]);
    }
    if (sized_)
      trace_on(tag_, 1, bufOps_, bufLocs_, bufVals_, bufTay_);
    else
      trace_on(tag_, 1);
    for (std::size_t i = 0; i < k_.wrt.size(); ++i) {
      const std::vector<double> &v = *k_.wrt[i].values;
      for (std::size_t j = 0; j < v.size(); ++j)
        xa_[offsets_[i] + j] <<= v[j];
    }
    double value = 0;
    {
      adouble y = k_.adolc(xp_.data());
      y >>= value;
    }
    trace_off();
    g.assign(n_, 0.0);
    double seed = 1.0;
    fos_reverse(tag_, 1, static_cast<int>(n_), &seed, g.data());
    if (!sized_)
      sizeBuffers();
    return value;
  }

  // ADOL-C's own count of its tape: operations (1 byte), locations
  // (locint), values and Taylor values (double).
  void adolcTape(std::size_t &bytes, bool &inCore) {
    std::size_t st[STAT_SIZE];
    tapestats(tag_, st);
    bytes = st[NUM_OPERATIONS] * sizeof(unsigned char) + st[NUM_LOCATIONS] * sizeof(locint) +
            st[NUM_VALUES] * sizeof(double) + st[TAY_STACK_SIZE] * sizeof(double);
    inCore = !st[OP_FILE_ACCESS] && !st[LOC_FILE_ACCESS] && !st[VAL_FILE_ACCESS] &&
             st[TAY_STACK_SIZE] <= st[TAY_BUFFER_SIZE];
  }

  std::size_t adolcCoreLimit = std::size_t(12) << 30;

  std::vector<double> parameters() const {
    std::vector<double> x;
    for (auto &w : k_.wrt)
      x.insert(x.end(), w.values->begin(), w.values->end());
    return x;
  }
  void setParameters(const std::vector<double> &x) {
    for (std::size_t i = 0; i < k_.wrt.size(); ++i)
      std::copy(x.begin() + offsets_[i], x.begin() + offsets_[i] + k_.wrt[i].values->size(),
                k_.wrt[i].values->begin());
  }

private:
  void sizeBuffers() {
    std::size_t st[STAT_SIZE];
    tapestats(tag_, st);
    auto fit = [](std::size_t n) {
      return static_cast<unsigned>(std::min<std::size_t>(n + 4096, 4000000000u));
    };
    std::size_t bytes = st[NUM_OPERATIONS] + st[NUM_LOCATIONS] * sizeof(locint) +
                        (st[NUM_VALUES] + st[TAY_STACK_SIZE]) * sizeof(double);
    sized_ = true;
    if (bytes > adolcCoreLimit) { // leave ADOL-C its default buffers (a file tape)
      bufOps_ = OBUFSIZE, bufLocs_ = LBUFSIZE, bufVals_ = VBUFSIZE, bufTay_ = TBUFSIZE;
      return;
    }
    bufOps_ = fit(st[NUM_OPERATIONS]);
    bufLocs_ = fit(st[NUM_LOCATIONS]);
    bufVals_ = fit(st[NUM_VALUES]);
    bufTay_ = fit(st[TAY_STACK_SIZE]);
  }

  Kernel &k_;
  std::vector<std::size_t> offsets_;
  std::size_t n_ = 0;
  std::vector<adouble> xa_;
  std::vector<adouble *> xp_;
  short tag_ = 1;
  bool sized_ = false;
  unsigned bufOps_ = 0, bufLocs_ = 0, bufVals_ = 0, bufTay_ = 0;
};

struct Options {
  std::string mode = "check", ref, stats;
  int reps = 5;
  double rtol = 1e-8;
};

inline std::string arg(int &argc, char **argv, const char *key, const std::string &dflt) {
  std::string prefix = std::string("--") + key + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      std::string v = argv[i] + prefix.size();
      for (int j = i; j + 1 < argc; ++j)
        argv[j] = argv[j + 1];
      --argc;
      return v;
    }
  return dflt;
}

inline void writeRef(const std::string &path, const std::vector<double> &g) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(g.data(), sizeof(double), g.size(), f) != g.size()) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::fclose(f);
}
inline std::vector<double> readRef(const std::string &path, std::size_t n) {
  std::vector<double> g(n);
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f || std::fread(g.data(), sizeof(double), n, f) != n) {
    std::fprintf(stderr, "cannot read the reference gradient %s\n", path.c_str());
    std::exit(2);
  }
  std::fclose(f);
  return g;
}

inline void loud(const std::string &what) {
  std::fprintf(stderr,
               "\n************************************************************\n"
               "*** GRADIENT MISMATCH: %s\n"
               "************************************************************\n\n",
               what.c_str());
}

// The central finite-difference derivative of the primal along v, with one
// Richardson step: (4 D(h/2) - D(h)) / 3, error O(h^4).
inline double directionalFd(Kernel &k, Runner &r, const std::vector<double> &v, double h) {
  std::vector<double> x0 = r.parameters();
  auto at = [&](double t) {
    std::vector<double> x = x0;
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] += t * v[i];
    r.setParameters(x);
    return k.primal();
  };
  double d1 = (at(h) - at(-h)) / (2 * h);
  double d2 = (at(h / 2) - at(-h / 2)) / h;
  r.setParameters(x0);
  return (4 * d2 - d1) / 3;
}

// The full central finite-difference gradient (2n primal runs).
inline void fdGradient(Kernel &k, Runner &r, std::vector<double> &g) {
  std::vector<double> x = r.parameters();
  g.assign(x.size(), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    const double h = 1e-6 * std::max(1.0, std::fabs(keep));
    x[i] = keep + h;
    r.setParameters(x);
    double up = k.primal();
    x[i] = keep - h;
    r.setParameters(x);
    double down = k.primal();
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  r.setParameters(x);
}

inline int checkMode(Kernel &k, Runner &r, const Options &o, FILE *stats) {
  bool ok = true;
  std::vector<double> ga, gd, gs, gb;
  r.adolc(ga); // sizing run
  double va = r.adolc(ga);
  std::size_t adolcBytes = 0;
  bool inCore = false;
  r.adolcTape(adolcBytes, inCore);
  cgp::rt::resetStats();
  double vd = r.cgp(k.cgpDefault, gd);
  std::uint64_t peakDefault = cgp::rt::stats().peakTapeBytes;
  cgp::rt::resetStats();
  double vs = r.cgp(k.cgpStoreAll, gs);
  std::uint64_t peakStoreAll = cgp::rt::stats().peakTapeBytes;
  const std::uint64_t budget = peakStoreAll / 8;
  setenv("CGP_MEMORY_BUDGET", std::to_string(budget).c_str(), 1);
  cgp::rt::resetStats();
  double vb = r.cgp(k.cgpBudget, gb);
  cgp::rt::Stats sb = cgp::rt::stats();
  unsetenv("CGP_MEMORY_BUDGET");
  double vp = k.primal();

  struct Cmp {
    const char *name;
    const std::vector<double> *g;
    double value;
  } cmps[] = {{"cgp", &gd, vd}, {"store-all", &gs, vs}, {"budget", &gb, vb}};
  std::string errs;
  for (auto &c : cmps) {
    double e = relError(*c.g, ga);
    double ev = std::fabs(c.value - va) / std::max(std::fabs(va), 1e-300);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s\"%s\": %.3g", errs.empty() ? "" : ", ", c.name, e);
    errs += buf;
    std::fprintf(stderr, "%s: %s vs ADOL-C: gradient rel. error %.3g, value rel. error %.3g\n",
                 k.name.c_str(), c.name, e, ev);
    if (!(e <= o.rtol) || !(ev <= o.rtol)) {
      loud(k.name + ": cgp-ad (" + c.name + ") vs ADOL-C, gradient rel. error " +
           std::to_string(e) + ", value rel. error " + std::to_string(ev));
      ok = false;
    }
  }
  double ep = std::fabs(vp - va) / std::max(std::fabs(va), 1e-300);
  if (!(ep <= o.rtol)) {
    loud(k.name + ": primal value vs ADOL-C's value, rel. error " + std::to_string(ep));
    ok = false;
  }
  const bool sameBits = hashBits(gd) == hashBits(gs) && hashBits(gd) == hashBits(gb);
  if (!sameBits)
    std::fprintf(stderr, "*** %s: cgp-ad's plans do not give the same bits (interface.md 3)\n",
                 k.name.c_str());

  // Directional finite difference along a random +-1 direction.
  std::vector<double> v(r.size());
  std::uint64_t s = 12345;
  for (double &x : v)
    x = (nextRandom(s) & 1) ? 1.0 : -1.0;
  double dot = 0, mag = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    dot += ga[i] * v[i], mag += std::fabs(ga[i]);
  const double fd = directionalFd(k, r, v, 1e-4 / std::sqrt(static_cast<double>(v.size())));
  const double fdErr = std::fabs(fd - dot) / std::max(mag, 1e-300);
  std::fprintf(stderr, "%s: directional central FD %.12g vs ADOL-C %.12g (error %.3g of sum|g|)\n",
               k.name.c_str(), fd, dot, fdErr);
  if (!(fdErr <= 1e-6)) {
    loud(k.name + ": directional finite difference vs ADOL-C, error " + std::to_string(fdErr));
    ok = false;
  }
  double fdFullErr = -1;
  if (k.fdTimed) {
    std::vector<double> gf;
    fdGradient(k, r, gf);
    fdFullErr = relError(gf, ga);
    std::fprintf(stderr, "%s: full central FD vs ADOL-C: rel. error %.3g\n", k.name.c_str(),
                 fdFullErr);
    if (!(fdFullErr <= 1e-5)) {
      loud(k.name + ": central finite differences vs ADOL-C, rel. error " +
           std::to_string(fdFullErr));
      ok = false;
    }
  }
  if (!o.ref.empty())
    writeRef(o.ref, ga);
  std::fprintf(stats,
               "{\"kernel\": \"%s\", \"mode\": \"check\", \"ok\": %s, \"parameters\": %zu, "
               "\"value\": %.17g, \"rel_error_vs_adolc\": {%s}, \"same_bits\": %s, "
               "\"fd_direction_error\": %.3g, \"fd_full_error\": %.3g, "
               "\"peak_tape_default\": %llu, \"peak_tape_store_all\": %llu, "
               "\"budget\": %llu, \"peak_tape_budget\": %llu, \"budget_replays\": %llu, "
               "\"adolc_tape_bytes\": %zu, \"adolc_in_core\": %s}\n",
               k.name.c_str(), ok ? "true" : "false", r.size(), va, errs.c_str(),
               sameBits ? "true" : "false", fdErr, fdFullErr,
               static_cast<unsigned long long>(peakDefault),
               static_cast<unsigned long long>(peakStoreAll),
               static_cast<unsigned long long>(budget),
               static_cast<unsigned long long>(sb.peakTapeBytes),
               static_cast<unsigned long long>(sb.recomputedIterations), adolcBytes,
               inCore ? "true" : "false");
  return ok ? 0 : 1;
}

inline int timeMode(Kernel &k, Runner &r, const Options &o, FILE *stats) {
  const std::size_t baseRss = currentRssKb();
  std::vector<double> g;
  std::function<void()> once;
  std::uint64_t tapeBytes = 0, replays = 0;
  bool inCore = true;
  double err = 0;
  if (o.mode == "primal") {
    once = [&] { benchmark::DoNotOptimize(k.primal()); };
  } else {
    const std::vector<double> ref = readRef(o.ref, r.size());
    double tol = o.rtol;
    if (o.mode == "adolc") {
      r.adolc(g); // sizing run (default buffers), then a run in its own buffers
      r.adolc(g);
      std::size_t b = 0;
      r.adolcTape(b, inCore);
      tapeBytes = b;
      once = [&] { benchmark::DoNotOptimize(r.adolc(g)); };
    } else if (o.mode == "fd") {
      fdGradient(k, r, g);
      tol = 1e-5;
      once = [&] {
        fdGradient(k, r, g);
        benchmark::DoNotOptimize(g.data());
      };
    } else {
      const std::function<double(double *const *)> *f =
          o.mode == "cgp"         ? &k.cgpDefault
          : o.mode == "store-all" ? &k.cgpStoreAll
          : o.mode == "budget"    ? &k.cgpBudget
                                  : nullptr;
      if (!f) {
        std::fprintf(stderr, "unknown --mode=%s\n", o.mode.c_str());
        return 2;
      }
      r.cgp(*f, g); // warm the tape
      cgp::rt::resetStats();
      r.cgp(*f, g);
      cgp::rt::Stats s = cgp::rt::stats();
      tapeBytes = s.peakTapeBytes;
      replays = s.recomputedIterations;
      once = [&, f] { benchmark::DoNotOptimize(r.cgp(*f, g)); };
    }
    err = relError(g, ref);
    if (!(err <= tol)) {
      loud(k.name + " (" + o.mode + ") vs ADOL-C's gradient, rel. error " + std::to_string(err) +
           " > " + std::to_string(tol) + "; not timed");
      // JSON has no inf or nan: a gradient that is not finite says null.
      char errText[32] = "null";
      if (std::isfinite(err))
        std::snprintf(errText, sizeof errText, "%.3g", err);
      std::fprintf(stats, "{\"kernel\": \"%s\", \"mode\": \"%s\", \"ok\": false, "
                          "\"rel_error_vs_adolc\": %s}\n",
                   k.name.c_str(), o.mode.c_str(), errText);
      return 1;
    }
  }
  // The primal runs in every process too, its repetitions interleaved with
  // the gradient's (run.py passes --benchmark_enable_random_interleaving), so
  // that a gradient/primal ratio compares times taken under the same load.
  auto add = [&](const std::string &mode, std::function<void()> body) {
    benchmark::RegisterBenchmark((k.name + "/" + mode).c_str(),
                                 [body](benchmark::State &st) {
                                   for (auto _ : st)
                                     body();
                                 })
        ->Repetitions(o.reps)
        ->ComputeStatistics("min",
                            [](const std::vector<double> &v) {
                              return *std::min_element(v.begin(), v.end());
                            })
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  };
  add(o.mode, once);
  if (o.mode != "primal")
    add("primal", [&] { benchmark::DoNotOptimize(k.primal()); });
  benchmark::RunSpecifiedBenchmarks();
  std::fprintf(stats,
               "{\"kernel\": \"%s\", \"mode\": \"%s\", \"ok\": true, \"rel_error_vs_adolc\": %.3g, "
               "\"tape_bytes\": %llu, \"replays\": %llu, \"adolc_in_core\": %s, "
               "\"base_rss_kb\": %zu, \"peak_rss_kb\": %zu}\n",
               k.name.c_str(), o.mode.c_str(), err, static_cast<unsigned long long>(tapeBytes),
               static_cast<unsigned long long>(replays), inCore ? "true" : "false", baseRss,
               peakRssKb());
  return 0;
}

// The main of every kernel program.
inline int run(Kernel &k, int argc, char **argv, const Options &o) {
  Runner r(k);
  if (const char *lim = std::getenv("SUITE_ADOLC_CORE_LIMIT_GB"))
    r.adolcCoreLimit = static_cast<std::size_t>(std::atof(lim) * (1 << 30));
  FILE *stats = o.stats.empty() ? stdout : std::fopen(o.stats.c_str(), "w");
  if (!stats) {
    std::fprintf(stderr, "cannot write %s\n", o.stats.c_str());
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  int rc = o.mode == "check" ? checkMode(k, r, o, stats) : timeMode(k, r, o, stats);
  if (stats != stdout)
    std::fclose(stats);
  return rc;
}

// Reads the suite's own options (the rest goes to Google Benchmark).
inline Options options(int &argc, char **argv) {
  Options o;
  o.mode = arg(argc, argv, "mode", "check");
  o.ref = arg(argc, argv, "ref", "");
  o.stats = arg(argc, argv, "stats", "");
  o.reps = std::atoi(arg(argc, argv, "reps", "5").c_str());
  o.rtol = std::atof(arg(argc, argv, "rtol", "1e-8").c_str());
  return o;
}

} // namespace suite
