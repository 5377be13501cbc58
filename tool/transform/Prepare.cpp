//===- Prepare.cpp - a function made ready for differentiation ------------===//
#include "transform/Prepare.h"

#include "transform/CountedLoops.h"
#include "transform/HoistCalls.h"
#include "transform/HoistDecls.h"
#include "transform/NormalizeControl.h"
#include "transform/ProfileHooks.h"
#include "transform/ScalarReplacement.h"

namespace cgp {

void prepareFunction(Function &f, Module &module) {
  if (f.prepared || !f.body)
    return;
  if (f.isKernel)
    replaceSmallArrays(f, module); // before anything counts on its statements
  bool instrument = f.isKernel && module.instrument;
  if (instrument)
    addBranchHooks(f, module); // the user's `if`s, before flags add more
  normalizeControl(f, module);
  if (instrument)
    addLoopHooks(f, module);
  hoistCalls(f, module);
  markCountedLoops(f);
  f.locals = hoistDecls(f);
  f.prepared = true;
}

} // namespace cgp
