//===- ToBeRecorded.cpp - which overwritten values go on the tape ---------===//
//
// A forward dataflow pass over the set R of variables "required" by the
// reverse sweep of the statements executed so far. At an overwrite of x
// with x in R, x is pushed. A scalar leaves R after its overwrite (the new
// value is needed only if a later statement reads it, which puts it back);
// an array stays (only one element changed), but for a loop that writes
// each of its elements and reads none of them back in its reverse sweep,
// after which it leaves R as a whole. The index of a counted loop is
// never pushed: the reverse loop recomputes it. What a loop's reverse reads
// as it starts (the bounds it computes its trip count from) joins R at the
// loop's end.
//
// An invertible integer update (InverseUpdates.h) of x with x in R is
// inverted instead of pushed: the reverse sweep computes the old value from
// the new one, so x stays in R (its new value is needed now), and so do the
// variables of the step, which the inverse reads again. A reloadable load
// (Reloads.h) into an array in R is reloaded instead of pushed, the same
// way, when the array is not in R where its loop starts: the reload gives
// back every iteration's old value but the first one's. A write into a row
// of a caller's buffer that its loop fills in place (RowWrites.h) pushes
// nothing when the buffer is not in R where the loop starts.
//
//===----------------------------------------------------------------------===//
#include "analysis/ToBeRecorded.h"

#include "analysis/Appends.h"

namespace cgp {
namespace {

class TbrAnalysis {
public:
  TbrAnalysis(const Function &f, const std::map<const StmtNode *, VarSet> &reads,
              Summaries &sums, const InverseUpdates &inverses, const Reloads &reloads,
              const std::map<const StmtNode *, std::vector<const Var *>> &rowsInPlace,
              TbrResult &out)
      : f_(f), reads_(reads), sums_(sums), inverses_(inverses), reloads_(reloads),
        rowsInPlace_(rowsInPlace), out_(out), fresh_(freshElementWrites(f)) {}

  VarSet forward(const StmtRef &s, VarSet r) {
    if (!s)
      return r;
    switch (s->kind) {
    case StmtKind::Block:
      for (const StmtRef &c : s->stmts)
        r = forward(c, r);
      return r;
    case StmtKind::Assign:
    case StmtKind::Eval: {
      // A function with a custom pullback is called as it is: its pullback
      // sees what it leaves in memory, so its own reads need nothing kept.
      bool custom = s->value && s->value->kind == ExprKind::Call &&
                    !s->value->callee->pullback.empty();
      const VarSet readBefore = custom ? r : VarSet();
      auto it = reads_.find(s.get());
      if (it != reads_.end())
        r.insert(it->second.begin(), it->second.end());
      if (s->value && s->value->kind == ExprKind::Call) {
        const ExprRef &c = s->value;
        const FunctionSummary &sum = sums_.of(c->callee);
        const VarSet &needed = custom ? readBefore : r;
        std::vector<bool> keeps(c->operands.size(), false);
        for (size_t i = 0; i < c->operands.size(); ++i) {
          const ExprRef &arg = c->operands[i];
          if (arg->kind == ExprKind::Address && sum.writesParam[i] && needed.count(arg->var)) {
            keeps[i] = true;
            collectVars(arg->operands[0], scratch_);
          }
        }
        out_.callKeeps[s.get()] = keeps;
        r.insert(scratch_.begin(), scratch_.end());
        scratch_.clear();
      }
      if (s->kind == StmtKind::Assign) {
        Var *x = s->lhs->var;
        bool needed = r.count(x) != 0;
        const std::vector<Var *> *step = inverses_.find(s.get());
        if (needed && step) {
          out_.pushes.erase(s.get());
          out_.inverts.insert(s.get());
          r.insert(step->begin(), step->end());
          return r;
        }
        out_.inverts.erase(s.get());
        const Reload *reload = reloads_.find(s.get());
        if (needed && reload && !neededBefore_.count(reload->loop)) {
          out_.pushes.erase(s.get());
          out_.reloads.insert(s.get());
          r.insert(reload->operands.begin(), reload->operands.end());
          return r;
        }
        out_.reloads.erase(s.get());
        bool push = needed && !filling_.count(x) && !fresh_.count(s.get());
        if (push) {
          out_.pushes.insert(s.get());
          for (const ExprRef &i : s->lhs->operands)
            collectVars(i, scratch_);
          r.insert(scratch_.begin(), scratch_.end());
          scratch_.clear();
        } else {
          out_.pushes.erase(s.get());
        }
        if (x->isScalar())
          r.erase(x);
      }
      return r;
    }
    case StmtKind::If: {
      VarSet a = forward(s->body, r);
      VarSet b = forward(s->elseBody, r);
      a.insert(b.begin(), b.end());
      // A condition the reverse sweep evaluates again reads its variables.
      if (auto it = reads_.find(s.get()); it != reads_.end())
        a.insert(it->second.begin(), it->second.end());
      return a;
    }
    case StmtKind::For:
    case StmtKind::While:
    case StmtKind::DoWhile: {
      bool counted = s->kind == StmtKind::For && s->counted.index;
      if (s->init && !(counted && s->init->kind == StmtKind::Decl))
        r = forward(s->init, r);
      // A reload gives back no value of before the loop: the arrays it
      // loads into must not be needed there.
      neededBefore_.erase(s.get());
      for (const auto &[load, reload] : reloads_.at)
        if (reload.loop == s.get() && r.count(load->lhs->var))
          neededBefore_.insert(s.get());
      // Rows filled in place keep no old value only where nothing before
      // the loop needs the buffer (such loops are not nested).
      if (auto rows = rowsInPlace_.find(s.get()); rows != rowsInPlace_.end())
        for (const Var *b : rows->second)
          if (!r.count(const_cast<Var *>(b)))
            filling_.insert(b);
      VarSet head = r;
      while (true) {
        VarSet end = forward(s->body, head);
        if (!counted)
          end = forward(s->step, end);
        end.insert(r.begin(), r.end());
        if (end == head)
          break;
        head = end;
      }
      if (rowsInPlace_.count(s.get()))
        filling_.clear();
      if (counted && s->init->kind == StmtKind::Decl)
        head.erase(s->counted.index); // the loop's own index ends with it
      if (Var *a = arrayRefilled(s))
        head.erase(a);
      // What the loop's own reverse reads as it starts (its bounds).
      if (auto it = reads_.find(s.get()); it != reads_.end())
        head.insert(it->second.begin(), it->second.end());
      return head;
    }
    default:
      return r;
    }
  }

private:
  /// The array whose every element a counted loop writes anew, when the
  /// reverse sweep of the loop reads none of the values the loop leaves in
  /// it: no statement executed before the loop ends needs the array's
  /// values after it (the loop's pushes give back those of before), so the
  /// array leaves R there, as a scalar does after its assignment.
  Var *arrayRefilled(const StmtRef &loop) const {
    if (!loop->counted.index || !loop->body || loop->body->kind != StmtKind::Block)
      return nullptr;
    Var *a = nullptr;
    for (const StmtRef &c : loop->body->stmts)
      if (c->kind == StmtKind::Assign && !c->lhs->var->blockShared &&
          writesEveryElement(f_, loop, c.get()))
        a = c->lhs->var;
    if (!a)
      return nullptr;
    bool readOrEscapes = false;
    forEachStmt(loop->body, [&](const StmtRef &n) {
      if (n->kind == StmtKind::Break || n->kind == StmtKind::Continue ||
          n->kind == StmtKind::Return)
        readOrEscapes = true; // an iteration may end before its write
      auto it = reads_.find(n.get());
      if (it != reads_.end() && it->second.count(a))
        readOrEscapes = true;
      for (const ExprRef &e : ownExprs(n))
        forEachExpr(e, [&](const ExprRef &x) {
          if (x->kind == ExprKind::Address && x->var == a)
            readOrEscapes = true; // a call may read or write it
        });
    });
    return readOrEscapes ? nullptr : a;
  }

  const Function &f_;
  const std::map<const StmtNode *, VarSet> &reads_;
  Summaries &sums_;
  const InverseUpdates &inverses_;
  const Reloads &reloads_;
  const std::map<const StmtNode *, std::vector<const Var *>> &rowsInPlace_;
  TbrResult &out_;
  /// Buffers the loop being analysed fills in place, not needed before it.
  std::set<const Var *> filling_;
  /// push_backs onto memory their vector never held (Appends.h).
  const std::set<const StmtNode *> fresh_;
  /// Loops with a reloadable load into an array needed where they start.
  std::set<const StmtNode *> neededBefore_;
  std::vector<Var *> scratch_;
};

} // namespace

TbrResult analyzeToBeRecorded(const Function &f,
                              const std::map<const StmtNode *, VarSet> &reads,
                              const VarSet &neededAtEntry, Summaries &summaries,
                              const InverseUpdates &inverses, const Reloads &reloads,
                              const std::map<const StmtNode *, std::vector<const Var *>>
                                  &rowsInPlace) {
  TbrResult result;
  TbrAnalysis analysis(f, reads, summaries, inverses, reloads, rowsInPlace, result);
  result.neededAtExit = analysis.forward(f.body, neededAtEntry);
  return result;
}

} // namespace cgp
