// SPDX-License-Identifier: GPL-2.0
// The core's object counts (include/srpt/core/object_counts.h) as debugfs
// ib_srpt/objects shows them (srpt_core_show_objects): live channels, cm_ids
// adopted by channels and destroyed by them. The guest's fault-injection
// cases rely on them to check "destroyed exactly once" and "nothing kept".
#include <map>
#include <sstream>
#include <string>

#include <srpt/abi/fabric.h>

#include "../fake/seq.h"
#include "../harness/login_test.h"

namespace {

class ObjectCountsTest : public LoginTest {
 protected:
  // The allocation walk counts the login's own allocations: no ring or
  // command-context set cached by an earlier step stands in for one.
  srpt_params SetUpParams() const override { return ParamsWithRingCache(0); }
  // The "name value" lines of the core's part of ib_srpt/objects.
  std::map<std::string, unsigned long long> Counts() {
    srpt_k_seq seq;
    srpt_core_show_objects(&seq);
    std::map<std::string, unsigned long long> m;
    std::istringstream in(seq.text);
    std::string name;
    unsigned long long value;
    while (in >> name >> value) m[name] = value;
    EXPECT_EQ(7u, m.size()) << seq.text;
    return m;
  }
  void ExpectCounts(unsigned long long channels, unsigned long long adopted,
                    unsigned long long destroyed) {
    auto m = Counts();
    EXPECT_EQ(channels, m["channels"]);
    EXPECT_EQ(adopted, m["cm_adopted"]);
    EXPECT_EQ(destroyed, m["cm_destroyed"]);
    EXPECT_EQ(0u, m["recv_rings_cached"]) << "recv_ring_cache=0";
    EXPECT_EQ(0u, m["recv_rings_reused"]);
    EXPECT_EQ(0u, m["cmd_sets_cached"]);
    EXPECT_EQ(0u, m["cmd_sets_reused"]);
  }
};

}  // namespace

TEST_F(ObjectCountsTest, StartAtZero) { ExpectCounts(0, 0, 0); }

TEST_F(ObjectCountsTest, AnAcceptedLoginIsOneChannelOwningItsCmIdUntilReleased) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    SCOPED_TRACE(kind == SRPT_CM_IB ? "IB/CM" : "RDMA/CM");
    const Outcome o = LiveChannel(kind);
    const auto before = Counts();
    EXPECT_EQ(1u, before.at("channels"));
    EXPECT_EQ(before.at("cm_destroyed") + 1, before.at("cm_adopted"));
    fake::cm_event(o.id, SRPT_CM_EV_DISCONNECT);
    RunWorks();
    ExpectReleasedByChannel(o);
    const auto after = Counts();
    EXPECT_EQ(0u, after.at("channels"));
    EXPECT_EQ(before.at("cm_adopted"), after.at("cm_adopted"));
    EXPECT_EQ(after.at("cm_adopted"), after.at("cm_destroyed"));
  }
  ExpectCounts(0, 2, 2);
}

TEST_F(ObjectCountsTest, ARejectedLoginLeavesNoChannelAndAdoptsNothing) {
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.it_iu_len = 32;  // too short: refused before any channel is made
  ExpectRejected(Login(r), srpt::srp::kRejIuTooLarge);
  ExpectCounts(0, 0, 0);
  // Refused after the channel was made (resources): the channel goes too.
  fake::fail_call(fake::Call::SessionCreate, -SRPT_ENOMEM);
  ExpectRejected(Login(GoodReq(SRPT_CM_RDMA)), srpt::srp::kRejInsufficientResources);
  fake::disarm_call(fake::Call::SessionCreate);
  ExpectCounts(0, 0, 0);
}

TEST_F(ObjectCountsTest, AFailedAcceptIsAdoptedAndDestroyedByTheChannel) {
  fake::fail_call(fake::Call::CmAccept, -SRPT_EIO);
  const Outcome o = Login(GoodReq(SRPT_CM_RDMA));
  EXPECT_EQ(0, o.ret);
  ExpectCounts(1, 1, 0);  // the release work has not run yet
  RunWorks();
  ExpectReleasedByChannel(o);
  ExpectCounts(0, 1, 1);
}

TEST_F(ObjectCountsTest, EveryFailedAllocationOfALoginLeavesTheCountsAlone) {
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "4", 1));
  size_t failed = 0;
  for (size_t n = 0; n < 100; n++) {
    fake::fail_nth_allocation(n);
    const Outcome o = Login(GoodReq(SRPT_CM_RDMA));
    const size_t injected = fake::injected_failure_count();
    fake::disarm_allocation_failures();
    if (injected == 0) {  // every allocation of the login failed once
      ExpectAccepted(o);
      break;
    }
    ExpectRejected(o, srpt::srp::kRejInsufficientResources);
    failed++;
    ExpectCounts(0, 0, 0);
  }
  EXPECT_EQ(kSmallLoginAllocations, failed);
  ExpectCounts(1, 1, 0);
}
