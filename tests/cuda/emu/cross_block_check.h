// cross_block_check.h - part of the host emulation of CUDA (cuda_emulation.h
// includes it): finds the bytes of global memory that two blocks of one
// launch both change, at least one of them without an atomic.
//
// On a GPU the blocks of a launch run at the same time, so two blocks that
// add into one element without an atomic can lose an update. The emulation
// runs the blocks one after another: the sum comes out right, and
// ThreadSanitizer sees nothing (each block happens after the one before).
// This check sees it from the memory's contents instead:
//  * every cudaMalloc / cudaMallocManaged allocation is tracked until its
//    cudaFree (TrackedMemory);
//  * before a launch's first block the tracked memory is copied (the
//    snapshot); after each block, the bytes that differ from the snapshot
//    are those the block changed, and the snapshot takes their new values;
//  * each thread logs the tracked bytes its atomics touch (AtomicLog; not
//    those of block scope, atomic*_block, which are atomic among the block's
//    threads only); at the block's end the logs are merged, and a changed
//    byte that they cover is an atomic change, any other a plain one;
//  * a shadow of 4 bytes per byte, made for an allocation when a block of
//    the launch first changes it, keeps the first block that changed each
//    byte and how. A second block changing the byte, when either change is
//    plain, is reported on stderr (`cgp_emu: cross-block race ...`) and
//    aborts the program.
// Not seen: a write that leaves a byte as it was (the value it had, or a
// change undone within the block), and memory that is not cudaMalloc'd
// (__device__ variables, host memory given to a kernel). Cost of a launch of
// G > 1 blocks over M tracked bytes: one copy and G comparisons of M bytes,
// plus some work per changed byte. CGP_EMU_CROSS_BLOCK=0 in the environment
// turns the check off.
#ifndef CGP_EMU_CROSS_BLOCK_CHECK_H
#define CGP_EMU_CROSS_BLOCK_CHECK_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace cgp_emu {
namespace detail {

// Defined in cuda_emulation.h: prints "cgp_emu: " and the message, aborts.
[[noreturn]] inline void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

struct Allocation {
  std::uintptr_t base;
  std::size_t bytes;
};

// The live cudaMalloc allocations. Host code adds and removes them; a launch
// takes a sorted copy (kernels do not allocate global memory).
class TrackedMemory {
 public:
  static TrackedMemory& instance() {
    static TrackedMemory* const memory = new TrackedMemory;  // kept: cudaFree may run at exit
    return *memory;
  }
  void add(const void* p, std::size_t bytes) {
    std::lock_guard<std::mutex> lk(m_);
    live_[reinterpret_cast<std::uintptr_t>(p)] = bytes;
  }
  void remove(const void* p) {
    std::lock_guard<std::mutex> lk(m_);
    live_.erase(reinterpret_cast<std::uintptr_t>(p));
  }
  // By address.
  std::vector<Allocation> list() const {
    std::lock_guard<std::mutex> lk(m_);
    std::vector<Allocation> out;
    out.reserve(live_.size());
    for (const auto& [base, bytes] : live_)
      if (bytes) out.push_back(Allocation{base, bytes});
    return out;
  }

 private:
  mutable std::mutex m_;
  std::map<std::uintptr_t, std::size_t> live_;
};

// The allocation of `list` (sorted by address) that holds address a, or null.
inline const Allocation* find_allocation(const std::vector<Allocation>& list, std::uintptr_t a) {
  auto after = std::upper_bound(list.begin(), list.end(), a,
                                [](std::uintptr_t x, const Allocation& al) { return x < al.base; });
  if (after == list.begin()) return nullptr;
  const Allocation& al = *(after - 1);
  return a - al.base < al.bytes ? &al : nullptr;
}

// The addresses [lo, hi).
struct ByteRange {
  std::uintptr_t lo, hi;
};

// One thread's atomics on tracked memory during one block. A range that
// repeats or extends the last one is folded into it, so a loop of atomics on
// one element (or on consecutive ones) keeps one entry.
class AtomicLog {
 public:
  void add(std::uintptr_t lo, std::size_t bytes) {
    const std::uintptr_t hi = lo + bytes;
    if (!ranges_.empty()) {
      ByteRange& last = ranges_.back();
      if (lo >= last.lo && hi <= last.hi) return;
      if (lo == last.hi) {
        last.hi = hi;
        return;
      }
    }
    ranges_.push_back(ByteRange{lo, hi});
  }
  const std::vector<ByteRange>& ranges() const { return ranges_; }
  void clear() { ranges_.clear(); }

 private:
  std::vector<ByteRange> ranges_;
};

// Sorts `r` and merges the ranges that overlap or touch.
inline void merge_ranges(std::vector<ByteRange>& r) {
  std::sort(r.begin(), r.end(), [](const ByteRange& a, const ByteRange& b) { return a.lo < b.lo; });
  std::size_t out = 0;
  for (const ByteRange& x : r) {
    if (out > 0 && x.lo <= r[out - 1].hi)
      r[out - 1].hi = std::max(r[out - 1].hi, x.hi);
    else
      r[out++] = x;
  }
  r.resize(out);
}

// A pointer parameter of the launched kernel (1-based index), for reports.
// element_bytes: sizeof the pointee, 0 where it has none (void, functions).
struct PointerParameter {
  unsigned index;
  std::uintptr_t value;
  std::size_t element_bytes;
};

template <class T, class = void>
struct ElementBytes : std::integral_constant<std::size_t, 0> {};
template <class T>
struct ElementBytes<T, std::enable_if_t<!std::is_void<T>::value && !std::is_function<T>::value,
                                        std::void_t<decltype(sizeof(T))>>>
    : std::integral_constant<std::size_t, sizeof(T)> {};

template <class T>
void note_pointer_parameter(std::vector<PointerParameter>& out, unsigned index, const T& value) {
  if constexpr (std::is_pointer<T>::value)
    out.push_back(PointerParameter{index, reinterpret_cast<std::uintptr_t>(value),
                                   ElementBytes<std::remove_cv_t<std::remove_pointer_t<T>>>::value});
}

template <class... P, std::size_t... I>
std::vector<PointerParameter> pointer_parameters(const std::tuple<P...>& args,
                                                 std::index_sequence<I...>) {
  std::vector<PointerParameter> out;
  (void)args;  // no parameters: unused
  (note_pointer_parameter(out, static_cast<unsigned>(I + 1), std::get<I>(args)), ...);
  return out;
}

// The pointer parameters among a kernel's converted arguments.
template <class... P>
std::vector<PointerParameter> pointer_parameters(const std::tuple<P...>& args) {
  return pointer_parameters(args, std::index_sequence_for<P...>{});
}

// What a report names: the kernel (null if the launch gave no name), its
// configuration, its pointer parameters.
struct LaunchDescription {
  const char* kernel;
  dim3 grid, block;
  std::vector<PointerParameter> pointers;
};

// The check of one launch: made before its first block, told about each
// block after it has run, in launch order.
class CrossBlockCheck {
 public:
  // Whether launches are checked (not with CGP_EMU_CROSS_BLOCK=0).
  static bool enabled() {
    static const bool on = [] {
      const char* v = std::getenv("CGP_EMU_CROSS_BLOCK");
      return !(v && std::strcmp(v, "0") == 0);
    }();
    return on;
  }

  // Whether a launch of `blocks` blocks needs (and can have) the check: one
  // block cannot race with another, and the shadow numbers blocks in 31 bits.
  static bool applies(unsigned long long blocks) { return blocks > 1 && blocks < (1ull << 31); }

  CrossBlockCheck(const LaunchDescription& launch, const std::vector<Allocation>& memory)
      : launch_(launch) {
    std::size_t total = 0;
    for (const Allocation& a : memory) {
      watched_.push_back(Watched{a, total, nullptr});
      total += a.bytes;
    }
    snapshot_.reset(new unsigned char[total ? total : 1]);
    for (const Watched& w : watched_)
      std::memcpy(&snapshot_[w.snapshot_offset], reinterpret_cast<const void*>(w.memory.base),
                  w.memory.bytes);
  }

  // Block `ordinal` (its linear index, x fastest) has run; `atomics`: the
  // merged ranges of its atomics on tracked memory. `last`: no block
  // follows, so the snapshot need not be brought up to date.
  void block_done(unsigned long long ordinal, const std::vector<ByteRange>& atomics, bool last) {
    std::size_t cursor = 0;  // into atomics; allocations and bytes come in address order
    for (Watched& w : watched_) {
      const unsigned char* now = reinterpret_cast<const unsigned char*>(w.memory.base);
      unsigned char* before = &snapshot_[w.snapshot_offset];
      if (std::memcmp(now, before, w.memory.bytes) == 0) continue;
      if (!w.shadow) {
        w.shadow.reset(static_cast<std::uint32_t*>(std::calloc(w.memory.bytes, 4)));
        if (!w.shadow) fail("cross-block check: out of memory for a shadow of %zu bytes",
                            w.memory.bytes);
      }
      Conflict conflict;
      for (std::size_t chunk = 0; chunk < w.memory.bytes; chunk += kChunk) {
        const std::size_t end = std::min(w.memory.bytes, chunk + kChunk);
        if (std::memcmp(now + chunk, before + chunk, end - chunk) == 0) continue;
        for (std::size_t i = chunk; i < end; ++i) {
          if (now[i] == before[i]) continue;
          const std::uintptr_t address = w.memory.base + i;
          while (cursor < atomics.size() && atomics[cursor].hi <= address) ++cursor;
          const bool plain = !(cursor < atomics.size() && atomics[cursor].lo <= address);
          std::uint32_t& first = w.shadow.get()[i];
          if (first == 0) {
            first = static_cast<std::uint32_t>((ordinal + 1) << 1) | (plain ? 1u : 0u);
          } else if ((first & 1u) || plain) {
            if (conflict.bytes++ == 0) {
              conflict.offset = i;
              conflict.first = first;
              conflict.plain = plain;
            }
          }
        }
        if (!last) std::memcpy(before + chunk, now + chunk, end - chunk);
      }
      if (conflict.bytes) report(w.memory, conflict, ordinal);
    }
  }

 private:
  static constexpr std::size_t kChunk = 256;

  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  struct Watched {
    Allocation memory;
    std::size_t snapshot_offset;
    // Per byte: 0, or ((ordinal of the first block that changed it) + 1) << 1
    // | (whether that change was plain).
    std::unique_ptr<std::uint32_t, FreeDeleter> shadow;
  };
  // The bytes of one allocation that a block changed after another block.
  struct Conflict {
    std::size_t bytes = 0;   // how many
    std::size_t offset = 0;  // the first one's
    std::uint32_t first = 0; // its shadow: the earlier block
    bool plain = false;      // whether this block's change of it was plain
  };

  uint3 block_index(unsigned long long ordinal) const {
    const unsigned long long gx = launch_.grid.x, gy = launch_.grid.y;
    return uint3{static_cast<unsigned>(ordinal % gx), static_cast<unsigned>(ordinal / gx % gy),
                 static_cast<unsigned>(ordinal / (gx * gy))};
  }

  // Where byte `offset` of `memory` is, in words a kernel's author knows:
  // in an element of the pointer parameter that points into the allocation
  // nearest below it, else in which element of 8- or 4-byte elements.
  void describe_byte(const Allocation& memory, std::size_t offset) const {
    const std::uintptr_t address = memory.base + offset;
    const PointerParameter* best = nullptr;
    for (const PointerParameter& p : launch_.pointers)
      if (p.value >= memory.base && p.value <= address && (!best || p.value > best->value))
        best = &p;
    if (!best)
      std::fprintf(stderr, "cgp_emu:   no parameter of the kernel points into the allocation; the "
                   "byte is in element %zu of 8-byte elements, %zu of 4-byte ones\n",
                   offset / 8, offset / 4);
    else if (best->element_bytes)
      std::fprintf(stderr, "cgp_emu:   the byte is in element %zu of parameter %u of the kernel "
                   "(%zu-byte elements)\n", (address - best->value) / best->element_bytes,
                   best->index, best->element_bytes);
    else
      std::fprintf(stderr, "cgp_emu:   the byte is %zu bytes past where parameter %u of the kernel "
                   "points\n", static_cast<std::size_t>(address - best->value), best->index);
  }

  [[noreturn]] void report(const Allocation& memory, const Conflict& c,
                           unsigned long long ordinal) const {
    const uint3 earlier = block_index((c.first >> 1) - 1), later = block_index(ordinal);
    const auto how = [](bool plain) { return plain ? "a plain write" : "an atomic"; };
    std::fprintf(stderr,
                 "cgp_emu: cross-block race in %s%s<<<(%u,%u,%u), (%u,%u,%u)>>>: blocks (%u,%u,%u) "
                 "and (%u,%u,%u) both change byte %zu of a cudaMalloc allocation of %zu bytes at "
                 "%p, not both with an atomic\n",
                 launch_.kernel ? "kernel " : "a kernel", launch_.kernel ? launch_.kernel : "",
                 launch_.grid.x, launch_.grid.y, launch_.grid.z, launch_.block.x, launch_.block.y,
                 launch_.block.z, earlier.x, earlier.y, earlier.z, later.x, later.y, later.z,
                 c.offset, memory.bytes, reinterpret_cast<void*>(memory.base));
    describe_byte(memory, c.offset);
    std::fprintf(stderr,
                 "cgp_emu:   block (%u,%u,%u) changed it with %s, block (%u,%u,%u) with %s (plain: "
                 "no atomic of the block covers the byte, other than atomic*_block ones, which are "
                 "atomic within their block only)\n",
                 earlier.x, earlier.y, earlier.z, how(c.first & 1u), later.x, later.y, later.z,
                 how(c.plain));
    std::fprintf(stderr,
                 "cgp_emu:   on a GPU the blocks run at the same time and an update can be lost: "
                 "add with an atomic, or give each block elements of its own (block (%u,%u,%u) "
                 "changed %zu byte%s of the allocation that an earlier block had changed)\n",
                 later.x, later.y, later.z, c.bytes, c.bytes == 1 ? "" : "s");
    fail("aborting");
  }

  LaunchDescription launch_;
  std::vector<Watched> watched_;
  std::unique_ptr<unsigned char[]> snapshot_;
};

}  // namespace detail
}  // namespace cgp_emu

#endif  // CGP_EMU_CROSS_BLOCK_CHECK_H
