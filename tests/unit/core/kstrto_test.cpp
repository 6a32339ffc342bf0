// SPDX-License-Identifier: GPL-2.0
// parse_kstrto (src/core/kstrto.cpp) directly, beyond what the u16 users
// (rdma_cm_port_test.cpp) see: the full 64-bit range and every maximum.
#include <srpt/core/kstrto.h>

#include <string>

#include "../harness/core_test.h"

namespace {

class KstrtoTest : public CoreTest {
 protected:
  static srpt::Result<uint64_t> P(const std::string& s, uint64_t max = ~0ull) {
    return srpt::parse_kstrto(srpt::StringView(s.data(), s.size()), max);
  }
  static void Ok(const std::string& s, uint64_t want, uint64_t max = ~0ull) {
    srpt::Result<uint64_t> r = P(s, max);
    ASSERT_TRUE(r.ok()) << "\"" << s << "\": " << r.error().to_kernel();
    EXPECT_EQ(want, r.value()) << "\"" << s << "\"";
  }
  static void Err(const std::string& s, srpt::Error want, uint64_t max = ~0ull) {
    srpt::Result<uint64_t> r = P(s, max);
    ASSERT_FALSE(r.ok()) << "\"" << s << "\" parsed as " << r.value();
    EXPECT_EQ(want, r.error()) << "\"" << s << "\"";
  }
};

}  // namespace

TEST_F(KstrtoTest, Bases) {
  Ok("0", 0);
  Ok("42", 42);
  Ok("0x2a", 42);
  Ok("0X2A", 42);
  Ok("052", 42);
  Ok("+42", 42);
  Ok("+0x2a", 42);
  Ok("+052", 42);
  Ok("0xfFfF", 0xffff);
  Ok("0000000000000000000000000000000000000000000000000052", 42);
}

TEST_F(KstrtoTest, OneTrailingNewline) {
  Ok("42\n", 42);
  Ok("0x2a\n", 42);
  Err("42\n\n", srpt::Error::Inval);
  Err("\n", srpt::Error::Inval);
  Err("42 \n", srpt::Error::Inval);
}

TEST_F(KstrtoTest, NothingAfterAnEmbeddedNul) {
  Ok(std::string("42\0" "99", 5), 42);
  Ok(std::string("42\n\0x", 5), 42);
  Err(std::string("\0" "42", 3), srpt::Error::Inval);
}

TEST_F(KstrtoTest, Malformed) {
  for (const char* s : {"", "+", "++1", "-1", " 1", "1 ", "x", "0x", "0xg", "08", "09",
                        "0b1", "1e3", "1.0", "1_000", "0x+1"}) {
    Err(s, srpt::Error::Inval);
  }
}

TEST_F(KstrtoTest, SixtyFourBitRange) {
  Ok("18446744073709551615", ~0ull);
  Ok("0xffffffffffffffff", ~0ull);
  Ok("01777777777777777777777", ~0ull);
  Err("18446744073709551616", srpt::Error::Range);
  Err("0x10000000000000000", srpt::Error::Range);
  Err("02000000000000000000000", srpt::Error::Range);
  // Overflow wins over junk after it, as in the kernel.
  Err("99999999999999999999x", srpt::Error::Range);
  Err("99999999999999999999\n", srpt::Error::Range);
}

TEST_F(KstrtoTest, TheCallersMaximum) {
  Ok("4294967295", 0xffffffffu, 0xffffffffu);
  Err("4294967296", srpt::Error::Range, 0xffffffffu);
  Ok("0", 0, 0);
  Err("1", srpt::Error::Range, 0);
  Err("2x", srpt::Error::Inval, 1);  // junk beats range
  srpt::Result<uint32_t> u32 = srpt::parse_kstrto_u32("0x80000000");
  ASSERT_TRUE(u32.ok());
  EXPECT_EQ(0x80000000u, u32.value());
  EXPECT_FALSE(srpt::parse_kstrto_u32("0x100000000").ok());
  EXPECT_EQ(srpt::Error::Range, srpt::parse_kstrto_u16("65536").error().code());
}
