// SPDX-License-Identifier: GPL-2.0
// Big-endian wire fields. SRP and IB carry every multi-byte field in network
// byte order; a BeN field can only be read and written through get()/set(),
// so a host-order value is never mistaken for a wire one. The types hold
// bytes, so they have alignment 1 and can overlay any offset of an IU.
#pragma once

#include <srpt/rt/types.h>

namespace srpt {

template <class T, usize N>
class BigEndian {
 public:
  constexpr BigEndian() = default;
  constexpr T get() const {
    T v = 0;
    for (usize i = 0; i < N; i++) v = static_cast<T>((v << 8) | bytes_[i]);
    return v;
  }
  constexpr void set(T v) {
    for (usize i = N; i-- > 0;) {
      bytes_[i] = static_cast<u8>(v & 0xff);
      v = static_cast<T>(v >> 8);
    }
  }
  static constexpr BigEndian from(T v) {
    BigEndian b;
    b.set(v);
    return b;
  }

 private:
  u8 bytes_[N] = {};
};

using Be16 = BigEndian<u16, 2>;
using Be32 = BigEndian<u32, 4>;
using Be64 = BigEndian<u64, 8>;
static_assert(sizeof(Be16) == 2 && alignof(Be16) == 1);
static_assert(sizeof(Be32) == 4 && alignof(Be32) == 1);
static_assert(sizeof(Be64) == 8 && alignof(Be64) == 1);

constexpr u64 load_be64(const u8* p) {
  u64 v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}
constexpr void store_be64(u8* p, u64 v) {
  for (int i = 7; i >= 0; i--) {
    p[i] = static_cast<u8>(v & 0xff);
    v >>= 8;
  }
}

}  // namespace srpt
