// SPDX-License-Identifier: GPL-2.0
// Shared ownership by reference count, for objects that more than one owner
// keeps alive (an RDMA port is held by its device and by configfs target
// port directories that can outlive the device).
//
// RefCounted<T> starts at one reference, which adopt_ref() hands to the first
// RefPtr. The count is atomic; the object is destroyed by whoever drops the
// last reference, in that thread's context, so objects whose destructor may
// sleep must only be released from process context.
#pragma once

#include <srpt/rt/assert.h>
#include <srpt/rt/new.h>
#include <srpt/rt/status.h>
#include <srpt/rt/utility.h>

namespace srpt {

template <class T>
class RefCounted : Pinned {
 public:
  void add_ref() const {
    int old = __atomic_fetch_add(&refs_, 1, __ATOMIC_RELAXED);
    SRPT_ASSERT(old > 0);  // resurrecting a dying object
  }
  // True when this dropped the last reference.
  [[nodiscard]] bool release_ref() const {
    int old = __atomic_fetch_sub(&refs_, 1, __ATOMIC_ACQ_REL);
    SRPT_ASSERT(old > 0);
    return old == 1;
  }
  int ref_count_for_test() const { return __atomic_load_n(&refs_, __ATOMIC_RELAXED); }

 protected:
  RefCounted() = default;
  ~RefCounted() = default;

 private:
  mutable int refs_ = 1;
};

template <class T>
class RefPtr {
 public:
  constexpr RefPtr() = default;
  constexpr RefPtr(nullptr_t) {}  // NOLINT
  // Takes a new reference.
  explicit RefPtr(T* p) : ptr_(p) {
    if (ptr_) ptr_->add_ref();
  }
  RefPtr(const RefPtr& other) : RefPtr(other.ptr_) {}
  RefPtr(RefPtr&& other) noexcept : ptr_(exchange(other.ptr_, nullptr)) {}
  RefPtr& operator=(const RefPtr& other) {
    RefPtr(other).swap(*this);
    return *this;
  }
  RefPtr& operator=(RefPtr&& other) noexcept {
    RefPtr(move(other)).swap(*this);
    return *this;
  }
  ~RefPtr() { reset(); }

  void reset() {
    T* old = exchange(ptr_, nullptr);
    if (old && old->release_ref()) destroy(old);
  }
  void swap(RefPtr& other) { ptr_ = exchange(other.ptr_, ptr_); }

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

  // Adopts the initial reference of a new object.
  static RefPtr adopt(T* p) {
    RefPtr r;
    r.ptr_ = p;
    return r;
  }

 private:
  T* ptr_ = nullptr;
};

template <class T, class Ctx, class... Args>
Result<RefPtr<T>> make_ref(Ctx ctx, Args&&... args) {
  T* raw = new (ctx) T(forward<Args>(args)...);
  if (raw == nullptr) return Error::NoMem;
  return RefPtr<T>::adopt(raw);
}

}  // namespace srpt
