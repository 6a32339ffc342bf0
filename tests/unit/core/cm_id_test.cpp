// SPDX-License-Identifier: GPL-2.0
// THE OWNERSHIP RULE (include/srpt/core/cm_id.h, include/srpt/abi/cm.h) when
// it is broken on purpose: the types must report a double decision, and the
// fake CM and the harness must catch a cm_id destroyed twice, by both sides,
// or by nobody.
#include <srpt/core/cm_id.h>

#include "../harness/login_test.h"

namespace {

using srpt::CmIdLease;
using srpt::LoginVerdict;
using srpt::OwnedCmId;

class CmIdTest : public CoreTest {};

}  // namespace

TEST_F(CmIdTest, CallerKeepsIsNonZeroAndLeavesTheIdToTheCmCore) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
  CmIdLease lease(SRPT_CM_RDMA, id);
  const LoginVerdict v = LoginVerdict::caller_keeps(std::move(lease), srpt::Error::ConnRefused);
  EXPECT_EQ(-SRPT_ECONNREFUSED, v.to_kernel());
  EXPECT_FALSE(lease.held());
  EXPECT_EQ(0, id->destroys()) << "the type destroys nothing itself";
  fake::cm_destroy_by_caller(id);
}

TEST_F(CmIdTest, ChannelOwnsIsZeroAndTheOwnerDestroysOnce) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  CmIdLease lease(SRPT_CM_IB, id);
  OwnedCmId::Adoption a = OwnedCmId::adopt(std::move(lease));
  EXPECT_FALSE(lease.held());
  EXPECT_TRUE(a.id.held());
  EXPECT_EQ(id, a.id.get());
  EXPECT_EQ(SRPT_CM_IB, a.id.kind());
  EXPECT_EQ(0, LoginVerdict::channel_owns(std::move(a.proof)).to_kernel());
  a.id.destroy();
  EXPECT_FALSE(a.id.held());
  EXPECT_EQ(1, id->channel_destroys);
}

// The deliberately broken rule: a login path that gives the lease back after
// a channel adopted it. The type reports the bug and answers zero, because
// a channel holds the cm_id and the CM core must not destroy it under it.
TEST_F(CmIdTest, GivingBackAnAdoptedLeaseIsReportedAndAnsweredZero) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
  CmIdLease lease(SRPT_CM_RDMA, id);
  OwnedCmId::Adoption a = OwnedCmId::adopt(std::move(lease));
  const LoginVerdict v = LoginVerdict::caller_keeps(std::move(lease), srpt::Error::NoMem);
  ExpectOneBugReport("lease.held()");
  EXPECT_EQ(0, v.to_kernel()) << "never non-zero while a channel holds the id";
  a.id.destroy();
  EXPECT_EQ(1, id->channel_destroys);
  (void)LoginVerdict::channel_owns(std::move(a.proof));
}

// Had it answered non-zero, the CM core would have destroyed the cm_id as
// well: the fake flags that as a destruction by both.
TEST_F(CmIdTest, TheCmCoreDestroyingAfterAZeroReturnIsADoubleDestroy) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  CmIdLease lease(SRPT_CM_IB, id);
  OwnedCmId::Adoption a = OwnedCmId::adopt(std::move(lease));
  (void)LoginVerdict::channel_owns(std::move(a.proof));
  a.id.destroy();
  fake::cm_destroy_by_caller(id);
  ExpectOneViolation("destroyed by both");
  EXPECT_EQ(2, id->destroys());
}

TEST_F(CmIdTest, TheChannelDestroyingAfterTheCmCoreIsADoubleDestroy) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
  fake::cm_destroy_by_caller(id);
  srpt_k_cm_destroy(SRPT_CM_RDMA, id);
  ExpectOneViolation("destroyed by both");
}

TEST_F(CmIdTest, DestroyingTwiceIsCaught) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
  srpt_k_cm_destroy(SRPT_CM_RDMA, id);
  srpt_k_cm_destroy(SRPT_CM_RDMA, id);
  ExpectOneViolation("destroyed twice");
  fake::CmId* other = fake::new_cm_id(SRPT_CM_IB);
  fake::cm_destroy_by_caller(other);
  fake::cm_destroy_by_caller(other);
  ExpectOneViolation("destroyed twice");
}

TEST_F(CmIdTest, AnIdNobodyDestroyedIsALeak) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  std::vector<std::string> leaks = fake::leaks();
  ASSERT_EQ(1u, leaks.size());
  EXPECT_NE(std::string::npos, leaks[0].find("never destroyed")) << leaks[0];
  fake::cm_destroy_by_caller(id);
  EXPECT_TRUE(fake::leaks().empty());
}

TEST_F(CmIdTest, UsingADestroyedIdIsCaught) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  fake::cm_destroy_by_caller(id);
  EXPECT_NE(0, srpt_k_cm_reject(SRPT_CM_IB, id, nullptr, 0));
  ExpectOneViolation("already destroyed");
  EXPECT_NE(0, srpt_k_cm_disconnect(SRPT_CM_IB, id, 0));
  ExpectOneViolation("already destroyed");
}

TEST_F(CmIdTest, DestroyingFromItsOwnCallbackIsCaught) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  id->in_callback++;
  srpt_k_cm_destroy(SRPT_CM_IB, id);
  id->in_callback--;
  ExpectOneViolation("from inside its own callback");
}

TEST_F(CmIdTest, ALeaseDroppedWithoutADecisionIsReported) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
  { CmIdLease lease(SRPT_CM_RDMA, id); }
  ExpectOneBugReport("cm_ == nullptr");
  fake::cm_destroy_by_caller(id);
}

TEST_F(CmIdTest, AnOwnedIdDroppedWithoutDestroyIsReported) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_RDMA);
  {
    CmIdLease lease(SRPT_CM_RDMA, id);
    OwnedCmId::Adoption a = OwnedCmId::adopt(std::move(lease));
    (void)LoginVerdict::channel_owns(std::move(a.proof));
  }
  ExpectOneBugReport("cm_ == nullptr");
  EXPECT_EQ(0, id->destroys());
  fake::cm_destroy_by_caller(id);  // only so that this test leaks nothing
}

TEST_F(CmIdTest, DestroyingAnOwnedIdTwiceDestroysItOnce) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  CmIdLease lease(SRPT_CM_IB, id);
  OwnedCmId::Adoption a = OwnedCmId::adopt(std::move(lease));
  (void)LoginVerdict::channel_owns(std::move(a.proof));
  a.id.destroy();
  a.id.destroy();
  ExpectOneBugReport("cm != nullptr");
  EXPECT_EQ(1, id->channel_destroys);
}

TEST_F(CmIdTest, AProofIsSingleUse) {
  fake::CmId* id = fake::new_cm_id(SRPT_CM_IB);
  CmIdLease lease(SRPT_CM_IB, id);
  OwnedCmId::Adoption a = OwnedCmId::adopt(std::move(lease));
  srpt::CmIdAdopted moved = std::move(a.proof);
  (void)LoginVerdict::channel_owns(std::move(moved));
  (void)LoginVerdict::channel_owns(std::move(moved));
  ExpectOneBugReport("proof.valid_");
  (void)LoginVerdict::channel_owns(std::move(a.proof));  // moved-from: empty
  ExpectOneBugReport("proof.valid_");
  a.id.destroy();
}

// --- the harness's end-of-test check ------------------------------------------------

namespace {

class OwnershipCheckTest : public LoginTest {};

}  // namespace

TEST_F(OwnershipCheckTest, FlagsTheCmCoreDestroyingAfterAZeroReturn) {
  const Outcome o = LiveChannel(SRPT_CM_IB);
  // A CM core that ignores the zero return (or a core that returned zero
  // while keeping nothing) destroys the id under the channel.
  fake::cm_destroy_by_caller(o.id);
  const std::vector<std::string> p = OwnershipProblems(o.id);
  ASSERT_FALSE(p.empty());
  EXPECT_NE(std::string::npos, p.back().find("after a zero return")) << p.back();
  // The channel still uses and destroys it when it goes: the fake flags the
  // disconnect on a destroyed id and the double destroy.
  Receive(o, SimpleIu(srpt::srp::kILogout, 1));
  RunWorks();
  const std::vector<std::string> v = fake::take_violations();
  std::string all;
  for (const std::string& s : v) all += s + "\n";
  EXPECT_NE(std::string::npos, all.find("destroyed by both: the CM core destroyed it, then the channel")) << all;
  EXPECT_NE(std::string::npos, all.find("srpt_k_cm_disconnect(cm_id #1): the id was already destroyed")) << all;
  EXPECT_EQ(2u, OwnershipProblems(o.id).size());
  logins_.clear();  // checked here
}

TEST_F(OwnershipCheckTest, FlagsAChannelThatNeverDestroysItsId) {
  const Outcome o = LiveChannel(SRPT_CM_RDMA);
  const std::vector<std::string> p = OwnershipProblems(o.id);
  ASSERT_EQ(2u, p.size());
  EXPECT_NE(std::string::npos, p[0].find("destroyed 0 times")) << p[0];
  EXPECT_NE(std::string::npos, p[1].find("not destroyed by its channel")) << p[1];
  fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
  RunWorks();
  EXPECT_TRUE(OwnershipProblems(o.id).empty());
}

TEST_F(OwnershipCheckTest, FlagsAChannelDestroyingAfterANonZeroReturn) {
  LoginReq r = GoodReq(SRPT_CM_IB);
  r.opcode = 9;
  const Outcome o = Login(r);
  ASSERT_NE(0, o.ret);
  EXPECT_TRUE(OwnershipProblems(o.id).empty());
  srpt_k_cm_destroy(SRPT_CM_IB, o.id);
  ExpectOneViolation("destroyed by both");
  EXPECT_EQ(2u, OwnershipProblems(o.id).size());
  logins_.clear();
}
