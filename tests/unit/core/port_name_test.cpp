// SPDX-License-Identifier: GPL-2.0
// Target port names (src/core/port_name.cpp): formatting exactly as Linux's
// in-tree ib_srpt, lenient parsing, and matching a name against a port GID.
#include <srpt/core/port_name.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "../harness/core_test.h"
#include "../harness/fake_device.h"

using srpt::Gid;
using srpt::ParsedPortName;
using srpt::PortNameForm;
using srpt::StringView;

namespace {

class PortNameTest : public CoreTest {};

Gid ToGid(const GidBytes& b) {
  Gid g{};
  for (size_t i = 0; i < b.size(); i++) g.raw[i] = b[i];
  return g;
}

// The in-tree driver's names, with its format strings (srpt_add_one()):
// the interface id's four big-endian 16-bit words, and the GID's two
// big-endian 64-bit halves.
std::string InTreeGuidName(const GidBytes& g) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x", (g[8] << 8) | g[9],
           (g[10] << 8) | g[11], (g[12] << 8) | g[13], (g[14] << 8) | g[15]);
  return buf;
}

std::string InTreeGidName(const GidBytes& g) {
  unsigned long long prefix = 0, iid = 0;
  for (int i = 0; i < 8; i++) {
    prefix = (prefix << 8) | g[i];
    iid = (iid << 8) | g[8 + i];
  }
  char buf[64];
  snprintf(buf, sizeof(buf), "0x%016llx%016llx", prefix, iid);
  return buf;
}

// GIDs with every nibble value in every position, zeros and all-ones.
std::vector<GidBytes> SampleGids() {
  std::vector<GidBytes> gids = {
      MakeGid(0xfe80000000000000ull, 0x949ea5fffe802188ull),
      MakeGid(0, 0),
      MakeGid(~0ull, ~0ull),
      MakeGid(0xfe80000000000000ull, 0x0000000000000001ull),
      MakeGid(0x0123456789abcdefull, 0xfedcba9876543210ull),
      MakeGid(0xfe80000000000000ull, 0x0200000000000000ull),
  };
  std::mt19937_64 rng(20240611);
  for (int i = 0; i < 64; i++) gids.push_back(MakeGid(rng(), rng()));
  return gids;
}

ParsedPortName ParseOk(StringView name) {
  srpt::Result<ParsedPortName> r = srpt::parse_port_name(name);
  EXPECT_TRUE(r.ok()) << "refused: " << std::string(name.data(), name.size());
  return r.ok() ? r.value() : ParsedPortName{};
}

StringView View(const std::string& s) { return StringView(s.data(), s.size()); }

const GidBytes kGid = MakeGid(0xfe80000000000000ull, 0x949ea5fffe802188ull);

}  // namespace

TEST_F(PortNameTest, GidHalves) {
  const Gid g = ToGid(MakeGid(0xfe80000000000001ull, 0x949ea5fffe802188ull));
  EXPECT_EQ(0xfe80000000000001ull, g.subnet_prefix());
  EXPECT_EQ(0x949ea5fffe802188ull, g.interface_id());
}

TEST_F(PortNameTest, FormatsAsTheInTreeDriver) {
  EXPECT_STREQ("949e:a5ff:fe80:2188",
               srpt::format_guid_name(0x949ea5fffe802188ull).c_str());
  EXPECT_STREQ("0xfe80000000000000949ea5fffe802188",
               srpt::format_gid_name(ToGid(kGid)).c_str());
  EXPECT_STREQ("0000:0000:0000:0001", srpt::format_guid_name(1).c_str());
  for (const GidBytes& g : SampleGids()) {
    const Gid gid = ToGid(g);
    EXPECT_EQ(InTreeGuidName(g),
              srpt::format_guid_name(gid.interface_id()).c_str());
    EXPECT_EQ(InTreeGidName(g), srpt::format_gid_name(gid).c_str());
  }
}

TEST_F(PortNameTest, FormattedNamesFit) {
  const Gid all_ones = ToGid(MakeGid(~0ull, ~0ull));
  EXPECT_EQ(19u, srpt::format_guid_name(all_ones.interface_id()).size());
  EXPECT_EQ(34u, srpt::format_gid_name(all_ones).size());
}

TEST_F(PortNameTest, ParsesGuidForm) {
  for (const char* name : {"949e:a5ff:fe80:2188", "949E:A5FF:FE80:2188",
                           "949e:A5ff:fE80:2188"}) {
    const ParsedPortName p = ParseOk(StringView::from_cstr(name));
    EXPECT_EQ(PortNameForm::Guid, p.form) << name;
    EXPECT_EQ(0x949ea5fffe802188ull, p.interface_id) << name;
  }
}

TEST_F(PortNameTest, ParsesGidFormWithAndWithoutPrefix) {
  for (const char* name : {"0xfe80000000000000949ea5fffe802188",
                           "0Xfe80000000000000949ea5fffe802188",
                           "fe80000000000000949ea5fffe802188",
                           "0XFE80000000000000949EA5FFFE802188",
                           "FE80000000000000949Ea5fffe802188"}) {
    const ParsedPortName p = ParseOk(StringView::from_cstr(name));
    EXPECT_EQ(PortNameForm::Gid, p.form) << name;
    EXPECT_EQ(ToGid(kGid), p.gid) << name;
    EXPECT_EQ(0x949ea5fffe802188ull, p.interface_id) << name;
  }
}

TEST_F(PortNameTest, RefusesEverythingElse) {
  const std::vector<std::string> bad = {
      "",
      "949e",
      "949e:a5ff:fe80:218",        // too short
      "949e:a5ff:fe80:21888",      // too long
      "949e:a5ff:fe80:2188:",      // trailing colon
      ":949e:a5ff:fe80:2188",      // leading colon
      "949ea5fffe802188",          // no colons
      "949e-a5ff-fe80-2188",       // wrong separator
      "949e:a5ff:fe802:188",       // wrong group sizes, right length
      "949:ea5ff:fe80:2188",
      "949e:a5ff::fe80:218",
      "949g:a5ff:fe80:2188",       // not hex
      "949e:a5ff:fe80:2188\n",     // configfs names carry no newline
      " 949e:a5ff:fe80:2188",      // leading space
      "949e:a5ff:fe80:2188 ",      // trailing space
      "0x",
      "0x" + std::string(31, 'a'),
      "0x" + std::string(33, 'a'),
      std::string(31, 'a'),
      std::string(33, 'a'),
      "0xfe80000000000000949ea5fffe80218g",
      "0xfe80000000000000949ea5fffe802188\n",
      " 0xfe80000000000000949ea5fffe802188",
      "0xfe80000000000000949ea5fffe802188 ",
      "0x0xfe80000000000000949ea5fffe8021",
      "x0fe80000000000000949ea5fffe802188",
      "00xfe80000000000000949ea5fffe80218",
      "ib.fe80000000000000949ea5fffe802188",  // targetcli's own spelling
      "+949e:a5ff:fe80:218",
      "0xfe80000000000000-949ea5fffe80218",
  };
  for (const std::string& name : bad) {
    srpt::Result<ParsedPortName> r = srpt::parse_port_name(View(name));
    EXPECT_FALSE(r.ok()) << "accepted \"" << name << "\"";
    if (!r.ok()) {
      EXPECT_EQ(srpt::Error::Inval, r.error().code()) << name;
    }
  }
}

TEST_F(PortNameTest, EmbeddedNulIsRefused) {
  // The length, not a terminator, delimits a name.
  const std::string guid("949e:a5ff:fe80:218\0", 19);
  const std::string guid_mid("949e:a5ff\0fe80:2188", 19);
  const std::string gid("0xfe80000000000000949ea5fffe80218\0", 34);
  const std::string gid_mid("0xfe80000000000000\0" "49ea5fffe802188", 34);
  for (const std::string& name : {guid, guid_mid, gid, gid_mid}) {
    ASSERT_EQ(name.size() == 19 ? 19u : 34u, name.size());
    srpt::Result<ParsedPortName> r = srpt::parse_port_name(View(name));
    EXPECT_FALSE(r.ok());
  }
}

TEST_F(PortNameTest, RoundTrip) {
  for (const GidBytes& g : SampleGids()) {
    const Gid gid = ToGid(g);
    const srpt::PortName guid_name = srpt::format_guid_name(gid.interface_id());
    const ParsedPortName by_guid = ParseOk(guid_name.view());
    EXPECT_EQ(PortNameForm::Guid, by_guid.form);
    EXPECT_EQ(gid.interface_id(), by_guid.interface_id);
    EXPECT_STREQ(guid_name.c_str(),
                 srpt::format_guid_name(by_guid.interface_id).c_str());

    const srpt::PortName gid_name = srpt::format_gid_name(gid);
    const ParsedPortName by_gid = ParseOk(gid_name.view());
    EXPECT_EQ(PortNameForm::Gid, by_gid.form);
    EXPECT_EQ(gid, by_gid.gid);
    EXPECT_STREQ(gid_name.c_str(), srpt::format_gid_name(by_gid.gid).c_str());
  }
}

TEST_F(PortNameTest, GuidFormIgnoresTheSubnetPrefix) {
  const ParsedPortName p = ParseOk("949e:a5ff:fe80:2188");
  EXPECT_TRUE(p.names(ToGid(kGid)));
  EXPECT_TRUE(p.names(ToGid(MakeGid(0xfec0000000000000ull, 0x949ea5fffe802188ull))));
  EXPECT_TRUE(p.names(ToGid(MakeGid(0, 0x949ea5fffe802188ull))));
  EXPECT_FALSE(p.names(ToGid(MakeGid(0xfe80000000000000ull, 0x949ea5fffe802189ull))));
}

TEST_F(PortNameTest, GidFormComparesAllSixteenBytes) {
  const ParsedPortName p = ParseOk("0xfe80000000000000949ea5fffe802188");
  EXPECT_TRUE(p.names(ToGid(kGid)));
  for (size_t byte = 0; byte < 16; byte++) {
    GidBytes other = kGid;
    other[byte] ^= 0x01;
    EXPECT_FALSE(p.names(ToGid(other))) << "byte " << byte << " ignored";
  }
}

TEST_F(PortNameTest, GidEquality) {
  const Gid a = ToGid(kGid);
  Gid b = a;
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a != b);
  b.raw[15] ^= 0x80;
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a != b);
}
