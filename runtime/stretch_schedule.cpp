// stretch_schedule.cpp - reversing a loop whose trip count was unknown
// until it ended: one binomial schedule per stretch between the snapshots
// the loop kept while it ran (see StretchSchedule in cgp/schedule.h).
//
// The snapshots lie before iterations 0, d, 2d, ..., (count - 1) d, in
// slots of the same numbers. Stretch j covers iterations [j d, (j + 1) d),
// the last one up to the trip count. It is reversed after every later one,
// when slots j + 1 and up are free again, so its schedule gets
// snapshots - j slots, slot 0 of them being slot j (the stretch's start).
#include "cgp/schedule.h"

#include <algorithm>

namespace cgp {
namespace rt {

StretchSchedule::StretchSchedule(std::int64_t trips, int count, std::int64_t stride,
                                 int snapshots, std::int64_t segment)
    : trips_(trips < 0 ? 0 : trips), stride_(stride < 1 ? 1 : stride),
      segment_(segment < 1 ? 1 : segment), count_(trips_ > 0 ? std::max(count, 1) : 0),
      snapshots_(std::max(snapshots, count_ + 1)), stretch_(count_ - 1), peak_(count_) {}

ScheduleAction StretchSchedule::next() {
  for (;;) {
    if (!sub_) {
      if (stretch_ < 0)
        return ScheduleAction{};
      from_ = stretch_ * stride_;
      std::int64_t to = stretch_ + 1 == count_ ? trips_ : (stretch_ + 1) * stride_;
      sub_.emplace(to - from_, snapshots_ - stretch_, segment_);
      sub_->next(); // "store the start": slot `stretch_` holds it already
      ScheduleAction restore;
      restore.kind = ScheduleAction::Restore;
      restore.step = from_;
      restore.slot = stretch_;
      return restore;
    }
    ScheduleAction a = sub_->next();
    switch (a.kind) {
    case ScheduleAction::Done:
      sub_.reset();
      --stretch_;
      continue;
    case ScheduleAction::Store:
    case ScheduleAction::Restore:
      a.slot += stretch_;
      peak_ = std::max(peak_, stretch_ + sub_->peakSnapshots());
      break;
    case ScheduleAction::Advance:
      a.to += from_;
      replayed_ += a.to - (a.step + from_);
      break;
    default: // Tape, Reverse
      a.to += from_;
      break;
    }
    a.step += from_;
    return a;
  }
}

} // namespace rt
} // namespace cgp
