//===- OutputFiles.cpp - writing generated files whole or not at all ------===//
#include "emit/OutputFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

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

} // namespace cgp
