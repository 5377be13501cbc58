// cgp/schedule_action.h - one step of a loop's reversal schedule: what
// generated code does next (store or restore a snapshot, run iterations
// untaped or taped, reverse them). The schedules that produce these
// (cgp/schedule.h) are the runtime's business; generated code sees only
// this, through LoopCheckpoints::next() (cgp/checkpoint.h).
#ifndef CGP_SCHEDULE_ACTION_H
#define CGP_SCHEDULE_ACTION_H

#include "cgp/host_device.h"

#include <cstdint>

namespace cgp {
namespace rt {

/// What the loop does next, in the reverse sweep (and in the forward sweep
/// for the first actions: the forward sweep runs the loop up to the last
/// iteration, taking snapshots on the way).
struct ScheduleAction {
  enum Kind : std::uint8_t {
    Store,   // save the state (before iteration `step`) in slot `slot`
    Restore, // load the state from slot `slot` (it is before iteration `step`)
    Advance, // run iterations [step, to) without taping them
    Tape,    // run iterations [step, to) taped (their reverse comes later)
    Reverse, // reverse iterations [step, to), last first: their tape is on top
    Keep,    // iterations taped first end here (forward: push the variables
             // declared in the loop's body; reverse: pop them back)
    Done,    // every iteration has been reversed
  };
  Kind kind = Done;
  std::int64_t step = 0;
  std::int64_t to = 0;
  int slot = 0;

  CGP_HOST_DEVICE bool isStore() const { return kind == Store; }
  CGP_HOST_DEVICE bool isRestore() const { return kind == Restore; }
  CGP_HOST_DEVICE bool isAdvance() const { return kind == Advance; }
  CGP_HOST_DEVICE bool isTape() const { return kind == Tape; }
  CGP_HOST_DEVICE bool isReverse() const { return kind == Reverse; }
  CGP_HOST_DEVICE bool isKeep() const { return kind == Keep; }
};

} // namespace rt
} // namespace cgp

#endif // CGP_SCHEDULE_ACTION_H
