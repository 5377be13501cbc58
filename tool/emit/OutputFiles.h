//===- OutputFiles.h - writing generated files whole or not at all -*- C++ -*-===//
//
// Outputs are written to a temporary file beside the target and renamed
// over it, so a reader never sees half a file; a file whose contents would
// not change is not touched at all, so its timestamp stays and builds do
// not recompile.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_EMIT_OUTPUTFILES_H
#define CGP_EMIT_OUTPUTFILES_H

#include "llvm/Support/Error.h"

#include <string>

namespace cgp {

/// Writes `contents` to `path` atomically. Sets `changed` to whether the
/// file was written (false when it already held exactly `contents`).
llvm::Error writeFileIfChanged(const std::string &path, const std::string &contents,
                               bool &changed);

} // namespace cgp

#endif // CGP_EMIT_OUTPUTFILES_H
