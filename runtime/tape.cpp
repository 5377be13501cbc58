// tape.cpp - the chunked, thread-local tape of cgp_rt.
//
// Chunks are allocated once and kept: after a call has popped everything, the
// next call reuses the same chunks, so a gradient called in a loop allocates
// nothing once its tape has reached its largest size. Chunk sizes double from
// 64 KiB up to 64 MiB so that a tape of any size needs few allocations.
#include "cgp/runtime.h"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace cgp {
namespace rt {
namespace {
constexpr std::size_t kFirstChunkBytes = std::size_t(64) << 10;
constexpr std::size_t kLargestChunkBytes = std::size_t(64) << 20;
} // namespace

void notePeakTapeBytes(std::size_t bytes); // stats.cpp

Tape::~Tape() {
  for (std::size_t i = 0; i < chunkCount_; ++i)
    std::free(chunks_[i].data);
  std::free(chunks_);
}

void Tape::appendChunk(const Chunk &chunk) {
  if (chunkCount_ == chunkRoom_) {
    std::size_t room = chunkRoom_ ? 2 * chunkRoom_ : 8;
    void *grown = std::realloc(chunks_, room * sizeof(Chunk));
    if (!grown)
      throw std::bad_alloc();
    chunks_ = static_cast<Chunk *>(grown);
    chunkRoom_ = room;
  }
  chunks_[chunkCount_++] = chunk;
}

Tape &Tape::current() {
  thread_local Tape tape;
  return tape;
}

Tape &Tape::redo() {
  thread_local Tape tape;
  tape.reportsPeak_ = false;
  return tape;
}

void Tape::discardTo(std::size_t mark) {
  // What is dropped (a probe's iteration) was held: it counts in the peak.
  notePeak();
  while (bytes() > mark) {
    std::size_t excess = bytes() - mark;
    std::size_t here = static_cast<std::size_t>(top_ - begin_);
    if (excess <= here) {
      top_ -= excess;
      return;
    }
    top_ = begin_;
    previousChunk();
  }
}

void Tape::replayTo(std::size_t mark) {
  while (bytes() > mark) {
    std::uint32_t size = pop<std::uint32_t>();
    void *slot = pop<void *>();
    if (top_ == begin_)
      previousChunk();
    top_ -= size;
    std::memcpy(slot, top_, size);
  }
}

void Tape::nextChunk(std::size_t need) {
  if (!chunkCount_ == 0) {
    notePeak(); // before the move: bytes() must not count the top chunk twice
    Chunk &top = chunks_[current_];
    top.used = static_cast<std::size_t>(top_ - begin_);
    bytesBelow_ += top.used;
    ++current_;
  }
  // Reuse a kept chunk when it is large enough; otherwise put a new one in
  // its place (a kept chunk that is too small is freed: it was never used
  // for anything still on the tape).
  if (current_ < chunkCount_ && chunks_[current_].capacity < need) {
    std::free(chunks_[current_].data);
    chunks_[current_] = Chunk{};
  }
  if (current_ >= chunkCount_ || chunks_[current_].data == nullptr) {
    std::size_t capacity = chunkCount_ == 0
                               ? kFirstChunkBytes
                               : std::min(kLargestChunkBytes, chunks_[chunkCount_ - 1].capacity * 2);
    capacity = std::max(capacity, need);
    Chunk fresh;
    fresh.data = static_cast<unsigned char *>(std::malloc(capacity));
    if (!fresh.data)
      throw std::bad_alloc();
    fresh.capacity = capacity;
    ++allocations_;
    if (current_ < chunkCount_)
      chunks_[current_] = fresh;
    else
      appendChunk(fresh);
  }
  Chunk &chunk = chunks_[current_];
  chunk.used = 0;
  begin_ = top_ = chunk.data;
  end_ = chunk.data + chunk.capacity;
}

void Tape::popBytes(void *data, std::size_t size) {
  // pushBytes put the block in one chunk.
  if (CGP_RT_UNLIKELY(top_ == begin_))
    previousChunk();
  top_ -= size;
  std::memcpy(data, top_, size);
}

void Tape::previousChunk() {
  // Only called when the top chunk is empty and a pop needs the chunk below.
  // Chunks below may be empty too (a value too large for one went to the next
  // chunk): skip them.
  do {
    if (current_ == 0 || chunkCount_ == 0)
      std::abort(); // a pop without a matching push: a bug in generated code
    --current_;
  } while (chunks_[current_].used == 0);
  Chunk &chunk = chunks_[current_];
  bytesBelow_ -= chunk.used;
  begin_ = chunk.data;
  top_ = chunk.data + chunk.used;
  end_ = chunk.data + chunk.capacity;
}

namespace {
thread_local std::size_t callPeak = 0; // most bytes seen since countCall()
}

void Tape::reportPeak(std::size_t now) {
  if (!reportsPeak_)
    return;
  notePeakTapeBytes(now);
  if (now > callPeak)
    callPeak = now;
}

void resetCallPeak() { callPeak = 0; }
std::size_t callPeakBytes() { return callPeak; }

std::size_t Tape::capacityBytes() const {
  std::size_t total = 0;
  for (std::size_t i = 0; i < chunkCount_; ++i)
    total += chunks_[i].capacity;
  return total;
}

void Tape::clear() {
  if (chunkCount_ == 0)
    return;
  current_ = 0;
  bytesBelow_ = 0;
  begin_ = top_ = chunks_[0].data;
  end_ = chunks_[0].data + chunks_[0].capacity;
}

} // namespace rt
} // namespace cgp
