//===- RowWrites.cpp - caller buffers a loop fills one row at a time ------===//
//
// See RowWrites.h. Indices become polynomials with integer coefficients
// over integer variables; an access is understood when its polynomial is
// `stride * (t + offset) + column`, `t` the loop's index.
//
//===----------------------------------------------------------------------===//
#include "analysis/RowWrites.h"

#include "analysis/IndexPolynomials.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace cgp {
namespace {

constexpr const char *kNotARow = "at an index that is not a row per iteration (t * n + i, i below n)";

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/// Where an access lies: row `t + offset` of rows `stride` elements apart.
struct Row {
  Polynomial stride;
  int64_t offset = 0;
  /// In rows of a * n elements, the part of n elements the column lies in
  /// (`t * 2n + n + i`: part 1), when the column is a loop's index below n;
  /// -1 otherwise.
  int64_t part = -1;
};

/// The loops inside the one analysed that run an index from 0 while below
/// a bound the loop does not change: index -> bound.
using Columns = std::map<const Var *, Polynomial, VarLess>;

class RowFinder {
public:
  RowFinder(const StmtRef &loop, const Var *buffer, Defs before)
      : loop_(loop), buffer_(buffer), defs_(std::move(before)), integers_(loop) {}

  /// Collects the loop body's reads and writes of the buffer; false (with
  /// `why`) at an access it cannot place.
  bool scan(std::string &why) {
    Columns columns;
    visit(loop_->body, columns);
    why = why_;
    return why_.empty();
  }

  std::vector<Row> reads, writes;

private:
  void fail(std::string why) {
    if (why_.empty())
      why_ = std::move(why);
  }

  /// The row of an access of the buffer with these indices (`write`: an
  /// element written).
  std::optional<Row> rowOf(const std::vector<ExprRef> &indices, const Columns &columns,
                           bool write) {
    // A column may be written `(i + k) % n` (a periodic neighbour): it is
    // below the stride n when the rest of the index is a row of n.
    ExprRef rowPart = indices[0], remainder;
    if (rowPart->kind == ExprKind::Binary && rowPart->binaryOp == BinaryOp::Add)
      for (int side : {0, 1}) {
        const ExprRef &x = rowPart->operands[side];
        if (x->kind == ExprKind::Binary && x->binaryOp == BinaryOp::Rem) {
          remainder = x;
          rowPart = rowPart->operands[1 - side];
          break;
        }
      }
    std::optional<Polynomial> p = polynomialOf(rowPart, defs_);
    if (!p) {
      fail("at an index that is not a sum of products of integers");
      return std::nullopt;
    }
    const Var *t = loop_->counted.index;
    for (const auto &[m, c] : *p)
      for (const Var *v : m)
        if (v != t && !columns.count(v) && integers_.changes(v)) {
          fail("at an index computed from values the loop changes");
          return std::nullopt;
        }
    // The one term in t: coefficient * strideFactor * t.
    Row row;
    Monomial strideFactor;
    int64_t coefficient = 0;
    for (const auto &[m, c] : *p) {
      if (std::count(m.begin(), m.end(), t) == 0)
        continue;
      if (coefficient != 0 || std::count(m.begin(), m.end(), t) != 1) {
        fail(kNotARow);
        return std::nullopt;
      }
      coefficient = c;
      for (const Var *v : m)
        if (v != t)
          strideFactor.push_back(v);
    }
    if (coefficient <= 0) {
      fail(kNotARow);
      return std::nullopt;
    }
    row.stride = {{strideFactor, coefficient}};
    // The other terms: multiples of the stride (the row's offset), and a
    // column below the stride.
    bool column = remainder && belowStride(remainder, row.stride, columns);
    if (remainder && !column) {
      fail(kNotARow);
      return std::nullopt;
    }
    int64_t constant = 0; // in elements
    // Rows of a * n elements may hold a parts of n (positions, then
    // velocities): `t * 2n + n + i` is column n + i, i below n, of row t.
    int64_t part = 0;
    bool partColumn = false;
    const Polynomial partSize{{strideFactor, 1}};
    for (const auto &[m, c] : *p) {
      if (std::count(m.begin(), m.end(), t))
        continue;
      if (m.empty()) {
        constant += c;
      } else if (m == strideFactor) {
        row.offset += floorDiv(c, coefficient);
        part = c - coefficient * floorDiv(c, coefficient);
      } else if (m.size() == 1 && c == 1 && !column && coefficient > 1 &&
                 !strideFactor.empty() && columns.count(m[0]) && columns.at(m[0]) == partSize) {
        column = partColumn = true;
      } else if (m.size() == 1 && (c == 1 || c == -1) && !column && columns.count(m[0]) &&
                 columns.at(m[0]) == row.stride) {
        // `i`, or `-i` read as the column `S - 1 - i` of the row before.
        column = true;
        if (c == -1) {
          row.offset -= 1;
          constant += 1;
        }
      } else {
        fail(kNotARow);
        return std::nullopt;
      }
    }
    // A part's first element (`base + n`) lies in the row too where rows
    // are written at all (n >= 1); a write needs its column, as below, and
    // a column below the whole row's length would pass its end.
    if (part != 0 && !partColumn && (write || column)) {
      fail(kNotARow);
      return std::nullopt;
    }
    if (partColumn)
      row.part = part;
    // What is left of the constant: with a column, whole rows only; in
    // rows of a constant size without one, a row and a column; in rows of
    // a * n elements (n >= 1 where anything is written), -k for k <= a is
    // the column a * n - k of the row before (`t * n + n - 1`, the last).
    if (!strideFactor.empty() && !column && constant < 0 && -constant <= coefficient) {
      row.offset -= 1;
      constant = 0;
      column = true;
    }
    if ((!strideFactor.empty() && constant != 0) || (column && constant % coefficient != 0)) {
      fail(kNotARow);
      return std::nullopt;
    }
    row.offset += floorDiv(constant, coefficient);
    if (write && !column && !strideFactor.empty()) {
      // Rows `n * t` with nothing saying n > 0 may all be one element. (A
      // read may: where writes are understood, any write says n > 0.)
      fail("in rows of a size not known to be above 0");
      return std::nullopt;
    }
    if (indices.size() > 1 && !(row.stride == Polynomial{{{}, 1}})) {
      fail("at a first index other than the loop's index plus a constant");
      return std::nullopt;
    }
    return row;
  }

  /// Whether `a % b` lies in [0, stride): `b` is the stride and `a` a sum
  /// of columns and constants, none negative, with a column among them (a
  /// column `i < n` says the stride n is above 0).
  bool belowStride(const ExprRef &remainder, const Polynomial &stride, const Columns &columns) {
    std::optional<Polynomial> a = polynomialOf(remainder->operands[0], defs_);
    std::optional<Polynomial> b = polynomialOf(remainder->operands[1], defs_);
    if (!a || !b || *b != stride)
      return false;
    bool hasColumn = false;
    for (const auto &[m, c] : *a) {
      if (c < 0 || m.size() > 1 || (m.size() == 1 && !columns.count(m[0])))
        return false;
      hasColumn |= m.size() == 1 && columns.at(m[0]) == stride;
    }
    return hasColumn;
  }

  void access(const ExprRef &element, const Columns &columns, std::vector<Row> &into) {
    if (std::optional<Row> row = rowOf(element->operands, columns, &into == &writes))
      into.push_back(*row);
  }

  /// Reads in `e`; any other use of the buffer (its address passed on) fails.
  void reads_in(const ExprRef &e, const Columns &columns) {
    forEachExpr(e, [&](const ExprRef &x) {
      if (x->var != buffer_)
        return;
      if (x->kind != ExprKind::Index) {
        fail("and passes it on whole");
        return;
      }
      for (const ExprRef &set : setEarlier_)
        if (sameExpr(set, x))
          return;
      std::optional<Row> row = rowOf(x->operands, columns, /*write=*/false);
      if (!row)
        return;
      for (const Row &set : rowsSetEarlier_)
        if (set.stride == row->stride && set.offset == row->offset)
          return;
      reads.push_back(*row);
    });
  }

  /// A loop counted from 0 while below a bound this loop does not change
  /// makes its index a column of rows of that many elements: adds it to
  /// `columns`, and says whether it did.
  bool addColumn(const StmtRef &s, Columns &columns) const {
    if (s->kind != StmtKind::For || !s->counted.index || s->counted.step <= 0 || !s->init ||
        s->init->kind != StmtKind::Decl || knownInteger(s->init->value) != 0 ||
        s->value->kind != ExprKind::Binary || s->value->binaryOp != BinaryOp::Lt ||
        s->value->operands[0]->kind != ExprKind::VarRef ||
        s->value->operands[0]->var != s->counted.index)
      return false;
    std::optional<Polynomial> bound = polynomialOf(s->value->operands[1], defs_);
    if (!bound)
      return false;
    for (const auto &[m, c] : *bound)
      for (const Var *v : m)
        if (integers_.changes(v))
          return false;
    columns[s->counted.index] = *bound;
    return true;
  }

  void visit(const StmtRef &s, Columns &columns) {
    if (!s)
      return;
    if (s->kind == StmtKind::Assign && s->lhs->var == buffer_) {
      access(s->lhs, columns, writes);
      if (s->assignOp != AssignOp::Set)
        access(s->lhs, columns, reads);
      for (const ExprRef &i : s->lhs->operands)
        reads_in(i, columns);
      reads_in(s->value, columns);
    } else {
      for (const ExprRef &e : ownExprs(s))
        reads_in(e, columns);
    }
    const bool addsColumn = addColumn(s, columns);
    // An element a statement of a block sets, the statements after it in
    // the block read as it was set (a replay sets it first too).
    // So is a whole row that a loop over its columns set before.
    const size_t setBefore = setEarlier_.size(), rowsBefore = rowsSetEarlier_.size();
    for (const StmtRef &c : s->stmts) {
      visit(c, columns);
      if (s == loop_->body) // in the loop's index too: rows move with it
        integers_.define(c, defs_, loop_->counted.index);
      if (c->kind == StmtKind::Assign && c->assignOp == AssignOp::Set && c->lhs->var == buffer_)
        setEarlier_.push_back(c->lhs);
      if (std::optional<Row> row = rowSetWhole(c, columns))
        rowsSetEarlier_.push_back(*row);
    }
    setEarlier_.resize(setBefore);
    rowsSetEarlier_.resize(rowsBefore);
    for (const StmtRef *c : {&s->init, &s->step, &s->body, &s->elseBody})
      visit(*c, columns);
    for (const SwitchCase &c : s->cases)
      for (const StmtRef &b : c.body)
        visit(b, columns);
    if (addsColumn)
      columns.erase(s->counted.index);
  }

  /// The row that `loop` sets whole, if it is a loop over a row's columns
  /// (from 0 below the stride, by one, never leaving early) whose body sets
  /// the buffer at that column in a statement of its own block.
  std::optional<Row> rowSetWhole(const StmtRef &loop, Columns &columns) {
    if (loop->kind != StmtKind::For || !loop->counted.index || loop->counted.step != 1 ||
        !loop->body || loop->body->kind != StmtKind::Block)
      return std::nullopt;
    bool leaves = false;
    forEachStmt(loop->body, [&](const StmtRef &n) {
      leaves |= n->kind == StmtKind::Break || n->kind == StmtKind::Continue ||
                n->kind == StmtKind::Return;
    });
    if (leaves || !addColumn(loop, columns))
      return std::nullopt;
    std::optional<Row> whole, someParts;
    std::set<int64_t> parts;
    const std::string failedBefore = why_;
    for (const StmtRef &c : loop->body->stmts) {
      if (c->kind != StmtKind::Assign || c->assignOp != AssignOp::Set || c->lhs->var != buffer_)
        continue;
      const ExprRef &index = c->lhs->operands[0];
      bool columnIsIndex = c->lhs->operands.size() == 1 && index->kind == ExprKind::Binary &&
                           index->binaryOp == BinaryOp::Add;
      std::optional<Polynomial> p = columnIsIndex ? polynomialOf(index, defs_) : std::nullopt;
      // The column is the loop's index itself, once.
      if (!p || !p->count({loop->counted.index}) || p->at({loop->counted.index}) != 1)
        continue;
      std::optional<Row> row = rowOf(c->lhs->operands, columns, /*write=*/true);
      if (row && columns.at(loop->counted.index) == row->stride) {
        whole = row;
      } else if (row && row->part >= 0 &&
                 (!someParts || (someParts->stride == row->stride &&
                                 someParts->offset == row->offset))) {
        someParts = row;
        parts.insert(row->part);
      }
    }
    // Every part of the row set (positions and velocities) sets it whole.
    if (!whole && someParts &&
        static_cast<int64_t>(parts.size()) == someParts->stride.begin()->second) {
      whole = someParts;
      whole->part = -1;
    }
    why_ = failedBefore; // already said where the statements were visited
    columns.erase(loop->counted.index);
    return whole;
  }

  /// Elements of the buffer set earlier in the blocks being visited, and
  /// whole rows.
  std::vector<ExprRef> setEarlier_;
  std::vector<Row> rowsSetEarlier_;

  const StmtRef &loop_;
  const Var *buffer_;
  Defs defs_; // integers known as polynomials where the visit is
  LoopIntegers integers_;
  std::string why_;
};

/// Whether `s` writes `buffer`: assigns an element, or passes its address
/// to a call (which may write through it).
bool writes(const StmtRef &s, const Var *buffer) {
  if (s->kind == StmtKind::Assign && lvalueVar(s->lhs) == buffer)
    return true;
  bool passed = false;
  for (const ExprRef &e : ownExprs(s))
    forEachExpr(e, [&](const ExprRef &x) {
      passed |= x->var == buffer && x->kind != ExprKind::Index && x->kind != ExprKind::VarRef;
    });
  return passed;
}

/// Whether `s` itself reads `buffer` (an element, or its address passed on).
bool reads(const StmtRef &s, const Var *buffer) {
  const bool sets = s->kind == StmtKind::Assign && s->assignOp == AssignOp::Set &&
                    lvalueVar(s->lhs) == buffer;
  bool read = false;
  for (const ExprRef &e : ownExprs(s))
    forEachExpr(e, [&](const ExprRef &x) { read |= x->var == buffer && !(sets && x == s->lhs); });
  return read;
}

/// Where a loop lies in its function, as far as one buffer goes.
struct Placement {
  bool found = false;       // the loop is in the body
  bool nested = false;      // inside another loop
  bool readBefore = false;  // a statement that runs before it reads the buffer
  bool writtenAfter = false;// a statement that runs after it writes the buffer
};

Placement place(const StmtRef &body, const StmtRef &loop, const Var *buffer) {
  Placement at;
  std::set<const StmtNode *> inside;
  forEachStmt(loop, [&](const StmtRef &n) { inside.insert(n.get()); });
  std::function<void(const StmtRef &, int)> visit = [&](const StmtRef &s, int depth) {
    if (!s)
      return;
    if (s == loop) {
      at.nested = depth > 0;
      at.found = true;
      return;
    }
    if (at.found && !inside.count(s.get()))
      at.writtenAfter |= writes(s, buffer);
    if (!at.found)
      at.readBefore |= reads(s, buffer);
    const bool isLoop =
        s->kind == StmtKind::For || s->kind == StmtKind::While || s->kind == StmtKind::DoWhile;
    forEachChild(s, [&](const StmtRef &c) { visit(c, depth + isLoop); });
  };
  visit(body, 0);
  return at;
}

} // namespace

bool RowFill::holds(bool oldValuesTaped, std::string &why) const {
  why = !placed.empty() ? placed : oldValuesTaped && !readBefore.empty() ? readBefore : rows;
  return why.empty();
}

RowFill analyzeRowFill(const Function &f, const StmtRef &loop, const Var *buffer) {
  RowFill fill;
  const std::string held =
      "it writes the caller's memory ('" + sourceName(*buffer) + "'), which snapshots do not hold, ";
  if (loop->kind != StmtKind::For || !loop->counted.index || loop->counted.step == 0) {
    fill.placed = held + "in a loop that is not counted";
    return fill;
  }
  const Placement at = place(f.body, loop, buffer);
  if (!at.found || at.nested) {
    fill.placed = held + "inside another loop";
    return fill;
  }
  if (at.writtenAfter) {
    fill.placed = held + "and the kernel writes it again after the loop";
    return fill;
  }
  // The reverse sweep puts back what the loop overwrote, for the code
  // before it; a replay would put back what the first run left instead.
  if (at.readBefore)
    fill.readBefore = held + "and the code before it reads what it overwrites";
  RowFinder finder(loop, buffer, definedBefore(f, loop));
  std::string cannot;
  if (!finder.scan(cannot)) {
    fill.rows = held + cannot;
    return fill;
  }
  if (finder.writes.empty()) {
    fill.rows = held + "through a call";
    return fill;
  }
  const Row &written = finder.writes.front();
  for (const Row &w : finder.writes)
    if (w.stride != written.stride || w.offset != written.offset) {
      fill.rows = held + "more than one row per iteration";
      return fill;
    }
  // Going up, rows below the one being written were written by earlier
  // iterations (or never); going down, rows above.
  const int64_t direction = loop->counted.step > 0 ? 1 : -1;
  for (const Row &r : finder.reads)
    if (r.stride != written.stride || (r.offset - written.offset) * direction >= 0) {
      fill.rows = held + "and reads the row it writes or a later one";
      return fill;
    }
  return fill;
}

RowFills rowFills(const Function &f) {
  RowFills fills;
  if (!f.body)
    return fills;
  // Loops not inside another loop: the statements of the body and of the
  // blocks, ifs and switches in it.
  std::function<void(const StmtRef &)> visit = [&](const StmtRef &s) {
    if (!s)
      return;
    if (s->kind == StmtKind::While || s->kind == StmtKind::DoWhile)
      return;
    if (s->kind == StmtKind::For) {
      if (!s->counted.index)
        return;
      ConstVarSet buffers;
      forEachStmt(s->body, [&](const StmtRef &n) {
        if (n->kind == StmtKind::Assign && n->lhs->kind == ExprKind::Index &&
            n->lhs->var->origin == Var::Param && n->lhs->var->isPointer())
          buffers.insert(n->lhs->var);
      });
      for (const Var *b : buffers)
        fills[s.get()].emplace(b, analyzeRowFill(f, s, b));
      return;
    }
    forEachChild(s, visit);
  };
  visit(f.body);
  return fills;
}

std::map<const StmtNode *, std::vector<const Var *>> rowsFilledInPlace(const RowFills &fills) {
  std::map<const StmtNode *, std::vector<const Var *>> filled;
  for (const auto &[loop, buffers] : fills)
    for (const auto &[buffer, fill] : buffers)
      if (fill.fillsRows())
        filled[loop].push_back(buffer);
  return filled;
}

} // namespace cgp
