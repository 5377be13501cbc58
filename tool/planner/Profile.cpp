//===- Profile.cpp - a profile of real runs, for the planner --------------===//
#include "planner/Profile.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace cgp {

bool loadProfile(const std::string &path, ProfileData &out, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = buffer.getError().message();
    return false;
  }
  if ((*buffer)->getBufferSize() > (64u << 20)) {
    error = "larger than 64 MiB";
    return false;
  }
  return rt::parseProfile((*buffer)->getBuffer().str(), out, error);
}

std::string profileKernelName(const Function &kernel) {
  std::string q = kernel.qualifiedName();
  return q.rfind("::", 0) == 0 ? q.substr(2) : q;
}

std::string profileFileName(const Function &kernel) {
  return llvm::sys::path::filename(kernel.pos.file).str();
}

const KernelStats *profileOf(const ProfileData *profile, const Function &kernel) {
  if (!profile || !kernel.isKernel)
    return nullptr;
  auto found = profile->find({profileKernelName(kernel), profileFileName(kernel)});
  return found == profile->end() ? nullptr : &found->second;
}

} // namespace cgp
