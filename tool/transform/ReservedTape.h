//===- ReservedTape.h - a loop that tapes the same every trip reserves it -*- C++ -*-===//
//
// A tape push checks for room and, when the chunk is full, calls the
// runtime for the next one. That call, rare as it is, sits inside the loop:
// x86-64 keeps no floating-point register across a call, so GCC and Clang
// keep the loop's running values (an accumulator, a power updated every
// step) in memory for the whole loop, and each step waits on a store and a
// load. When every iteration of a counted loop pushes the same number of
// bytes, and its trip count is known as it starts, the loop instead
// reserves its whole tape before it runs and pushes without checks:
//
//   cgp_tape.reserve(m_trips * 8);        cgp_tape.exposeReserved(m_trips * 8);
//   for (j = 0; j < m; ++j) {             for (j = m - 1; j >= 0; --j) {
//     cgp_tape.pushReserved(mul);           mul = cgp_tape.popReserved<double>();
//     ...                                   ...
//
// and its reverse pops without checks, after one call that brings the chunk
// holding them to the top. An iteration pushes the same bytes when it pushes
// scalars, takes either arm of an `if` whose arms push the same, and runs
// loops that reserved their own tape for a trip count the iteration does not
// change: those nest into this one (one reservation for a whole nest). Code
// that touches the tape otherwise (a helper's forward sweep, snapshots, a
// whole array) or may leave the loop early keeps the checked pushes.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_TRANSFORM_RESERVEDTAPE_H
#define CGP_TRANSFORM_RESERVEDTAPE_H

#include "ir/IR.h"

#include <map>
#include <set>
#include <vector>

namespace cgp {

class TapeReservations {
public:
  /// Reserves the tape of the counted loop `loop` (generated forward code,
  /// an element of `fwd`) and of its reverse `rloop` (an element of `rev`)
  /// when every iteration pushes the same bytes: `trips` is the trip count
  /// as the forward loop starts, `reverseTrips` as the reverse loop starts.
  /// Loops nested in it that reserved their own tape give up their
  /// reservation to this one. Does nothing otherwise.
  void reserve(const StmtRef &loop, const StmtRef &rloop, const ExprRef &trips,
               const ExprRef &reverseTrips, std::vector<StmtRef> &fwd, std::vector<StmtRef> &rev);

private:
  struct Reserved {
    ExprRef bytes;          // all the loop pushes, as an expression valid before it
    StmtRef reserve, expose; // the runtime calls before the loop and its reverse
  };
  /// Bytes one run of the forward code `code` pushes, as a constant and the
  /// sums of nested reserved loops; false when they may differ between runs.
  struct Bytes {
    int64_t constant = 0;
    std::vector<ExprRef> nested;
    std::vector<const StmtNode *> loops; // the nested reserved loops counted
  };
  bool bytesOf(const StmtRef &s, const std::set<const Var *> &changing, Bytes &out) const;
  /// `s` is the reservation of a loop reserved earlier (nested in this
  /// one), or its reverse's exposeReserved.
  bool isNestedReserve(const StmtRef &s) const;
  bool isNestedExpose(const StmtRef &s) const;

  std::map<const StmtNode *, Reserved> reserved_; // by forward loop
};

} // namespace cgp

#endif // CGP_TRANSFORM_RESERVEDTAPE_H
