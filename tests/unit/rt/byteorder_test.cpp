// SPDX-License-Identifier: GPL-2.0
// Big-endian wire fields (include/srpt/rt/byteorder.h).
#include <srpt/rt/byteorder.h>

#include <cstring>
#include <vector>

#include "../harness/core_test.h"

using srpt::Be16;
using srpt::Be32;
using srpt::Be64;

namespace {

class ByteOrderTest : public CoreTest {};

template <class T>
std::vector<uint8_t> bytes_of(const T& v) {
  std::vector<uint8_t> out(sizeof(T));
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

// A wire layout with fields at odd offsets, as in an SRP IU: no packing
// attribute is needed, since the fields have alignment 1.
struct Wire {
  uint8_t tag;
  Be16 a;
  Be32 b;
  Be64 c;
};
static_assert(sizeof(Wire) == 15, "BeN fields must add no padding");

static_assert(Be32::from(0x01020304u).get() == 0x01020304u,
              "usable in constant expressions");

}  // namespace

TEST_F(ByteOrderTest, Be16Layout) {
  const Be16 v = Be16::from(0x1234);
  EXPECT_EQ((std::vector<uint8_t>{0x12, 0x34}), bytes_of(v));
  EXPECT_EQ(0x1234, v.get());
  EXPECT_EQ(0, Be16().get());
}

TEST_F(ByteOrderTest, Be32Layout) {
  Be32 v;
  v.set(0xdeadbeef);
  EXPECT_EQ((std::vector<uint8_t>{0xde, 0xad, 0xbe, 0xef}), bytes_of(v));
  EXPECT_EQ(0xdeadbeefu, v.get());
}

TEST_F(ByteOrderTest, Be64Layout) {
  const Be64 v = Be64::from(0x0102030405060708ull);
  EXPECT_EQ((std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}), bytes_of(v));
  EXPECT_EQ(0x0102030405060708ull, v.get());
  EXPECT_EQ(0xffffffffffffffffull, Be64::from(~0ull).get());
}

TEST_F(ByteOrderTest, FieldsAtUnalignedOffsets) {
  const uint8_t raw[15] = {0xaa, 0x00, 0x05, 0x00, 0x00, 0x01, 0x00,
                           0x80, 0, 0, 0, 0, 0, 0, 0x01};
  Wire w;
  std::memcpy(&w, raw, sizeof(raw));
  EXPECT_EQ(5, w.a.get());
  EXPECT_EQ(0x100u, w.b.get());
  EXPECT_EQ(0x8000000000000001ull, w.c.get());

  w.a.set(0xbeef);
  uint8_t out[15];
  std::memcpy(out, &w, sizeof(out));
  EXPECT_EQ(0xbe, out[1]);
  EXPECT_EQ(0xef, out[2]);
}

TEST_F(ByteOrderTest, LoadAndStoreBe64) {
  const uint8_t in[8] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0x01};
  EXPECT_EQ(0xfe80000000000001ull, srpt::load_be64(in));

  uint8_t out[10] = {};
  srpt::store_be64(out + 1, 0x1122334455667788ull);  // unaligned
  const uint8_t want[10] = {0, 0x11, 0x22, 0x33, 0x44,
                            0x55, 0x66, 0x77, 0x88, 0};
  EXPECT_EQ(0, std::memcmp(want, out, sizeof(out)));
  EXPECT_EQ(0x1122334455667788ull, srpt::load_be64(out + 1));
}
