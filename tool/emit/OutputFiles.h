//===- OutputFiles.h - writing generated files whole or not at all -*- C++ -*-===//
//
// Outputs are written to a temporary file beside the target and renamed
// over it, so a reader never sees half a file; a file whose contents would
// not change is not touched at all, so its timestamp stays and builds do
// not recompile.
//
// Beside the outputs of each input, cgp-ad keeps two bookkeeping files:
// - NAME.cgp.d, a depfile in Make syntax (the outputs depend on the input
//   and every file it included), for build systems;
// - NAME.cgp.stamp, what the last successful run saw: a hash of the run's
//   command line and tool, and a hash of the contents of every file it read
//   and wrote. A rerun whose stamp still matches exits before parsing.
//
//===----------------------------------------------------------------------===//
#ifndef CGP_EMIT_OUTPUTFILES_H
#define CGP_EMIT_OUTPUTFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cgp {

/// Writes `contents` to `path` atomically. Sets `changed` to whether the
/// file was written (false when it already held exactly `contents`).
llvm::Error writeFileIfChanged(const std::string &path, const std::string &contents,
                               bool &changed);

/// A depfile in Make syntax: one rule, `targets: prerequisites`, one
/// prerequisite a line. Spaces and '#' are escaped with a backslash and '$'
/// is doubled, as GNU make, Ninja and CMake read them.
std::string depfileText(const std::vector<std::string> &targets,
                        const std::vector<std::string> &prerequisites);

/// The hash cgp-ad keeps of a file's contents (XXH3, 64 bits).
uint64_t contentHash(llvm::StringRef contents);

/// What a successful run saw, stored in NAME.cgp.stamp.
struct Stamp {
  uint64_t key = 0; // the tool, its command line and the input's compile command
  std::vector<std::pair<uint64_t, std::string>> files; // content hash, path: read and written
};

/// The stamp as text (one header line, the key, then a line per file).
std::string stampText(const Stamp &stamp);

/// Whether the stamp at `path` exists, has this key, and every file it lists
/// still has the contents it had (a missing file does not match). Reads and
/// hashes those files; never writes.
bool stampMatches(const std::string &path, uint64_t key);

} // namespace cgp

#endif // CGP_EMIT_OUTPUTFILES_H
