// SPDX-License-Identifier: GPL-2.0
// acls/<name>/info (src/core/acl_info.cpp): an ACL's SRP sessions in the
// lines rtslib parses for `targetcli sessions`. The expected texts below
// are what rtslib's NodeACL._get_session() reads: "InitiatorName:" opens a
// session, "LIO Session ID: N" with "SessionType:", a TARG_SESS_STATE_
// word, per channel a "CID: N ... TARG_CONN_STATE_..." line followed by an
// "Address ADDR TRANSPORT" line.
#include <string>

#include <srpt/abi/fabric.h>

#include "../fake/seq.h"
#include "../harness/login_test.h"

namespace {

namespace srp = srpt::srp;

class AclInfoTest : public LoginTest {
 protected:
  std::string Info(const char* acl) {
    srpt_k_seq seq;
    srpt_core_acl_info(tpg_, acl, &seq);
    return seq.text;
  }
  static std::string NoSession(const std::string& acl) {
    return "No active SRP session for Initiator Endpoint: " + acl + "\n";
  }
};

TEST_F(AclInfoTest, WithoutASessionOneLineSaysSo) {
  EXPECT_EQ(NoSession(kInitiatorGuidName), Info(kInitiatorGuidName));
  EXPECT_EQ(NoSession(kInitiatorAddr), Info(kInitiatorAddr));
}

// Two channels of one nexus (MULTI) are one session with two connections,
// listed under the ACL the session was admitted by, and under no other.
TEST_F(AclInfoTest, ANexusIsASessionAndItsChannelsItsConnections) {
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.flags = srp::kMultiChanMulti;
  const Outcome a = Login(r);
  ExpectAccepted(a);
  Establish(a);
  const Outcome b = Login(r);
  ExpectAccepted(b);
  const std::string want = std::string("InitiatorName: ") + kInitiatorGuidName +
                           "\n"
                           "InitiatorAlias: " + kInitiatorId0x +
                           "\n"
                           "LIO Session ID: 1   SessionType: Normal\n"
                           "Session State: TARG_SESS_STATE_LOGGED_IN\n"
                           "CID: 1   Connection State: TARG_CONN_STATE_LOGGED_IN   "
                           "Credits: 128 of 128\n"
                           "   Address " + std::string(kInitiatorGuidName) +
                           " IB_CM   Port: mlx5_0/1\n"
                           "CID: 2   Connection State: TARG_CONN_STATE_IN_LOGIN   "
                           "Credits: 128 of 128\n"
                           "   Address " + std::string(kInitiatorGuidName) +
                           " IB_CM   Port: mlx5_0/1\n";
  EXPECT_EQ(want, Info(kInitiatorGuidName));
  EXPECT_EQ(NoSession(kInitiatorAddr), Info(kInitiatorAddr));
  EXPECT_EQ(NoSession(kInitiatorId0x), Info(kInitiatorId0x));

  Establish(b);
  Logout(a);
  const std::string after = Info(kInitiatorGuidName);
  EXPECT_NE(std::string::npos, after.find("LIO Session ID: 2   SessionType: Normal\n"))
      << "the oldest channel left names the session\n" << after;
  EXPECT_NE(std::string::npos, after.find("Session State: TARG_SESS_STATE_LOGGED_IN\n")) << after;
  EXPECT_EQ(std::string::npos, after.find("CID: 1 ")) << after;
  Logout(b);
  EXPECT_EQ(NoSession(kInitiatorGuidName), Info(kInitiatorGuidName));
}

TEST_F(AclInfoTest, ASessionWhoseChannelsAllWaitForTheirRtuIsActive) {
  const Outcome o = Login(GoodReq(SRPT_CM_IB));
  ExpectAccepted(o);
  const std::string info = Info(kInitiatorGuidName);
  EXPECT_NE(std::string::npos, info.find("Session State: TARG_SESS_STATE_ACTIVE\n")) << info;
  EXPECT_NE(std::string::npos, info.find("TARG_CONN_STATE_IN_LOGIN")) << info;
  Establish(o);
  EXPECT_NE(std::string::npos, Info(kInitiatorGuidName).find("TARG_SESS_STATE_LOGGED_IN"));
}

TEST_F(AclInfoTest, AnRdmaCmChannelGivesItsAddress) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  const std::string info = Info(kInitiatorAddr);
  EXPECT_NE(std::string::npos,
            info.find(std::string("   Address ") + kInitiatorAddr + " RDMA_CM   Port: mlx5_0/1\n"))
      << info;
  EXPECT_NE(std::string::npos, info.find("Credits: 128 of 128\n")) << info;
  // A command in flight holds a credit.
  Receive(o, EncodeSrpCmd(SrpCmd{}));
  EXPECT_NE(std::string::npos, Info(kInitiatorAddr).find("Credits: 127 of 128\n"));
}

// A channel that is closing is listed until it is released, as failed
// when it is the session's only one.
TEST_F(AclInfoTest, AClosingChannelIsListedUntilReleased) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  const std::string info = Info(kInitiatorGuidName);
  EXPECT_NE(std::string::npos, info.find("Session State: TARG_SESS_STATE_FAILED\n")) << info;
  EXPECT_NE(std::string::npos, info.find("TARG_CONN_STATE_CLEANUP_WAIT")) << info;
  RunWorks();
  EXPECT_EQ(NoSession(kInitiatorGuidName), Info(kInitiatorGuidName));
}

// Another TPG's ACL of the same name sees none of this TPG's sessions.
TEST_F(AclInfoTest, OnlyTheAclsOwnTpgsSessions) {
  (void)LiveChannel(SRPT_CM_IB);
  srpt_core_tport* tport2 = nullptr;
  srpt_core_tpg* tpg2 = nullptr;
  ServeTpg(kPort2Guid, &tport2, &tpg2);
  srpt_k_seq seq;
  srpt_core_acl_info(tpg2, kInitiatorGuidName, &seq);
  EXPECT_EQ(NoSession(kInitiatorGuidName), seq.text);
}

}  // namespace
