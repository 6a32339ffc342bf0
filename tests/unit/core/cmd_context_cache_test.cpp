// SPDX-License-Identifier: GPL-2.0
// The device's cache of command-context sets (cmd_context_cache.h): a login
// after a logout rebinds the released channel's contexts to its own QP and
// slots instead of making them; only a whole set of the same slot count is
// reused, and only once its old QP is gone; a set a failed login left half
// made is freed; the cache gives every set back kIdleMs after it was last
// used, at device removal, and at once when it is off.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <srpt/abi/fabric.h>
#include <srpt/core/cmd_context_cache.h>

#include "../harness/login_test.h"

namespace {

using srpt::IdleCache;

constexpr uint64_t kMs = 1000000u;

class CmdContextCacheTest : public LoginTest {
 protected:
  static unsigned long long Cached() { return Objects("cmd_sets_cached"); }
  static size_t CmdCreates() { return fake::call_count(fake::Call::CmdCreate); }
  // A command received on `o`, answered GOOD, its response sent and
  // completed: the context of its slot serves the channel.
  void ServeOneCommand(const Outcome& o, uint64_t tag) {
    SrpCmd c;
    c.tag = tag;
    const size_t submitted = fake::submissions().size();
    Receive(o, EncodeSrpCmd(c));
    ASSERT_EQ(submitted + 1, fake::submissions().size());
    srpt_k_cmd* cmd = fake::submissions().back().cmd;
    EXPECT_EQ(Qp(o), cmd->qp) << "bound to this channel's QP";
    Answer(cmd);
    ASSERT_EQ(1u, Posted(o).size());
    EXPECT_EQ(fake::PostedSend::Kind::CmdRsp, Posted(o).front().kind);
    EXPECT_EQ(cmd, Posted(o).front().cmd);
    fake::complete_send(Qp(o));
    EXPECT_EQ(0u, fake::active_cmds());
  }
};

TEST_F(CmdContextCacheTest, ALoginAfterALogoutRebindsTheReleasedChannelsContexts) {
  const size_t live = fake::live_cmds();
  const Outcome first = LiveChannel(SRPT_CM_RDMA);
  ServeOneCommand(first, 1);
  srpt_k_cmd* used = fake::submissions().back().cmd;
  Logout(first);
  EXPECT_EQ(live + kCredits, fake::live_cmds()) << "the contexts stay, cached";
  EXPECT_EQ(1u, Cached());

  const size_t creates = CmdCreates();
  const Outcome second = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ(creates, CmdCreates()) << "no context made";
  EXPECT_EQ(live + kCredits, fake::live_cmds());
  EXPECT_EQ(0u, Cached());
  EXPECT_EQ(1u, Objects("cmd_sets_reused"));
  EXPECT_EQ(1, used->binds);
  EXPECT_EQ(Qp(second), used->qp);
  // Every slot of the new channel has one of them, and they serve it.
  ServeOneCommand(second, 2);
  EXPECT_EQ(1, fake::submissions().back().cmd->binds);
}

TEST_F(CmdContextCacheTest, ASetOfAnotherSlotCountIsNotTaken) {
  Logout(LiveChannel(SRPT_CM_RDMA));
  ASSERT_EQ(1u, Cached());
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "16", 2));
  const size_t creates = CmdCreates();
  ExpectAccepted(Login(GoodReq(SRPT_CM_IB)));
  EXPECT_EQ(creates + 16, CmdCreates()) << "16 slots: a set of its own";
  EXPECT_EQ(1u, Cached()) << "the set of 128 waits for a login of its size";
}

TEST_F(CmdContextCacheTest, AHalfMadeSetOfAFailedLoginIsFreed) {
  const size_t live = fake::live_cmds();
  fake::fail_call(fake::Call::CmdCreate, -SRPT_ENOMEM, 10);
  const Outcome refused = Login(GoodReq(SRPT_CM_RDMA));
  ExpectRejected(refused, srpt::srp::kRejInsufficientResources);
  EXPECT_EQ(0u, Cached()) << "10 of 128 contexts: not a set to reuse";
  EXPECT_EQ(live, fake::live_cmds());
  // The next login makes a whole set of its own.
  const size_t creates = CmdCreates();
  ExpectAccepted(Login(GoodReq(SRPT_CM_RDMA)));
  EXPECT_EQ(creates + kCredits, CmdCreates());
}

TEST_F(CmdContextCacheTest, AFailedLoginGivesAWholeSetBack) {
  Logout(LiveChannel(SRPT_CM_RDMA));
  ASSERT_EQ(1u, Cached());
  // The step after the contexts fails: the set taken goes back whole.
  fake::fail_call(fake::Call::WorkCreate, -SRPT_ENOMEM);
  const Outcome refused = Login(GoodReq(SRPT_CM_RDMA));
  ExpectRejected(refused, srpt::srp::kRejInsufficientResources);
  EXPECT_EQ(1u, Cached());
  const size_t creates = CmdCreates();
  ExpectAccepted(Login(GoodReq(SRPT_CM_RDMA)));
  EXPECT_EQ(creates, CmdCreates());
}

TEST_F(CmdContextCacheTest, ASetUnusedForKIdleMsIsFreed) {
  const size_t live = fake::live_cmds();
  Logout(LiveChannel(SRPT_CM_RDMA));
  ASSERT_EQ(1u, Cached());
  fake::advance_ns(IdleCache::kIdleMs * kMs - 1);
  RunWorks();
  EXPECT_EQ(1u, Cached()) << "not yet";
  fake::advance_ns(1);
  RunWorks();
  EXPECT_EQ(0u, Cached());
  EXPECT_EQ(live, fake::live_cmds());
  EXPECT_EQ(0u, fake::later_works()) << "nothing cached: no trim work armed again";
}

TEST_F(CmdContextCacheTest, DeviceRemovalFreesTheCachedSets) {
  Logout(LiveChannel(SRPT_CM_RDMA));
  ASSERT_EQ(1u, Cached());
  RemoveDevice(cdev_);
  cdev_ = nullptr;
  EXPECT_EQ(0u, fake::live_cmds());
  EXPECT_EQ(0u, fake::later_works());
  EXPECT_EQ(0u, fake::live_works());
}

class BoundedCmdContextCacheTest : public CmdContextCacheTest {
 protected:
  srpt_params SetUpParams() const override { return ParamsWithRingCache(2); }
};

TEST_F(BoundedCmdContextCacheTest, AFullCacheFreesWhatIsGivenBack) {
  const size_t live = fake::live_cmds();
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srpt::srp::kMultiChanMulti;
  std::vector<Outcome> channels;
  for (int i = 0; i < 3; i++) {
    r.tag = 200 + i;
    channels.push_back(Login(r));
    ExpectAccepted(channels.back());
    Establish(channels.back());
  }
  for (const Outcome& o : channels) Logout(o);
  EXPECT_EQ(2u, Cached());
  EXPECT_EQ(live + 2 * kCredits, fake::live_cmds()) << "the third set was freed";
}

class NoCmdContextCacheTest : public CmdContextCacheTest {
 protected:
  srpt_params SetUpParams() const override { return ParamsWithRingCache(0); }
};

TEST_F(NoCmdContextCacheTest, ZeroKeepsNoSet) {
  const size_t live = fake::live_cmds();
  Logout(LiveChannel(SRPT_CM_RDMA));
  EXPECT_EQ(0u, Cached());
  EXPECT_EQ(live, fake::live_cmds());
  const size_t creates = CmdCreates();
  ExpectAccepted(Login(GoodReq(SRPT_CM_RDMA)));
  EXPECT_EQ(creates + kCredits, CmdCreates());
}

TEST_F(NoCmdContextCacheTest, TheSetGoesBackOnlyAfterItsQpIsDestroyed) {
  // Given back, a set may be rebound by the next login at once: no work
  // on the old QP may still name a context by then. With the cache off,
  // giving back destroys, so the trace shows where the release gives.
  const Outcome o = LiveChannel(SRPT_CM_IB);
  ServeOneCommand(o, 3);
  srpt_k_cmd* used = fake::submissions().back().cmd;
  srpt_k_qp* qp = Qp(o);
  Logout(o);
  const uint64_t qp_gone = fake::find_call("srpt_k_qp_destroy", qp);
  const uint64_t cmd_gone = fake::find_call("srpt_k_cmd_destroy", used);
  ASSERT_NE(0u, qp_gone);
  ASSERT_NE(0u, cmd_gone);
  EXPECT_LT(qp_gone, cmd_gone) << fake::trace_dump();

  // A login that fails after its contexts were bound gives them back from
  // its own unwinding (Channel::abort_login), with the QP still there.
  fake::fail_call(fake::Call::WorkCreate, -SRPT_ENOMEM);
  ExpectRejected(Login(GoodReq(SRPT_CM_RDMA)), srpt::srp::kRejInsufficientResources);
  const uint64_t made = fake::find_last_call("srpt_k_qp_create");
  const uint64_t qp2_gone = fake::find_call("srpt_k_qp_destroy", nullptr, -1, made);
  const uint64_t cmd2_gone = fake::find_call("srpt_k_cmd_destroy", nullptr, -1, made);
  ASSERT_NE(0u, qp2_gone);
  ASSERT_NE(0u, cmd2_gone);
  EXPECT_LT(qp2_gone, cmd2_gone) << fake::trace_dump();
}

}  // namespace
