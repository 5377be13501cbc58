//===- Reloads.h - array elements the reverse sweep loads again -*- C++ -*-===//
//
// A loop that loads a tile each iteration (`As[ty][tx] = A[row*K + t*T + tx]`
// in a tiled matrix product, a scratch buffer filled from an input) overwrites
// the element its previous iteration loaded, and the reverse sweep of that
// iteration needs it back. The tape would hold one element per iteration;
// but the old value is what the same statement loaded one iteration before,
// from memory nothing writes: the reverse sweep can load it again.
//
// This file finds the assignments where that holds: `M[e] = v;` at the top
// level of a counted loop's body (it runs in every iteration), the only
// assignment to the local array M (nothing else writes it, no call is given
// it), with no statement of the body before it mentioning M (every read in
// an iteration sees that iteration's value), `e` the same element in every
// iteration (it reads nothing the loop writes), and `v` pure, reading the
// loop's index, variables the loop does not write and memory that nothing in
// the function writes. The reverse of iteration i then restores the element
// with `if (i != start) M[e] = v(i - step);`; at the first iteration it
// leaves the element as it is, so to-be-recorded analysis (ToBeRecorded.cpp)
// lets a reload replace a push only where nothing before the loop needs M.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_RELOADS_H
#define CGP_ANALYSIS_RELOADS_H

#include "ir/IR.h"

#include <map>
#include <vector>

namespace cgp {

/// An assignment the reverse sweep may restore by loading again.
struct Reload {
  const StmtNode *loop = nullptr; // the counted loop whose body holds it
  Var *index = nullptr;           // the loop's index
  int64_t start = 0, step = 0;    // its first value and its step
  /// The variables the reload reads, besides the index.
  std::vector<Var *> operands;
};

struct Reloads {
  std::map<const StmtNode *, Reload> at;

  const Reload *find(const StmtNode *s) const {
    auto it = at.find(s);
    return it == at.end() ? nullptr : &it->second;
  }
};

/// The assignments of `f`'s body (a prepared function) that may be reloaded.
Reloads findReloads(const Function &f);

/// `if (i != start) M[e] = v(i - step);` for the assignment `s`.
StmtRef reloadStatement(const StmtRef &s, const Reload &reload);

} // namespace cgp

#endif // CGP_ANALYSIS_RELOADS_H
