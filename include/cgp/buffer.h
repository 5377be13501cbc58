// cgp/buffer.h - the storage of a std::vector local in generated code.
//
// cgp-ad lowers a kernel's `std::vector<double> v(n);` to a buffer that the
// generated function owns: a Buffer `v_storage`, sized where the vector is
// declared, and a plain `double *__restrict v` that the generated code
// indexes and passes on, pointed at the elements by refresh() after each
// sizing (a local pointer the compiler knows to be unaliased, as fast as a
// local array).
// Its elements come from a per-thread pool of blocks that outlives the
// call, so a gradient called again with the same sizes allocates nothing,
// as the tape does. The adjoint (or tangent) of such a local is a Shadow:
// it takes the size of its primal whenever that is sized. Memory it never
// held before is zero-filled; elements it held keep their values when the
// primal shrinks and grows again, as a replay from a snapshot does in the
// reverse sweep: there they hold what the reverse sweep has added so far
// for those elements (zero in the forward sweep, where nothing adds).
#ifndef CGP_BUFFER_H
#define CGP_BUFFER_H

#include <cstddef>
#include <cstring>

namespace cgp {
namespace rt {

/// A block of at least `bytes` bytes from the calling thread's pool; its
/// real size in `capacity`.
void *takeBlock(std::size_t bytes, std::size_t &capacity);
/// Gives a block back to the calling thread's pool.
void giveBlock(void *block, std::size_t capacity);

template <class T> class Shadow;

template <class T> class Buffer {
public:
  Buffer() = default;
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() {
    if (data_)
      giveBlock(data_, capacity_);
  }

  /// Makes the buffer hold `n` elements: the first ones it held stay, as
  /// do those it held before it last shrank; others are unspecified. Its
  /// shadow, if any, is sized too: its elements stay, and those it never
  /// held are zero. Returns n.
  std::size_t allocate(std::size_t n) {
    if (n > capacity_ / sizeof(T)) {
      std::size_t capacity = 0;
      T *fresh = static_cast<T *>(takeBlock(n * sizeof(T), capacity));
      if (data_) {
        std::memcpy(fresh, data_, reached_ * sizeof(T));
        giveBlock(data_, capacity_);
      }
      data_ = fresh;
      capacity_ = capacity;
    }
    size_ = n;
    if (n > reached_)
      reached_ = n;
    if (shadow_)
      shadow_->grownWithZeros(n);
    return n;
  }

  std::size_t size() const { return size_; }
  T *data() { return data_; }
  const T *data() const { return data_; }
  operator T *() { return data_; }
  operator const T *() const { return data_; }

protected:
  void zeroed(std::size_t n) {
    allocate(n);
    std::memset(static_cast<void *>(data_), 0, n * sizeof(T));
  }
  void grownWithZeros(std::size_t n) {
    std::size_t old = reached_;
    allocate(n);
    if (n > old)
      std::memset(static_cast<void *>(data_ + old), 0, (n - old) * sizeof(T));
  }

private:
  friend class Shadow<T>;
  T *data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t reached_ = 0; // the most elements it held: those it keeps
  std::size_t capacity_ = 0;
  Buffer *shadow_ = nullptr;
};

/// The adjoint or tangent of a Buffer: as many elements as `primal`, zero
/// where it never held one.
template <class T> class Shadow : public Buffer<T> {
public:
  explicit Shadow(Buffer<T> &primal) : primal_(primal) {
    primal.shadow_ = this;
    if (primal.size())
      this->zeroed(primal.size());
  }
  Shadow(const Shadow &) = delete;
  Shadow &operator=(const Shadow &) = delete;
  ~Shadow() { primal_.shadow_ = nullptr; }

private:
  Buffer<T> &primal_;
};

/// Sizes the storage of a std::vector local where it is declared.
template <class T> inline void allocate(Buffer<T> &b, std::size_t n) { b.allocate(n); }

/// Points `elements` at the elements of `b`, after `b` was sized. Generated
/// code indexes that plain pointer, which the compiler knows to be unaliased.
template <class T> inline void refresh(Buffer<T> &b, T *__restrict &elements) {
  elements = b.data();
}

/// A std::vector that generated code passed to a function with a custom
/// pullback (or to its pullback) by reference must keep its size: the
/// generated code holds its elements with the size they had. Stops the
/// program, naming the function, when that function resized it.
[[noreturn]] void sizeChanged(std::size_t size, std::size_t now, const char *function);
inline void checkSizeKept(std::size_t size, std::size_t now, const char *function) {
  if (size != now)
    sizeChanged(size, now, function);
}

} // namespace rt
} // namespace cgp

#endif // CGP_BUFFER_H
