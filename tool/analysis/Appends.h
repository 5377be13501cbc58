//===- Appends.h - vector locals a loop resizes, kept out of snapshots -*- C++ -*-===//
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
// entry. A column of a vector of structs grows with the vector's count
// (`++count; col_size = count;`, then `col[count - 1] = ...`): the same
// proof on the count, once the whole function shows that the column's size
// is never more than the count where a loop starts. Sizes that shrink or
// are set (pop_back, resize, clear, assign) and any other element written
// fail the proof.
//
// A loop that empties the vector first at every iteration (`v.clear()`,
// then push_back) reads no element it had at the iteration's entry: its
// snapshots need neither the elements nor the size.
//
// A loop that resizes a vector it overwrites, but never beyond the size the
// vector had at the iteration's entry (a struct holding it copied and
// assigned back, a stack popped), has snapshots of a size known at the
// loop's entry: the elements the vector holds there (sizeNeverGrows).
//
// The first two do not hold where the forward sweep tapes what the loop
// overwrites: a
// replay would tape other values. A push_back onto a vector that never
// shrinks writes memory the vector never held, whose old value no one
// reads: those writes tape nothing (freshElementWrites).
//
//===----------------------------------------------------------------------===//
#ifndef CGP_ANALYSIS_APPENDS_H
#define CGP_ANALYSIS_APPENDS_H

#include "ir/IR.h"

#include <set>

namespace cgp {

/// Whether the iterations of `loop` (its body and step) change the
/// std::vector local `vector` (a Var that owns its storage) only by
/// appending elements to it. Writes through calls are not seen here. With
/// `f`, the function holding the loop, a size that follows a count (a
/// column of a vector of structs: `++count; col_size = count;` then
/// `col[count - 1] = ...`) counts too, when in the whole of `f` the size is
/// never more than the count where a loop starts.
bool onlyAppends(const StmtRef &loop, const Var *vector, const Function *f = nullptr);

/// Whether every iteration of `loop` leaves the std::vector local `vector`
/// at most as long as it found it: its size is set only from values known
/// to be at most the size at the iteration's entry (itself, a copy of it,
/// zero) or shrunk (pop_back), as when a copy of a struct holding it is
/// assigned back (`State next = s; ...; s = next;`). A snapshot then holds
/// the elements the vector had at the loop's entry, and every later one
/// fits in as many.
bool sizeNeverGrows(const StmtRef &loop, const Var *vector);

/// The assignments of `f` that write an element a std::vector local never
/// held before: the first write of its last element after it grew by
/// push_back, where its size, set only before any element is written and
/// outside loops and branches (where it is declared), never shrinks. No
/// statement can have read the old value of such an element: the tape need
/// not keep it (analysis/ToBeRecorded.h).
std::set<const StmtNode *> freshElementWrites(const Function &f);

/// Whether every iteration of `loop` empties the std::vector local
/// `vector` (sets its size to zero, directly or from an integer it has just
/// set to zero: a vector of structs' count) before anything else mentions
/// it or its size, in the body's own statements (not under a condition).
bool clearedFirst(const StmtRef &loop, const Var *vector);

} // namespace cgp

#endif // CGP_ANALYSIS_APPENDS_H
