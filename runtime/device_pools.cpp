// device_pools.cpp - the host's list of the tape pools of generated CUDA
// files (cgp/device_pool.h): each file registers a setter when the program
// starts, and cgp::dev::reserveTapes() calls them all. Plain C++: the
// setters, compiled with each file, do the CUDA calls.
#include "cgp/device_pool.h"

#include <mutex>
#include <vector>

namespace cgp {
namespace rt {
namespace {
struct Setters {
  std::mutex lock;
  std::vector<DeviceTapePoolSetter> list;
};
Setters &setters() {
  static Setters all; // made at first use: files register during static initialisation
  return all;
}
} // namespace

bool addDeviceTapePool(DeviceTapePoolSetter setter) {
  std::lock_guard<std::mutex> hold(setters().lock);
  setters().list.push_back(setter);
  return true;
}

int reserveDeviceTapes(std::size_t bytesPerThread, std::size_t threads) {
  std::lock_guard<std::mutex> hold(setters().lock);
  int first = 0;
  for (DeviceTapePoolSetter set : setters().list) {
    int status = set(bytesPerThread, threads);
    if (first == 0)
      first = status;
  }
  return first;
}

} // namespace rt
} // namespace cgp
