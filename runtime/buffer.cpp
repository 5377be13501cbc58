// buffer.cpp - the per-thread pool of blocks behind cgp::rt::Buffer.
//
// A Buffer's blocks are taken at its sizing and given back when it dies; the
// pool keeps them for the next call, so the steady state allocates nothing.
// Blocks are powers of two bytes (at least 64), one free list per size. And
// the message of checkSizeKept(), out of line.
#include "cgp/buffer.h"

#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

namespace cgp {
namespace rt {
namespace {

struct BlockPool {
  static constexpr int kClasses = 48;
  std::vector<void *> free[kClasses];

  ~BlockPool() {
    for (auto &list : free)
      for (void *b : list)
        std::free(b);
  }

  static int sizeClass(std::size_t bytes, std::size_t &capacity) {
    int c = 6;
    capacity = std::size_t(1) << c;
    while (capacity < bytes) {
      capacity <<= 1;
      ++c;
    }
    return c;
  }
};

BlockPool &pool() {
  thread_local BlockPool p;
  return p;
}

} // namespace

void *takeBlock(std::size_t bytes, std::size_t &capacity) {
  int c = BlockPool::sizeClass(bytes, capacity);
  std::vector<void *> &list = pool().free[c];
  if (!list.empty()) {
    void *b = list.back();
    list.pop_back();
    return b;
  }
  void *b = std::malloc(capacity);
  if (!b)
    throw std::bad_alloc();
  return b;
}

void giveBlock(void *block, std::size_t capacity) {
  std::size_t rounded = 0;
  int c = BlockPool::sizeClass(capacity, rounded);
  pool().free[c].push_back(block);
}

void sizeChanged(std::size_t size, std::size_t now, const char *function) {
  std::fprintf(stderr, "cgp-ad: '%s' changed the size of a std::vector from %zu to %zu; a "
                       "function with a custom pullback must keep the sizes of its vectors\n",
               function, size, now);
  std::abort();
}

} // namespace rt
} // namespace cgp
