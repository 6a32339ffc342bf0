// SPDX-License-Identifier: GPL-2.0
// The DM agents of a device's ports (Target::add_device, remove_device,
// dm_answer): on which ports, what their answers take from the port and the
// module parameters, and the lock rule of their destruction.
#include <srpt/core/dm_wire.h>

#include "../harness/target_test.h"

namespace {

namespace dm = srpt::dm;

class DmPortTest : public TargetTest {
 protected:
  static dm::Mad Get(uint16_t attr, uint32_t attr_mod) {
    dm::Mad m{};
    m.hdr.base_version = 1;
    m.hdr.mgmt_class = dm::kMgmtClass;
    m.hdr.class_version = 1;
    m.hdr.method = dm::kMethodGet;
    m.hdr.tid.set(42);
    m.hdr.attr_id.set(attr);
    m.hdr.attr_mod.set(attr_mod);
    return m;
  }
  static const dm::IocProfile& Profile(const dm::Mad& rsp) {
    return *reinterpret_cast<const dm::IocProfile*>(rsp.data);
  }
};

}  // namespace

TEST_F(DmPortTest, EveryPortButIwarpGetsAnAgent) {
  FakeDevice dev("mixed0", kNodeGuid);
  dev.AddPort(MakeGid(kSubnetPrefix, kPort1Id))
      .AddIwarpPort(MakeGid(kSubnetPrefix, kPort2Id))
      .AddPort(MakeGid(kSubnetPrefix, kPort2Id + 1), SRPT_LINK_ETHERNET);  // RoCE
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  const auto agents = fake::dm_agents();
  ASSERT_EQ(2u, agents.size());
  EXPECT_EQ(std::make_pair(dev.kdev(), 1u), agents[0]);
  EXPECT_EQ(std::make_pair(dev.kdev(), 3u), agents[1]) << "RoCE included, as in-tree";
  RemoveDevice(cdev);
  EXPECT_TRUE(fake::dm_agents().empty());
}

TEST_F(DmPortTest, RemovalDestroysTheAgentsBeforeTheDeviceWithoutTheTargetLock) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  ASSERT_EQ(2u, fake::dm_agents().size());
  RemoveDevice(cdev);  // the fake records a violation for a lock held
  EXPECT_TRUE(fake::dm_agents().empty());
  EXPECT_EQ(2u, fake::count_calls("srpt_k_dm_agent_destroy"));
}

TEST_F(DmPortTest, APortThatRefusesTheAgentIsStillServed) {
  FakeDevice dev = TwoPortDevice();
  fake::fail_call(fake::Call::DmAgentCreate, -SRPT_EOPNOTSUPP);
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  const auto agents = fake::dm_agents();
  ASSERT_EQ(1u, agents.size());
  EXPECT_EQ(2u, agents[0].second);
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "mlx5_0 port 1: no device management agent"))
      << fake::log_dump();
  srpt_core_tport* t = nullptr;
  EXPECT_EQ(0, MakeTport(kPort1Guid, &t)) << "the port is still a target port";
  RemoveDevice(cdev);
}

TEST_F(DmPortTest, TheProfileTakesTheParametersAndThePortsAttributes) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  dm::Mad rsp{};
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 1, Get(dm::kAttrIocProfile, 1), &rsp));
  ASSERT_EQ(dm::kStatusOk, rsp.hdr.status.get());
  const dm::IocProfile& p = Profile(rsp);
  EXPECT_EQ(kNodeGuid, p.guid.get()) << "the service GUID: the first device's node GUID";
  EXPECT_EQ(kFakeVendorId, p.vendor_id.get());
  EXPECT_EQ(kFakeVendorPartId, p.device_id.get());
  EXPECT_EQ(8276u, p.send_size.get()) << "srp_max_req_size";
  EXPECT_EQ(128, p.send_queue_depth.get()) << "min(128, max_qp_wr) without SRQ";
  EXPECT_EQ(65536u, p.rdma_size.get()) << "srp_max_rdma_size's default";

  // The port's attributes, as configfs sets them.
  srpt_core_tport* t = nullptr;
  srpt_core_tpg* tpg = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
  ASSERT_EQ(0, MakeTpg(t, "tpgt_1", &tpg));
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg, SRPT_ATTR_MAX_RDMA_SIZE, "1048576", 7));
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg, SRPT_ATTR_USE_SRQ, "1", 1));
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 1, Get(dm::kAttrIocProfile, 1), &rsp));
  EXPECT_EQ(1048576u, Profile(rsp).rdma_size.get());
  EXPECT_EQ(4095, Profile(rsp).send_queue_depth.get()) << "srpt_srq_size with use_srq";
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 2, Get(dm::kAttrIocProfile, 1), &rsp));
  EXPECT_EQ(65536u, Profile(rsp).rdma_size.get()) << "port 2 keeps its own";
  EXPECT_EQ(128, Profile(rsp).send_queue_depth.get());
}

// With use_srq the profile reports the SRQ the logins share, which the
// device may have made smaller than srpt_srq_size asked.
TEST_F(DmPortTest, WithUseSrqTheSrqsRealDepthIsReported) {
  FakeDevice dev = TwoPortDevice();
  fake::set_max_srq_wr(1000);
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* t = nullptr;
  srpt_core_tpg* tpg = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
  ASSERT_EQ(0, MakeTpg(t, "tpgt_1", &tpg));
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg, SRPT_ATTR_USE_SRQ, "1", 1));
  dm::Mad rsp{};
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 1, Get(dm::kAttrIocProfile, 1), &rsp));
  EXPECT_EQ(1000, Profile(rsp).send_queue_depth.get())
      << "the SRQ made (max_srq_wr), not srpt_srq_size (4095)";
}

TEST_F(DmPortTest, ASmallDeviceReportsItsQueueDepth) {
  FakeDevice dev = TwoPortDevice();
  dev.SetMaxQpWr(64);
  ASSERT_EQ(0, AddDevice(dev));
  dm::Mad rsp{};
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 2, Get(dm::kAttrIocProfile, 2), &rsp));
  EXPECT_EQ(63, Profile(rsp).send_queue_depth.get())
      << "the credits a login gets: its receive queue holds a drain request too";
}

TEST_F(DmPortTest, TheProfileReportsTheCreditsOfALogin) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  dm::Mad rsp{};
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 1, Get(dm::kAttrIocProfile, 1), &rsp));
  EXPECT_EQ(128, Profile(rsp).send_queue_depth.get()) << "in-tree's min(128, max_qp_wr)";
  srpt_core_tport* t = nullptr;
  srpt_core_tpg* tpg = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
  ASSERT_EQ(0, MakeTpg(t, "tpgt_1", &tpg));
  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg, SRPT_ATTR_SQ_SIZE, "16", 2));
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 1, Get(dm::kAttrIocProfile, 1), &rsp));
  EXPECT_EQ(16, Profile(rsp).send_queue_depth.get()) << "a login is granted srp_sq_size";
}

TEST_F(DmPortTest, ServiceEntriesNameTheServiceGuidParameter) {
  srpt_params p = DefaultParams();
  p.srpt_service_guid = 0x0123456789abcdefull;
  ExitCore();
  ASSERT_EQ(0, InitCore(p));
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  dm::Mad rsp{};
  ASSERT_TRUE(fake::dm_query(dev.kdev(), 1, Get(dm::kAttrSvcEntries, 1u << 16), &rsp));
  const auto& e = *reinterpret_cast<const dm::SvcEntries*>(rsp.data);
  EXPECT_STREQ("SRP.T10:0123456789abcdef", e.entries[0].name);
  EXPECT_EQ(0x0123456789abcdefull, e.entries[0].id.get());
}
