// SPDX-License-Identifier: GPL-2.0
// Which initiator names a login is looked up under, in which TPGs, in which
// order (include/srpt/core/initiator_name.h), and which ACL
// directory names configfs may create (srpt_core_acl_name_check).
#include <srpt/abi/fabric.h>

#include <string>
#include <utility>
#include <vector>

#include "../harness/login_test.h"

namespace {

class SessionNameTest : public LoginTest {
 protected:
  using Attempt = std::pair<srpt_k_tpg*, std::string>;
  static std::vector<Attempt> Attempts() {
    std::vector<Attempt> v;
    for (const fake::SessionAttempt& a : fake::session_attempts())
      v.emplace_back(a.tpg, a.name);
    return v;
  }
  // The names a refused login asked the ACLs about, in order: a login no
  // ACL admits is refused before any session is tried,
  // under the same names in the same order.
  static std::vector<Attempt> Queries() {
    std::vector<Attempt> v;
    for (const fake::SessionAttempt& a : fake::acl_queries()) v.emplace_back(a.tpg, a.name);
    return v;
  }
  // A GID-named target port on port 1 with an enabled TPG admitting nobody.
  srpt_k_tpg* AddGidTpg() {
    srpt_core_tport* t = nullptr;
    srpt_core_tpg* tpg = nullptr;
    EXPECT_EQ(0, MakeTport(kPort1Gid, &t));
    EXPECT_EQ(0, MakeTpg(t, "1", &tpg));
    EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 1));
    gid_tpg_ = tpg;
    return KTpg(tpg);
  }
  std::string SessionName() {
    const auto s = fake::sessions();
    return s.empty() ? "" : s.back()->initiator;
  }
  srpt_core_tpg* gid_tpg_ = nullptr;
};

}  // namespace

TEST_F(SessionNameTest, IbCmTriesThePortGuidFormInGuidNamedTpgs) {
  ExpectAccepted(Login(GoodReq(SRPT_CM_IB)));
  EXPECT_EQ((std::vector<Attempt>{{KTpg(tpg_), kInitiatorGuidName}}), Attempts());
}

TEST_F(SessionNameTest, IbCmGuidNameIsTheInterfaceIdOfTheInitiatorsGid) {
  // As in-tree: the GID from the REQ's path, whatever the port id says.
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.initiator_gid = MakeId(0xfe80000000000000ull, 0x0002C9030001ABCDull);
  r.i_port_id = MakeId(0, 0x1111222233334444ull);
  fake::allow_initiator(KTpg(tpg_), "0002:c903:0001:abcd");
  ExpectAccepted(Login(r));
  EXPECT_EQ("0002:c903:0001:abcd", SessionName());
}

TEST_F(SessionNameTest, IbCmPortIdCannotClaimAnotherInitiatorsGuidAcl) {
  // The login bytes name someone else's port GUID; the fabric says who
  // sent them. Only the sender's GUID is tried.
  fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
  fake::allow_initiator(KTpg(tpg_), "0002:c903:0001:abcd");
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.i_port_id = MakeId(0, 0x0002C9030001ABCDull);
  ExpectRejected(Login(r), srpt::srp::kRejChannelLimitReached);
  EXPECT_EQ((std::vector<Attempt>{{KTpg(tpg_), kInitiatorGuidName}}), Queries());
  EXPECT_TRUE(Attempts().empty());
}

TEST_F(SessionNameTest, RdmaCmTriesTheSourceAddressInGuidNamedTpgs) {
  ExpectAccepted(Login(GoodReq(SRPT_CM_RDMA)));
  EXPECT_EQ((std::vector<Attempt>{{KTpg(tpg_), kInitiatorAddr}}), Attempts());
}

TEST_F(SessionNameTest, RdmaCmIpv6SourceAddresses) {
  for (const char* addr : {"fe80::1", "2001:db8::2:1", "::ffff:192.0.2.1"}) {
    SCOPED_TRACE(addr);
    EXPECT_EQ(0, srpt_core_acl_name_check(addr)) << "an admissible ACL name";
    fake::allow_initiator(KTpg(tpg_), addr);
    LoginReq r = GoodReq(SRPT_CM_RDMA);
    r.src_addr = addr;
    r.flags = srpt::srp::kMultiChanMulti;
    ExpectAccepted(Login(r));
    EXPECT_EQ(addr, SessionName());
  }
}

TEST_F(SessionNameTest, GidNamedTpgsTry0xThenBareHex) {
  DropTpg(tpg_);
  srpt_k_tpg* gid = AddGidTpg();
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    fake::reset_trace();
    const size_t before = fake::acl_queries().size();
    ExpectRejected(Login(GoodReq(kind)), srpt::srp::kRejChannelLimitReached);
    const std::vector<Attempt> all = Queries();
    const std::vector<Attempt> tried(all.begin() + static_cast<long>(before), all.end());
    EXPECT_EQ((std::vector<Attempt>{{gid, kInitiatorId0x}, {gid, kInitiatorIdHex}}), tried)
        << "the port GUID form and the address are never tried in GID-named TPGs";
  }
  fake::allow_initiator(gid, kInitiatorIdHex);
  ExpectAccepted(Login(GoodReq(SRPT_CM_RDMA)));
  EXPECT_EQ(kInitiatorIdHex, SessionName());
  fake::allow_initiator(gid, kInitiatorId0x);
  ExpectAccepted(Login(GoodReq(SRPT_CM_IB)));
  EXPECT_EQ(kInitiatorId0x, SessionName()) << "0x first";
}

TEST_F(SessionNameTest, GuidNamedTpgsComeFirst) {
  srpt_k_tpg* gid = AddGidTpg();
  fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
  ExpectRejected(Login(GoodReq(SRPT_CM_IB)), srpt::srp::kRejChannelLimitReached);
  EXPECT_EQ((std::vector<Attempt>{{KTpg(tpg_), kInitiatorGuidName},
                                  {gid, kInitiatorId0x},
                                  {gid, kInitiatorIdHex}}),
            Queries());
  // The same order for the sessions, once the last name has an ACL.
  fake::allow_initiator(gid, kInitiatorIdHex);
  ExpectAccepted(Login(GoodReq(SRPT_CM_IB)));
  EXPECT_EQ((std::vector<Attempt>{{KTpg(tpg_), kInitiatorGuidName},
                                  {gid, kInitiatorId0x},
                                  {gid, kInitiatorIdHex}}),
            Attempts());
}

TEST_F(SessionNameTest, TheFirstAdmittingTpgWinsAndOwnsTheChannel) {
  srpt_core_tpg* second = nullptr;
  ASSERT_EQ(0, MakeTpg(tport_, "2", &second));
  ASSERT_EQ(0, srpt_core_tpg_enable(second, 1));
  fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
  fake::allow_initiator(KTpg(second), kInitiatorGuidName);
  const Outcome o = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ((std::vector<Attempt>{{KTpg(tpg_), kInitiatorGuidName},
                                  {KTpg(second), kInitiatorGuidName}}),
            Attempts());
  // Disabling the other TPG leaves the channel alone...
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));
  EXPECT_EQ(0, o.id->destroys());
  // ...disabling its own releases it before returning.
  ASSERT_EQ(0, srpt_core_tpg_enable(second, 0));
  ExpectReleasedByChannel(o);
}

TEST_F(SessionNameTest, DisabledTpgsAreNotTried) {
  srpt_core_tpg* second = nullptr;
  ASSERT_EQ(0, MakeTpg(tport_, "2", &second));
  fake::allow_initiator(KTpg(second), kInitiatorGuidName);
  ExpectAccepted(Login(GoodReq(SRPT_CM_IB)));
  for (const Attempt& a : Attempts()) EXPECT_NE(KTpg(second), a.first);
}

TEST_F(SessionNameTest, AnIbCmLoginHasNoAddressToTry) {
  // The shim passes "" as the IB/CM source address: nothing is tried in a
  // GUID-named TPG under an empty name.
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.src_addr = "";
  ExpectRejected(Login(r), srpt::srp::kRejChannelLimitReached);
  EXPECT_TRUE(Attempts().empty());
  EXPECT_TRUE(Queries().empty());
}

// --- ACL names -----------------------------------------------------------------

namespace {

class AclNameTest : public TargetTest {};

}  // namespace

TEST_F(AclNameTest, AcceptsTheFormsALoginIsLookedUpUnder) {
  for (const char* name :
       {"0002:c903:000e:8acd", "0002:C903:000E:8ACD", kInitiatorId0x,
        "0X00000000000000000002C903000E8ACD", kInitiatorIdHex,
        "fe80000000000000949ea5fffe802188", "192.0.2.1", "0.0.0.0",
        "255.255.255.255", "::1", "fe80::1", "::ffff:192.0.2.1", "::",
        "2001:db8::2:1", "2001:0db8:0000:0000:0000:ff00:0042:8329",
        "1::", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "64:ff9b::192.0.2.33"}) {
    EXPECT_EQ(0, srpt_core_acl_name_check(name)) << name;
  }
  EXPECT_TRUE(fake::log_lines().empty()) << fake::log_dump();
}

TEST_F(AclNameTest, RefusesEverythingElseAndSaysWhy) {
  for (const char* name :
       {"", "garbage", "1.2.3", "1.2.3.256", ":::", "1.2.3.4.5", "1.2.3.",
        ".1.2.3", "01234.1.1.1", "1..2.3", "192.0.2.1 ", " 192.0.2.1",
        "0x0000000000000000000000000000000",  // 31 hex digits
        "000000000000000000000000000000000",  // 33
        "0x0000000000000000000000000000000g", "fe80::1::2", "12345::1",
        "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::", ":1::",
        "1:", "fe80::1:", "::ffff:1.2.3", "::ffff:1.2.3.4.5", "fe80::1%eth0",
        "0002:c903:000e", "0002:c903:000e:8acd:0000", "ib.fe800000000000000002c903000e8acd"}) {
    EXPECT_EQ(-SRPT_EINVAL, srpt_core_acl_name_check(name)) << "\"" << name << "\"";
  }
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "ACL name \"garbage\" is none of"))
      << fake::log_dump();
}

// Every enabled TPG of the port is tried, not only the
// first 16 of each port-name form (the rest were skipped without a word).
TEST_F(SessionNameTest, EveryEnabledTpgOfThePortIsTried) {
  fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
  constexpr int kMore = 20;
  srpt_core_tpg* last = nullptr;
  for (int i = 0; i < kMore; i++) {
    srpt_core_tpg* tpg = nullptr;
    ASSERT_EQ(0, MakeTpg(tport_, ("more_" + std::to_string(i)).c_str(), &tpg));
    ASSERT_EQ(0, srpt_core_tpg_enable(tpg, 1));
    last = tpg;
  }
  fake::allow_initiator(KTpg(last), kInitiatorGuidName);
  ExpectAccepted(Login(GoodReq(SRPT_CM_IB)));
  EXPECT_EQ(static_cast<size_t>(kMore + 1), fake::session_attempts().size());
  ASSERT_FALSE(fake::sessions().empty());
  EXPECT_EQ(KTpg(last), fake::sessions().back()->tpg);
}
