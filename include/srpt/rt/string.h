// SPDX-License-Identifier: GPL-2.0
// StringView: a pointer and a length, for names that arrive from configfs and
// from the wire (neither is guaranteed to be NUL-terminated), and FixedString:
// a bounded, always terminated buffer for names the core keeps.
#pragma once

#include <srpt/rt/types.h>
#include <srpt/rt/utility.h>

namespace srpt {

class StringView {
 public:
  constexpr StringView() = default;
  constexpr StringView(const char* p, usize n) : p_(p), n_(n) {}
  // From a NUL-terminated string (nullptr is the empty string).
  static constexpr StringView from_cstr(const char* s) {
    usize n = 0;
    if (s)
      while (s[n]) n++;
    return StringView(s, n);
  }
  template <usize N>
  constexpr StringView(const char (&lit)[N]) : p_(lit), n_(N - 1) {}  // NOLINT

  constexpr const char* data() const { return p_; }
  constexpr usize size() const { return n_; }
  constexpr bool empty() const { return n_ == 0; }
  constexpr char operator[](usize i) const { return p_[i]; }

  constexpr StringView substr(usize pos, usize len = ~usize{0}) const {
    if (pos > n_) pos = n_;
    return StringView(p_ + pos, min(len, n_ - pos));
  }
  constexpr bool starts_with(StringView prefix) const {
    return prefix.n_ <= n_ && substr(0, prefix.n_) == prefix;
  }
  // Drops one trailing "\n" (configfs writes usually end with one).
  constexpr StringView trim_newline() const {
    return (n_ > 0 && p_[n_ - 1] == '\n') ? StringView(p_, n_ - 1) : *this;
  }
  constexpr bool operator==(StringView o) const {
    if (n_ != o.n_) return false;
    for (usize i = 0; i < n_; i++)
      if (p_[i] != o.p_[i]) return false;
    return true;
  }
  constexpr bool operator!=(StringView o) const { return !(*this == o); }

 private:
  const char* p_ = "";
  usize n_ = 0;
};

// Value of a hex digit (either case), or -1.
constexpr int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
constexpr char hex_digit(unsigned v) { return "0123456789abcdef"[v & 0xf]; }

template <usize N>
class FixedString {
 public:
  constexpr FixedString() = default;
  // Returns false (and leaves the string empty) when s does not fit.
  [[nodiscard]] constexpr bool assign(StringView s) {
    if (s.size() >= N) {
      clear();
      return false;
    }
    for (usize i = 0; i < s.size(); i++) buf_[i] = s[i];
    len_ = s.size();
    buf_[len_] = '\0';
    return true;
  }
  // Appends a character; false when full.
  [[nodiscard]] constexpr bool push_back(char c) {
    if (len_ + 1 >= N) return false;
    buf_[len_++] = c;
    buf_[len_] = '\0';
    return true;
  }
  constexpr void clear() {
    len_ = 0;
    buf_[0] = '\0';
  }
  constexpr const char* c_str() const { return buf_; }
  constexpr usize size() const { return len_; }
  constexpr StringView view() const { return StringView(buf_, len_); }
  static constexpr usize capacity() { return N - 1; }

 private:
  char buf_[N] = {};
  usize len_ = 0;
};

// Appends the low `digits` hex digits of v, most significant first
// (lowercase); false when the string is full.
template <usize N>
[[nodiscard]] constexpr bool append_hex(FixedString<N>& s, u64 v, int digits) {
  for (int i = digits - 1; i >= 0; i--)
    if (!s.push_back(hex_digit(static_cast<unsigned>(v >> (4 * i))))) return false;
  return true;
}

}  // namespace srpt
