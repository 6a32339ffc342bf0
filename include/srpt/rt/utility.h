// SPDX-License-Identifier: GPL-2.0
// The handful of <utility>/<type_traits> pieces the core needs.
#pragma once

#include <srpt/rt/types.h>

namespace srpt {

template <class T> struct RemoveReference { using Type = T; };
template <class T> struct RemoveReference<T&> { using Type = T; };
template <class T> struct RemoveReference<T&&> { using Type = T; };
template <class T> using RemoveReferenceT = typename RemoveReference<T>::Type;

template <class T>
constexpr RemoveReferenceT<T>&& move(T&& t) noexcept {
  return static_cast<RemoveReferenceT<T>&&>(t);
}

template <class T>
constexpr T&& forward(RemoveReferenceT<T>& t) noexcept {
  return static_cast<T&&>(t);
}
template <class T>
constexpr T&& forward(RemoveReferenceT<T>&& t) noexcept {
  return static_cast<T&&>(t);
}

template <class T, class U = T>
constexpr T exchange(T& obj, U&& value) noexcept {
  T old = move(obj);
  obj = forward<U>(value);
  return old;
}

template <class T>
constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <class T>
constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }

template <class T, usize N>
constexpr usize array_size(const T (&)[N]) { return N; }

// Disallows copies; moves stay as the class defines them.
class NonCopyable {
 public:
  NonCopyable(const NonCopyable&) = delete;
  NonCopyable& operator=(const NonCopyable&) = delete;

 protected:
  constexpr NonCopyable() = default;
  ~NonCopyable() = default;
};

// Disallows copies and moves: for objects whose address is their identity
// (anything on an intrusive list or handed to the kernel as a context).
class Pinned {
 public:
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  Pinned(Pinned&&) = delete;
  Pinned& operator=(Pinned&&) = delete;

 protected:
  constexpr Pinned() = default;
  ~Pinned() = default;
};

}  // namespace srpt
