//===- ThreadIndices.h - which elements are a CUDA thread's own -*- C++ -*-===//
//
// Every thread of a `__global__` kernel runs the same reverse sweep. Where
// its adjoints live in memory the threads share (the caller's buffers, a
// block's __shared__ arrays), an addition may be a plain `+=` only if no
// other thread adds into the same element. This analysis of the primal
// kernel answers that question, in terms of the parts of a thread's
// identity (threadIdx.x/y/z, blockIdx.x/y/z):
//  - the parts the kernel reads, itself or in the helpers it calls;
//  - the parts an index is one-to-one over ("distinguishes"): two threads
//    that differ in one of them never get the same element. threadIdx.x
//    distinguishes itself; `blockIdx.x * blockDim.x + threadIdx.x`, and a
//    grid-stride index started there, distinguish both x parts; `a + c`
//    (c the same in every thread and at every access) what `a` does;
//    a variable that one statement assigns what its value does; `a * S + r` with
//    0 <= r < S known (a pixel `y * W + x` where a guard says x < W, a
//    thread's run of S elements `i * S + k` in a loop k < S,
//    `blockIdx.x * 256 + threadIdx.x` for blocks of at most 256 threads) the
//    parts of `a` and of `r`; the indices of a 2-D array together, the parts
//    of each.
// An element is the thread's own when its index distinguishes every part
// the kernel reads; that holds for any launch that varies only in those
// parts (and whose blocks are no larger than the proof assumed), which the
// generated gradient checks at entry (include/cgp/device.h,
// cgp::dev::launchVariesOnlyIn). Bounds such as `x < W` come from the
// conditions that guard every access of the buffer in the primal (an `if`,
// a loop's condition, an early `return` the control normalisation turned
// into a flag), dropped where the variables they name are written.
//
// It also says which values are the same in every thread (they read
// nothing that depends on the thread's identity, through data flow): an
// addition every thread makes into such an element is reduced over the warp
// first (cgp::dev::warpAdd checks at run time that the lanes agree).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_THREADINDICES_H
#define CGP_ANALYSIS_THREADINDICES_H

#include "ir/IR.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cgp {

/// The parts of a CUDA thread's identity, as bits.
enum ThreadPart : unsigned {
  kThreadX = 1, kThreadY = 2, kThreadZ = 4, kBlockX = 8, kBlockY = 16, kBlockZ = 32,
};
constexpr unsigned kThreadParts = kThreadX | kThreadY | kThreadZ;
constexpr unsigned kAllParts = kThreadParts | kBlockX | kBlockY | kBlockZ;

/// What a proof that an element is a thread's own assumed of the block's
/// shape: `blockIdx.x * 256 + threadIdx.x` is one-to-one only for blocks of
/// at most 256 threads in x. 0: no limit.
struct LaunchLimits {
  int64_t maxBlockDim[3] = {0, 0, 0};

  void limit(int dim, int64_t most) {
    if (maxBlockDim[dim] == 0 || most < maxBlockDim[dim])
      maxBlockDim[dim] = most;
  }
  void merge(const LaunchLimits &o) {
    for (int d = 0; d < 3; ++d)
      if (o.maxBlockDim[d])
        limit(d, o.maxBlockDim[d]);
  }
  bool any() const { return maxBlockDim[0] || maxBlockDim[1] || maxBlockDim[2]; }
  /// "blockDim.x <= 256", for messages; empty without limits.
  std::string describe() const;
};

/// "threadIdx.x, blockIdx.x": the parts in `parts`, for messages.
std::string describeParts(unsigned parts);
/// `cgp::dev::kThreadX | cgp::dev::kBlockX`: the parts as device.h names them.
std::string partsExpression(unsigned parts);

class ThreadIndices {
public:
  /// Facts about `f`, a prepared function. For a `__global__` kernel the
  /// parts it reads are known; for a helper (`kernelLevel` false) they are
  /// not (its callers may read any), so no element is its own.
  ThreadIndices(const Function &f, bool kernelLevel);

  /// Extends "differs between threads" to the temporaries of generated
  /// code (`code`, the reverse sweep) assigned from such values.
  void taintTemporaries(const std::vector<StmtRef> &code);

  /// The parts of a thread's identity the kernel reads.
  unsigned used() const { return used_; }

  /// True if no other thread (of the launch; with `inBlock` of the block: a
  /// __shared__ array) gets the element `indices` of `buffer` (the primal
  /// variable whose adjoint is added into), for a launch that varies only in
  /// the parts used() names.
  /// What the proof assumed of the block's shape is added to `limits`.
  bool owned(const std::vector<ExprRef> &indices, const Var *buffer, bool inBlock,
             LaunchLimits *limits = nullptr) const;

  /// True if `index` reads nothing that differs between threads.
  bool sameInEveryThread(const ExprRef &index) const;

private:
  /// `lhs < bound` (Below), `var` is one-to-one over `parts` (Coordinate),
  /// `var >= 0` (NonNegative), `var` holds the one value its only
  /// assignment gives it, the same in every thread (Fixed).
  struct Fact {
    enum Kind { Below, Coordinate, NonNegative, Fixed } kind = Below;
    ExprRef lhs, bound;
    const Var *var = nullptr;
    unsigned parts = 0;
    /// A Coordinate whose values are distinct modulo the threads of its
    /// dimension (`blockIdx.x * blockDim.x + threadIdx.x + c`): a
    /// grid-stride step keeps it one-to-one.
    bool dense = false;
    /// What a Coordinate assumes of the block's shape.
    LaunchLimits limits;

    bool mentions(const Var *v) const;
    bool same(const Fact &other) const;
  };
  using Facts = std::vector<Fact>;
  static Fact fact(Fact::Kind kind, const Var *var, ExprRef lhs = nullptr, ExprRef bound = nullptr);

  unsigned distinguishes(const ExprRef &index, const Facts &facts) const;
  unsigned denseParts(const ExprRef &index, const Facts &facts) const;
  bool below(const ExprRef &r, const ExprRef &s, const Facts &facts) const;
  bool nonNegative(const ExprRef &e, const Facts &facts) const;
  /// True if `e` has the same value in every thread and at every access.
  bool invariant(const ExprRef &e, const Facts &facts) const;

  void findFlags(const Function &f);
  /// The flag `s` sets if it is `if (c) flag = true;`, else null.
  static const Var *flagSetBy(const StmtRef &s);
  void walk(const StmtRef &s, Facts &facts, bool topLevel);
  void factsOf(const ExprRef &cond, bool truth, Facts &out) const;
  bool survives(const Fact &fact, const StmtRef &write, const Var *v, const Facts &facts) const;
  void killWrites(const StmtRef &s, Facts &facts);
  void assignVar(const Var *v, const StmtRef &s, Facts &facts);
  void noteAccesses(const StmtRef &s, const Facts &facts);
  void taint(const StmtRef &s, const std::set<const Var *> *skip);
  bool taintedExpr(const ExprRef &e) const;

  bool kernelLevel_;
  unsigned used_ = 0;
  /// Where distinguishes() and below() note what they assume of the
  /// block's shape, while a caller collects it (null otherwise).
  mutable LaunchLimits *assumed_ = nullptr;
  /// Bool flags that only `flag = false` at the top of the body, then
  /// `if (c) flag = true;` at its top level (an early return, normalised)
  /// and `flag = true` anywhere write; and what holds while one is false.
  std::set<const Var *> validFlags_;
  std::map<const Var *, Facts> flagFacts_;
  /// Per buffer, the facts that hold at every access of it.
  std::map<const Var *, Facts> bufferFacts_;
  std::set<const Var *> tainted_;
  std::set<const Var *> writtenInPrimal_;
  /// Per variable, its writes other than grid-stride steps (an address
  /// passed to a call counts as two): an index is one-to-one across all
  /// accesses only if one statement gives it its values.
  std::map<const Var *, int> definitions_;
};

} // namespace cgp

#endif // CGP_ANALYSIS_THREADINDICES_H
