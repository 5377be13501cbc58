//===- OutputFiles.cpp - writing generated files whole or not at all ------===//
//
// Also the depfile's Make syntax and the stamp of the last successful run
// (see OutputFiles.h).
//
//===----------------------------------------------------------------------===//
#include "emit/OutputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

namespace cgp {

llvm::Error writeFileIfChanged(const std::string &path, const std::string &contents,
                               bool &changed) {
  changed = false;
  if (auto existing = llvm::MemoryBuffer::getFile(path, /*IsText=*/false))
    if ((*existing)->getBuffer() == contents)
      return llvm::Error::success();

  llvm::SmallString<256> temp;
  int fd = -1;
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  llvm::SmallString<256> model(dir.empty() ? "." : dir);
  llvm::sys::path::append(model, llvm::sys::path::filename(path) + ".tmp-%%%%%%");
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return llvm::createStringError(ec, "cannot create a temporary file beside '%s': %s",
                                   path.c_str(), ec.message().c_str());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.flush();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return llvm::createStringError(ec, "cannot write '%s': %s", temp.c_str(),
                                     ec.message().c_str());
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError(ec, "cannot write '%s': %s", path.c_str(),
                                   ec.message().c_str());
  }
  changed = true;
  return llvm::Error::success();
}

namespace {

/// A path as Make reads it: '\ ' for a space, '\#' for '#', '$$' for '$'.
/// (A backslash elsewhere is kept: Make and Ninja treat it as an ordinary
/// character there.)
std::string makeEscaped(llvm::StringRef path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == ' ' || c == '\t' || c == '#')
      out += '\\';
    else if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

const char *const StampHeader = "cgp-ad-stamp 1";

std::string hex16(uint64_t value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format_hex_no_prefix(value, 16);
  return text;
}

bool parseHex16(llvm::StringRef text, uint64_t &value) {
  return text.size() == 16 && !text.getAsInteger(16, value);
}

} // namespace

std::string depfileText(const std::vector<std::string> &targets,
                        const std::vector<std::string> &prerequisites) {
  std::string text;
  for (size_t i = 0; i < targets.size(); ++i)
    text += (i ? " " : "") + makeEscaped(targets[i]);
  text += ":";
  for (const std::string &p : prerequisites)
    text += " \\\n  " + makeEscaped(p);
  text += "\n";
  return text;
}

uint64_t contentHash(llvm::StringRef contents) { return llvm::xxh3_64bits(contents); }

std::string stampText(const Stamp &stamp) {
  std::string text = std::string(StampHeader) + "\nkey " + hex16(stamp.key) + "\n";
  for (const auto &[hash, path] : stamp.files)
    text += "file " + hex16(hash) + " " + path + "\n";
  return text;
}

bool stampMatches(const std::string &path, uint64_t key) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return false;
  llvm::SmallVector<llvm::StringRef, 64> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  uint64_t stored = 0;
  if (lines.size() < 2 || lines[0] != StampHeader || !lines[1].consume_front("key ") ||
      !parseHex16(lines[1], stored) || stored != key)
    return false;
  for (size_t i = 2; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i];
    uint64_t hash = 0;
    if (!line.consume_front("file ") || line.size() < 18 || line[16] != ' ' ||
        !parseHex16(line.take_front(16), hash))
      return false;
    auto file = llvm::MemoryBuffer::getFile(line.drop_front(17), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file || contentHash((*file)->getBuffer()) != hash)
      return false;
  }
  return true;
}

} // namespace cgp
