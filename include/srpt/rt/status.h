// SPDX-License-Identifier: GPL-2.0
// Errors are values: Error (a Linux errno), Status (success or an Error) and
// Result<T> (a T or an Error). All are [[nodiscard]]: an ignored failure does
// not compile (-Werror). SRPT_TRY unwraps or returns the error to the caller.
#pragma once

#include <srpt/abi/types.h>
#include <srpt/rt/new.h>
#include <srpt/rt/utility.h>

namespace srpt {

// A positive Linux errno value; crosses the C ABI negated.
class [[nodiscard]] Error {
 public:
  enum Code : int {
    Perm = SRPT_EPERM,
    NoEnt = SRPT_ENOENT,
    Io = SRPT_EIO,
    NoMem = SRPT_ENOMEM,
    Busy = SRPT_EBUSY,
    Exist = SRPT_EEXIST,
    NoDev = SRPT_ENODEV,
    Inval = SRPT_EINVAL,
    NoSpc = SRPT_ENOSPC,
    Range = SRPT_ERANGE,
    NameTooLong = SRPT_ENAMETOOLONG,
    OpNotSupp = SRPT_EOPNOTSUPP,
    TimedOut = SRPT_ETIMEDOUT,
    ConnRefused = SRPT_ECONNREFUSED,
    Shutdown = SRPT_ESHUTDOWN,
  };

  constexpr Error(Code code) : code_(code) {}  // NOLINT: implicit by design
  // From a kernel return value (negative errno); non-negative is a bug.
  static constexpr Error from_kernel(int ret) {
    return Error(static_cast<Code>(ret < 0 ? -ret : SRPT_EIO));
  }

  constexpr Code code() const { return code_; }
  constexpr int to_kernel() const { return -static_cast<int>(code_); }
  constexpr bool operator==(Error other) const { return code_ == other.code_; }
  constexpr bool operator!=(Error other) const { return code_ != other.code_; }

 private:
  Code code_;
};

class [[nodiscard]] Status {
 public:
  constexpr Status() : code_(0) {}
  constexpr Status(Error e) : code_(e.code()) {}  // NOLINT: implicit by design
  constexpr Status(Error::Code c) : code_(c) {}  // NOLINT: `return Error::X;`
  static constexpr Status ok_status() { return Status(); }

  constexpr bool ok() const { return code_ == 0; }
  constexpr Error error() const { return Error(static_cast<Error::Code>(code_)); }
  // 0 or a negative errno, for returning across the C ABI.
  constexpr int to_kernel() const { return -code_; }

 private:
  int code_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T&& value) : has_value_(true) { new (&storage_) T(move(value)); }  // NOLINT
  Result(Error e) : has_value_(false), error_(e) {}  // NOLINT
  Result(Error::Code c) : has_value_(false), error_(c) {}  // NOLINT
  Result(Result&& other) : has_value_(other.has_value_), error_(other.error_) {
    if (has_value_) new (&storage_) T(move(*other.ptr()));
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (has_value_) ptr()->~T();
  }

  bool ok() const { return has_value_; }
  Error error() const { return error_; }
  Status status() const { return has_value_ ? Status() : Status(error_); }

  // Only on a Result known to be ok(); checked by the caller.
  T& value() & { return *ptr(); }
  const T& value() const& { return *ptr(); }
  T&& value() && { return move(*ptr()); }

 private:
  T* ptr() { return reinterpret_cast<T*>(&storage_); }
  const T* ptr() const { return reinterpret_cast<const T*>(&storage_); }

  bool has_value_;
  Error error_ = Error::Io;
  alignas(T) unsigned char storage_[sizeof(T)];
};

namespace detail {
inline Error error_of(const Status& s) { return s.error(); }
template <class T> Error error_of(const Result<T>& r) { return r.error(); }
inline void value_of(Status&&) {}
template <class T> T value_of(Result<T>&& r) { return move(r).value(); }
}  // namespace detail

}  // namespace srpt

// Evaluates a Status or Result<T>; on failure returns its Error from the
// enclosing function, otherwise yields the value (void for Status).
#define SRPT_TRY(expr)                                            \
  ({                                                              \
    auto&& srpt_try_result_ = (expr);                             \
    if (!srpt_try_result_.ok())                                   \
      return ::srpt::detail::error_of(srpt_try_result_);          \
    ::srpt::detail::value_of(::srpt::move(srpt_try_result_));     \
  })
