// SPDX-License-Identifier: GPL-2.0
// Allocation for the core.
//
// Every allocation names its context and may fail:
//
//   Foo* foo = new (srpt::alloc_sleep) Foo(args);   // nullptr when out of memory
//
// The plain `new T` is deliberately not provided in the kernel build: it
// cannot report failure without exceptions, so using it fails at modpost
// ("_Znwm undefined"). Objects are freed through srpt::destroy() (or the
// owning handles in own.h / refptr.h), never with `delete`: on the host the
// global operator delete belongs to the C++ library, not to our allocator.
#pragma once

#include <srpt/abi/alloc.h>
#include <srpt/rt/types.h>

namespace srpt {

struct AllocSleep {};
struct AllocAtomic {};
// Process context: may sleep (GFP_KERNEL).
inline constexpr AllocSleep alloc_sleep{};
// Any context: never sleeps, fails sooner (GFP_ATOMIC).
inline constexpr AllocAtomic alloc_atomic{};

}  // namespace srpt

// The allocating forms. noexcept makes the compiler test for nullptr before
// running the constructor, so a failed allocation yields nullptr.
inline void* operator new(srpt::usize size, srpt::AllocSleep) noexcept {
  return srpt_kzalloc(size, SRPT_ALLOC_SLEEP);
}
inline void* operator new(srpt::usize size, srpt::AllocAtomic) noexcept {
  return srpt_kzalloc(size, SRPT_ALLOC_ATOMIC);
}
inline void* operator new[](srpt::usize size, srpt::AllocSleep) noexcept {
  return srpt_kzalloc(size, SRPT_ALLOC_SLEEP);
}
inline void* operator new[](srpt::usize size, srpt::AllocAtomic) noexcept {
  return srpt_kzalloc(size, SRPT_ALLOC_ATOMIC);
}
// Matching placement deletes; only called if a constructor threw, which
// cannot happen without exceptions, but the language wants them declared.
inline void operator delete(void* p, srpt::AllocSleep) noexcept { srpt_kfree(p); }
inline void operator delete(void* p, srpt::AllocAtomic) noexcept { srpt_kfree(p); }

#if defined(__KERNEL__)
// Placement new: <new> does not exist in a freestanding -nostdinc build.
inline void* operator new(srpt::usize, void* where) noexcept { return where; }
inline void* operator new[](srpt::usize, void* where) noexcept { return where; }
#else
#include <new>
#endif

namespace srpt {

// Ends the life of an object made by `new (alloc_*) T` and frees it.
// For polymorphic T the destructor is virtual and the object must not use
// multiple inheritance, so the base pointer is the allocation's address.
template <class T>
void destroy(T* obj) noexcept {
  if (obj == nullptr) return;
  obj->~T();
  srpt_kfree(obj);
}

// Array form: new (alloc_*) T[n] of a trivially destructible T.
template <class T>
void destroy_array(T* arr) noexcept {
  static_assert(__has_trivial_destructor(T),
                "destroy_array frees without running destructors");
  srpt_kfree(arr);
}

}  // namespace srpt
