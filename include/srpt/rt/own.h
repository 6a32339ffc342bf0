// SPDX-License-Identifier: GPL-2.0
// Own<T>: the single owner of a heap object made with `new (alloc_*) T`.
//
// Move-only. Moving leaves the source empty, and every access to an empty
// handle is a reported bug (SRPT_CHECK_FAILED), so a moved-from handle cannot
// be used to reach the object a second time. Giving up ownership is explicit
// and only possible on an rvalue: `move(own).release()`.
#pragma once

#include <srpt/rt/assert.h>
#include <srpt/rt/new.h>
#include <srpt/rt/status.h>
#include <srpt/rt/utility.h>

namespace srpt {

template <class T>
class Own {
 public:
  constexpr Own() = default;
  constexpr Own(nullptr_t) {}  // NOLINT
  // Adopts a freshly allocated object (nullptr allowed).
  static Own adopt(T* raw) { return Own(raw); }

  Own(Own&& other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  template <class U>
  Own(Own<U>&& other) noexcept : ptr_(move(other).release()) {}  // NOLINT
  Own& operator=(Own&& other) noexcept {
    if (this != &other) reset(move(other).release());
    return *this;
  }
  Own(const Own&) = delete;
  Own& operator=(const Own&) = delete;
  ~Own() { reset(); }

  explicit operator bool() const { return ptr_ != nullptr; }
  T* get() const { return ptr_; }
  T& operator*() const {
    SRPT_ASSERT(ptr_ != nullptr);
    return *ptr_;
  }
  T* operator->() const {
    SRPT_ASSERT(ptr_ != nullptr);
    return ptr_;
  }

  // The caller becomes responsible for destroy()ing the object.
  [[nodiscard]] T* release() && { return exchange(ptr_, nullptr); }

  void reset(T* p = nullptr) {
    T* old = exchange(ptr_, p);
    destroy(old);
  }

 private:
  explicit Own(T* raw) : ptr_(raw) {}
  T* ptr_ = nullptr;
};

// Allocates and constructs a T, or Error::NoMem.
template <class T, class Ctx, class... Args>
Result<Own<T>> make_own(Ctx ctx, Args&&... args) {
  T* raw = new (ctx) T(forward<Args>(args)...);
  if (raw == nullptr) return Error::NoMem;
  return Own<T>::adopt(raw);
}

}  // namespace srpt
