// cgp/snapshot_cursor.h - how a loop's state goes into a snapshot slot and
// comes back out, written once for the host's LoopCheckpoints
// (cgp/checkpoint.h) and the device's (cgp/device_checkpoint.h). Generated
// code calls beginSave(slot) or beginLoad(slot) on the checkpoints object,
// then put(v) / v = getValue<T>() / get(array) for each state variable in
// order (putElements(v, n) / getElements(v, n) for a std::vector local's
// elements, or a span of a caller's buffer); the object points the cursor at the slot.
#ifndef CGP_SNAPSHOT_CURSOR_H
#define CGP_SNAPSHOT_CURSOR_H

#include "cgp/host_device.h"

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace cgp {
namespace sched {

class SnapshotCursor {
public:
  /// Saves a scalar (by value: its address is never taken) or an array.
  template <class T, class = typename std::enable_if<!std::is_pointer<T>::value>::type>
  CGP_HOST_DEVICE void put(T value) {
    std::memcpy(cursor_, &value, sizeof(T));
    cursor_ += sizeof(T);
  }
  template <class T, std::size_t N> CGP_HOST_DEVICE void put(const T (&values)[N]) {
    std::memcpy(cursor_, values, sizeof(T) * N);
    cursor_ += sizeof(T) * N;
  }
  /// Saves the `n` elements at `values` (a std::vector local's, or the
  /// span of a caller's buffer that a loop overwrites), or reads them back
  /// into the same storage.
  template <class T> CGP_HOST_DEVICE void putElements(const T *values, std::size_t n) {
    if (n == 0)
      return; // `values` may then be no valid pointer
    std::memcpy(cursor_, values, sizeof(T) * n);
    cursor_ += sizeof(T) * n;
  }
  template <class T> CGP_HOST_DEVICE void getElements(T *values, std::size_t n) {
    if (n == 0)
      return;
    std::memcpy(values, cursor_, sizeof(T) * n);
    cursor_ += sizeof(T) * n;
  }
  template <class T> CGP_HOST_DEVICE T getValue() {
    T value;
    std::memcpy(&value, cursor_, sizeof(T));
    cursor_ += sizeof(T);
    return value;
  }
  template <class T> CGP_HOST_DEVICE void get(T &value) {
    std::memcpy(&value, cursor_, sizeof(T));
    cursor_ += sizeof(T);
  }

protected:
  unsigned char *cursor_ = nullptr;
};

} // namespace sched
} // namespace cgp

#endif // CGP_SNAPSHOT_CURSOR_H
