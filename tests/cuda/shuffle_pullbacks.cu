// The pullbacks of warp shuffles in include/cgp/device.h (one shuffle the
// other way for __shfl_up/down/xor_sync, a warp sum for a broadcast) give
// every lane the same bits as the general pullback, shuffleAdjoint (two
// shuffles per lane, the adjoints of the lanes that read it summed in lane
// order), for every delta, lane mask and segment width, with whole and
// partial masks. Run under the host emulation of CUDA and compiled with nvcc.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %cxx %cxxflags %cuda-emulation %s -o %t/emu -pthread %ldflags
// RUN: %t/emu
// RUN: cp %s %t/shuffle_pullbacks.cu && %nvcc-compile %t/shuffle_pullbacks.cu
#include <cgp/device.h>
#include <cuda_check.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

using cgp_cuda_test::DeviceArray;

namespace {

enum Kind { Up, Down, Xor, Broadcast };

// Case c: kind, argument (a delta, a lane mask or a source lane; the
// broadcast's last one is every lane's own), width and mask.
struct Case {
  int kind, arg, width;
  unsigned mask;
};
constexpr int kCases = 4 * 6 * 6 * 3;
__host__ __device__ inline Case caseOf(int c) {
  const unsigned masks[3] = {0xffffffffu, 0x0000ffffu, 0xf0f0f0f0u};
  return Case{c / 108, c / 18 % 6, 1 << (c / 3 % 6), masks[c % 3]};
}

// One warp; in case c the lanes of its mask call the pullback of its kind.
// Each lane writes the bits of the fast pullback and of shuffleAdjoint (0
// where it did not run).
__global__ void pullbacks(const double *d, unsigned long long *fast, unsigned long long *general) {
  const unsigned self = threadIdx.x;
  const unsigned deltas[6] = {0, 1, 3, 8, 17, 40};
  const int laneMasks[6] = {0, 1, 2, 5, 16, 33};
  for (int c = 0; c < kCases; ++c) {
    const Case k = caseOf(c);
    const unsigned mask = k.mask;
    if (!((mask >> self) & 1u))
      continue;
    const int kind = k.kind, arg = k.arg, width = k.width;
    const unsigned w = static_cast<unsigned>(width);
    const double seed = d[self] * (1 + c % 7);
    double got = 0, want = 0;
    unsigned source = self;
    switch (kind) {
    case Up: {
      const unsigned delta = deltas[arg];
      cgp::dev::shflUpPullback(mask, 0.0, delta, width, seed, &got);
      source = self % w >= delta ? self - delta : self;
      break;
    }
    case Down: {
      const unsigned delta = deltas[arg];
      cgp::dev::shflDownPullback(mask, 0.0, delta, width, seed, &got);
      source = self % w + delta < w ? self + delta : self;
      break;
    }
    case Xor: {
      const int laneMask = laneMasks[arg];
      cgp::dev::shflXorPullback(mask, 0.0, laneMask, width, seed, &got);
      const unsigned other = self ^ static_cast<unsigned>(laneMask);
      source = other > 31 || other / w > self / w ? self : other;
      break;
    }
    default: {
      const int lane = arg == 5 ? static_cast<int>(self) : arg * 7; // a shuffle, or a broadcast
      cgp::dev::shflPullback(mask, 0.0, lane, width, seed, &got);
      source = self - self % w + static_cast<unsigned>(lane) % w;
      break;
    }
    }
    // In a partial mask, a lane whose source does not take part reads its
    // own value (the emulation's choice; CUDA leaves it undefined): the
    // general pullback is told so.
    if (!((mask >> source) & 1u))
      source = self;
    want = cgp::dev::shuffleAdjoint(mask, seed, source);
    std::uint64_t a = 0, b = 0;
    memcpy(&a, &got, sizeof a);
    memcpy(&b, &want, sizeof b);
    fast[c * 32 + self] = a;
    general[c * 32 + self] = b;
  }
}

} // namespace

int main() {
  std::vector<double> d(32);
  for (int k = 0; k < 32; ++k)
    d[k] = 0.1 + 0.37 * k - 0.011 * k * k; // distinct, so that a wrong sum shows
  DeviceArray<double> dd(d);
  DeviceArray<unsigned long long> fast(std::vector<unsigned long long>(kCases * 32, 0)),
      general(std::vector<unsigned long long>(kCases * 32, 0));
  CGP_LAUNCH(pullbacks, 1, 32, dd.get(), fast.get(), general.get());
  CGP_CUDA_SYNC_CHECK();
  std::vector<unsigned long long> f = fast.download(), g = general.download();
  int wrong = 0, sums = 0;
  for (int c = 0; c < kCases; ++c) {
    const Case k = caseOf(c);
    // A broadcast from one lane of a whole warp is a warp sum, in the
    // butterfly's order: close to the lane-order sum, not always its bits.
    const bool warpSum =
        k.kind == Broadcast && k.arg != 5 && k.mask == 0xffffffffu && k.width == 32;
    sums += warpSum;
    for (int l = 0; l < 32; ++l) {
      double a, b;
      std::memcpy(&a, &f[c * 32 + l], sizeof a);
      std::memcpy(&b, &g[c * 32 + l], sizeof b);
      bool same = warpSum ? std::fabs(a - b) <= 1e-14 * std::fabs(b) : f[c * 32 + l] == g[c * 32 + l];
      if (!same && ++wrong <= 10)
        std::printf("case %d (kind %d, argument %d, width %d, mask %08x) lane %d: %.17g, "
                    "shuffleAdjoint %.17g\n",
                    c, k.kind, k.arg, k.width, k.mask, l, a, b);
    }
  }
  cgp_cuda_test::check("every pullback agrees with shuffleAdjoint in every lane (bit for bit but "
                       "for the " + std::to_string(sums) + " warp sums)",
                       wrong == 0);
  return cgp_cuda_test::finish();
}
