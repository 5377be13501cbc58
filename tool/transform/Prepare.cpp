//===- Prepare.cpp - a function made ready for differentiation ------------===//
#include "transform/Prepare.h"

#include "transform/CountedLoops.h"
#include "transform/HoistCalls.h"
#include "transform/HoistDecls.h"
#include "transform/NormalizeControl.h"

namespace cgp {

void prepareFunction(Function &f, Module &module) {
  if (f.prepared || !f.body)
    return;
  normalizeControl(f, module);
  hoistCalls(f, module);
  markCountedLoops(f);
  f.locals = hoistDecls(f);
  f.prepared = true;
}

} // namespace cgp
