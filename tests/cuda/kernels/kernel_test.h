// kernel_test.h - what the kernel-shape tests (tests/cuda/kernels/*.cu) share: the
// program's modes, test data whose sums are exact, and the launch counts that the host
// emulation of CUDA keeps (bench/cuda reads them).
//
// Each test program runs in one of these modes (its first argument):
//   (none) or PATH   the checks; with PATH, the gradient's bits are written there
//                    (dump_bits), for the RUN lines to compare strategies with cmp
//   --races          only the gradient launches, two into the same adjoints (for
//                    ThreadSanitizer)
//   --time           the checks, then TIME lines (bench/cuda, on a GPU)
//   --counts         COUNTS lines (bench/cuda): per kernel launched, the emulation's counts
//                    of the primal's and of the gradient's launch
#ifndef CGP_KERNEL_TEST_H
#define CGP_KERNEL_TEST_H

#include <cuda_check.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace kernel_test {

enum class Mode { Check, Races, Time, Counts };

struct Options {
  Mode mode = Mode::Check;
  const char *dump = nullptr; // where the checks write the gradient's bits
};

inline Options parse(int argc, char **argv) {
  Options o;
  const char *arg = argc > 1 ? argv[1] : "";
  if (std::strcmp(arg, "--races") == 0)
    o.mode = Mode::Races;
  else if (std::strcmp(arg, "--time") == 0)
    o.mode = Mode::Time;
  else if (std::strcmp(arg, "--counts") == 0)
    o.mode = Mode::Counts;
  else if (arg[0] != '\0')
    o.dump = arg;
  return o;
}

using Vec = std::vector<double>;

/// n values uniform in [lo, hi).
inline Vec uniform(std::mt19937 &rng, std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Vec v(n);
  for (double &e : v)
    e = u(rng);
  return v;
}

/// n values k / 16 with k a nonzero integer in [-16 * range, 16 * range]. Products of two
/// such values, and sums of a few thousand of them, are exact in double (and sums of a few
/// dozen in float), so an adjoint that threads add up with atomics has the same bits in
/// whatever order the additions come: runs and strategies can be compared bit for bit.
inline Vec dyadic(std::mt19937 &rng, std::size_t n, int range = 1) {
  std::uniform_int_distribution<int> k(-16 * range, 16 * range - 1);
  Vec v(n);
  for (double &e : v) {
    int draw = k(rng);
    e = (draw >= 0 ? draw + 1 : draw) / 16.0;
  }
  return v;
}

/// A device buffer's contents as doubles (exact for float buffers), to check and dump.
template <class T> Vec download(const cgp_cuda_test::DeviceArray<T> &a) {
  std::vector<T> v = a.download();
  return Vec(v.begin(), v.end());
}

/// The values of v converted to T, for a buffer of T.
template <class T> std::vector<T> as(const Vec &v) { return std::vector<T>(v.begin(), v.end()); }

/// a and b hold the same bits, element by element.
inline bool same_bits(const Vec &a, const Vec &b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

/// Checks a gradient against central finite differences of `loss` (Vec -> double) at `at`:
/// entry by entry at the indices `entries`, and along `direction` (sum_k grad[k] dir[k]
/// against d/de loss(at + e dir)), which covers every entry with two launches of the primal
/// per difference. Launches under the emulation are slow; this keeps their number small.
template <class Loss>
void check_gradient(const std::string &name, const Vec &at, const Vec &grad,
                    const std::vector<std::size_t> &entries, const Vec &direction, Loss loss,
                    double h, double rtol, double atol) {
  Vec got, fd;
  for (std::size_t k : entries) {
    got.push_back(grad.at(k));
    fd.push_back(cgp_cuda_test::central_difference(loss, at, k, h));
  }
  cgp_cuda_test::check_close(name + " against finite differences", got, fd, rtol, atol);
  double along = 0;
  for (std::size_t k = 0; k < at.size(); ++k)
    along += grad[k] * direction.at(k);
  const double fdAlong = cgp_cuda_test::central_difference(
      [&](const Vec &e) {
        Vec moved = at;
        for (std::size_t k = 0; k < at.size(); ++k)
          moved[k] += e[0] * direction[k];
        return loss(moved);
      },
      Vec{0.0}, 0, h);
  cgp_cuda_test::check_close(name + " along a random direction against finite differences",
                             along, fdAlong, rtol, atol);
}

/// Checks that `twice`, the adjoint after two gradient launches into the same zeroed
/// buffer, is 2 * `once`, the adjoint after one: to the last bit when `exact` (sums that do
/// not depend on the order of their terms), else within rounding.
inline void check_accumulates(const std::string &name, const Vec &once, const Vec &twice,
                              bool exact) {
  Vec doubled(once.size());
  for (std::size_t k = 0; k < once.size(); ++k)
    doubled[k] = 2 * once[k];
  if (exact)
    cgp_cuda_test::check(name + ": two launches add up to twice one (the same bits)",
                         same_bits(twice, doubled));
  else
    cgp_cuda_test::check_close(name + ": two launches add up to twice one", twice, doubled,
                               1e-13, 1e-15);
}

/// Checks that a second run of the gradient gives the same values: to the last bit when
/// `exact`, else within rounding (an adjoint summed with atomics in the order the threads
/// come).
inline void check_repeats(const std::string &name, const Vec &first, const Vec &second,
                          bool exact) {
  if (exact)
    cgp_cuda_test::check(name + ": a second run gives the same bits", same_bits(first, second));
  else
    cgp_cuda_test::check_close(name + ": a second run gives the same values", second, first,
                               1e-13, 1e-15);
}

/// --counts: one line for the launch that finished last, as bench/cuda reads it:
/// COUNTS <kernel> <threads> <atomics> <global atomics> <shared atomics> <shuffles> <votes>
/// <barriers>, totals over the launch. Only the emulation counts; a GPU build says so.
inline void print_counts(const char *kernel) {
#ifdef CGP_CUDA_EMULATION
  const cgp_emu::LaunchCounts c = cgp_emu::last_launch_counts();
  std::printf("COUNTS %s %llu %llu %llu %llu %llu %llu %llu\n", kernel, c.threads, c.atomics,
              c.global_atomics, c.shared_atomics, c.shuffles, c.votes, c.barriers);
  std::fflush(stdout); // kept if a later launch aborts (the emulation's reports)
#else
  std::printf("COUNTS %s: counted only under the host emulation of CUDA\n", kernel);
#endif
}

} // namespace kernel_test

#endif // CGP_KERNEL_TEST_H
