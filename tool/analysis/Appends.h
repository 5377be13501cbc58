//===- Appends.h - std::vector locals a loop only appends to ---*- C++ -*-===//
//
// A loop that collects a history (`trail.push_back(pos)` at every step)
// changes the size of a std::vector local, so a snapshot of its elements
// would need a slot that grows with the loop. It needs none: when the loop
// only appends, the elements the vector held at any iteration's entry are
// never written again by the loop, and a replay from a snapshot finds them
// where the forward sweep left them. The vector's size, a scalar of the
// loop's state, is all a snapshot must hold; the replay writes again, with
// the same values, the elements that lie beyond it.
//
// The proof is on the lowered push_back: the size variable grows only by a
// positive constant (`size += 1`), and every element the loop assigns is
// `v[size - 1]` after such a growth earlier in the same block (or a block
// around it), so at an index the vector did not have at the iteration's
// entry. Sizes that shrink or are set (pop_back, resize, clear, assign) and
// any other element written fail the proof.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_APPENDS_H
#define CGP_ANALYSIS_APPENDS_H

#include "ir/IR.h"

namespace cgp {

/// Whether the iterations of `loop` (its body and step) change the
/// std::vector local `vector` (a Var that owns its storage) only by
/// appending elements to it. Writes through calls are not seen here.
bool onlyAppends(const StmtRef &loop, const Var *vector);

} // namespace cgp

#endif // CGP_ANALYSIS_APPENDS_H
