// SPDX-License-Identifier: GPL-2.0
// StringView, FixedString and the hex digit helpers (include/srpt/rt/string.h).
#include <srpt/rt/string.h>

#include <cstring>
#include <string>

#include "../harness/core_test.h"

using srpt::FixedString;
using srpt::StringView;

namespace {

class StringTest : public CoreTest {};

std::string str(StringView v) { return std::string(v.data(), v.size()); }

}  // namespace

TEST_F(StringTest, FromCstr) {
  EXPECT_EQ(3u, StringView::from_cstr("abc").size());
  EXPECT_EQ("abc", str(StringView::from_cstr("abc")));
  EXPECT_TRUE(StringView::from_cstr("").empty());
  EXPECT_TRUE(StringView::from_cstr(nullptr).empty());
  EXPECT_TRUE(StringView().empty());
  EXPECT_NE(nullptr, StringView().data());
}

TEST_F(StringTest, LiteralExcludesTheTerminator) {
  const StringView v = "abcd";
  EXPECT_EQ(4u, v.size());
  EXPECT_EQ('d', v[3]);
}

TEST_F(StringTest, LengthIsNotTheNul) {
  const char raw[] = {'a', '\0', 'b'};
  const StringView v(raw, sizeof(raw));
  EXPECT_EQ(3u, v.size());
  EXPECT_NE(v, StringView("a"));
  EXPECT_EQ(1u, StringView::from_cstr(raw).size());
}

TEST_F(StringTest, Substr) {
  const StringView v = "0x1234";
  EXPECT_EQ("1234", str(v.substr(2)));
  EXPECT_EQ("12", str(v.substr(2, 2)));
  EXPECT_EQ("34", str(v.substr(4, 100)));  // length clamped
  EXPECT_TRUE(v.substr(6).empty());
  EXPECT_TRUE(v.substr(100).empty());  // position clamped
  EXPECT_TRUE(v.substr(100, 5).empty());
}

TEST_F(StringTest, StartsWith) {
  const StringView v = "0xabc";
  EXPECT_TRUE(v.starts_with("0x"));
  EXPECT_TRUE(v.starts_with(""));
  EXPECT_TRUE(v.starts_with("0xabc"));
  EXPECT_FALSE(v.starts_with("0X"));
  EXPECT_FALSE(v.starts_with("0xabcd"));  // longer than the string
  EXPECT_FALSE(StringView().starts_with("0"));
}

TEST_F(StringTest, TrimNewlineDropsExactlyOne) {
  EXPECT_EQ("5555", str(StringView("5555\n").trim_newline()));
  EXPECT_EQ("5555\n", str(StringView("5555\n\n").trim_newline()));
  EXPECT_EQ("5555", str(StringView("5555").trim_newline()));
  EXPECT_EQ(" 5 ", str(StringView(" 5 ").trim_newline()));
  EXPECT_TRUE(StringView("\n").trim_newline().empty());
  EXPECT_TRUE(StringView().trim_newline().empty());
}

TEST_F(StringTest, Equality) {
  EXPECT_TRUE(StringView("abc") == StringView::from_cstr("abc"));
  EXPECT_FALSE(StringView("abc") == StringView("abd"));
  EXPECT_FALSE(StringView("abc") == StringView("ab"));
  EXPECT_FALSE(StringView("ab") == StringView("abc"));
  EXPECT_TRUE(StringView("abc") != StringView("ABC"));
  EXPECT_TRUE(StringView() == StringView(""));
}

TEST_F(StringTest, HexDigitValue) {
  EXPECT_EQ(0, srpt::hex_digit_value('0'));
  EXPECT_EQ(9, srpt::hex_digit_value('9'));
  EXPECT_EQ(10, srpt::hex_digit_value('a'));
  EXPECT_EQ(15, srpt::hex_digit_value('f'));
  EXPECT_EQ(10, srpt::hex_digit_value('A'));
  EXPECT_EQ(15, srpt::hex_digit_value('F'));
  for (char c : std::string("gGxX:/@` \n\0", 11))
    EXPECT_EQ(-1, srpt::hex_digit_value(c)) << "char " << int(c);
  for (unsigned v = 0; v < 16; v++)
    EXPECT_EQ(static_cast<int>(v), srpt::hex_digit_value(srpt::hex_digit(v)));
  EXPECT_EQ('f', srpt::hex_digit(0x1f));  // only the low nibble
}

TEST_F(StringTest, FixedStringAssign) {
  FixedString<4> s;
  EXPECT_EQ(3u, FixedString<4>::capacity());
  EXPECT_EQ(0u, s.size());
  EXPECT_STREQ("", s.c_str());

  EXPECT_TRUE(s.assign("abc"));
  EXPECT_EQ(3u, s.size());
  EXPECT_STREQ("abc", s.c_str());
  EXPECT_EQ(StringView("abc"), s.view());

  EXPECT_TRUE(s.assign("z"));  // shorter: terminated at the new length
  EXPECT_STREQ("z", s.c_str());
}

TEST_F(StringTest, FixedStringAssignOverflowLeavesItEmpty) {
  FixedString<4> s;
  ASSERT_TRUE(s.assign("abc"));
  EXPECT_FALSE(s.assign("abcd"));
  EXPECT_EQ(0u, s.size());
  EXPECT_STREQ("", s.c_str());
}

TEST_F(StringTest, FixedStringPushBackStopsAtCapacity) {
  FixedString<4> s;
  EXPECT_TRUE(s.push_back('a'));
  EXPECT_TRUE(s.push_back('b'));
  EXPECT_TRUE(s.push_back('c'));
  EXPECT_FALSE(s.push_back('d'));
  EXPECT_EQ(3u, s.size());
  EXPECT_STREQ("abc", s.c_str());
  s.clear();
  EXPECT_EQ(0u, s.size());
  EXPECT_STREQ("", s.c_str());
  EXPECT_TRUE(s.push_back('x'));
  EXPECT_STREQ("x", s.c_str());
}

TEST_F(StringTest, FixedStringEmbeddedNulCountsInSize) {
  FixedString<8> s;
  const char raw[] = {'a', '\0', 'b'};
  ASSERT_TRUE(s.assign(StringView(raw, sizeof(raw))));
  EXPECT_EQ(3u, s.size());
  EXPECT_EQ(0, std::memcmp(raw, s.c_str(), sizeof(raw)));
}
