// SPDX-License-Identifier: GPL-2.0
// Port events (Target::port_event, refresh_port): the
// event is only noted from the RDMA core's context, and the device's event
// work then logs a change of state, reads GID 0 again (a new GID renames the
// port for configfs; target ports made under the old name stay bound to
// it) and gives a port its missing DM agent.
#include <cstring>

#include "../fake/dm.h"
#include "../fake/port.h"
#include "../harness/login_test.h"

namespace {

// Port 1's GID after the change: a new interface id.
constexpr uint64_t kNewPort1Id = 0x949ea5fffe80aaaaull;
constexpr const char* kNewPort1Guid = "949e:a5ff:fe80:aaaa";
constexpr const char* kNewPort1Gid = "0xfe80000000000000949ea5fffe80aaaa";

class PortEventTest : public LoginTest {
 protected:
  void SetPort1Gid(uint64_t interface_id) {
    const GidBytes gid = MakeGid(kSubnetPrefix, interface_id);
    fake::set_port_gid0(Kdev(), 1, gid.data());
  }
  // The shim's event handler, then the module's work queue.
  void Event(srpt_port_event ev, uint32_t port_num = 1) {
    srpt_core_port_event(cdev_, port_num, ev);
    RunWorks();
  }
  srpt_k_device* Kdev() { return device().kdev(); }
};

TEST_F(PortEventTest, TheEventOnlyQueuesWorkAndTouchesNothingOfTheDevice) {
  const size_t gid_reads = fake::count_calls("srpt_k_port_gid0");
  const size_t port_reads = fake::count_calls("srpt_k_port_active");
  srpt_core_port_event(cdev_, 1, SRPT_PORT_EVENT_GID_CHANGE);
  EXPECT_EQ(gid_reads, fake::count_calls("srpt_k_port_gid0"));
  EXPECT_EQ(port_reads, fake::count_calls("srpt_k_port_active"));
  EXPECT_EQ(1u, fake::queued_works());
  // A second event before the work runs: one refresh.
  srpt_core_port_event(cdev_, 1, SRPT_PORT_EVENT_LID_CHANGE);
  EXPECT_EQ(1u, fake::queued_works());
  RunWorks();
  EXPECT_EQ(gid_reads + 1, fake::count_calls("srpt_k_port_gid0"));
}

TEST_F(PortEventTest, AGidChangeRenamesThePortForNewTargetPorts) {
  SetPort1Gid(kNewPort1Id);
  Event(SRPT_PORT_EVENT_GID_CHANGE);
  EXPECT_TRUE(fake::logged(SRPT_LOG_NOTICE,
                           std::string("mlx5_0 port 1: GID 0 changed; target port names now ") +
                               kNewPort1Guid + " and " + kNewPort1Gid + " (were " +
                               kPort1Guid + " and " + kPort1Gid + ")"))
      << fake::log_dump();
  // The new GID form names the port; the old one names nothing now.
  srpt_core_tport* t = nullptr;
  EXPECT_EQ(0, MakeTport(kNewPort1Gid, &t));
  EXPECT_EQ(-SRPT_EINVAL, MakeTport(kPort1Gid));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, std::string("no RDMA port has the GID \"") + kPort1Gid))
      << fake::log_dump();
  // Port 2 kept its names.
  EXPECT_EQ(0, MakeTport(kPort2Guid));
}

TEST_F(PortEventTest, ATargetPortMadeUnderTheOldNameKeepsServingLogins) {
  // The fixture serves port 1 under its GUID name.
  SetPort1Gid(kNewPort1Id);
  Event(SRPT_PORT_EVENT_GID_CHANGE);
  EXPECT_TRUE(fake::logged(SRPT_LOG_NOTICE, std::string("target port ") + kPort1Guid +
                                                ", made under the old name, still serves"))
      << fake::log_dump();
  ExpectAccepted(Login(GoodReq()));
  // The target core's WWN of it is still the name it was made under.
  EXPECT_STREQ(kPort1Guid, srpt_core_tport_name(tport_));
  // The new name of the same form is taken by it: refused, naming it.
  EXPECT_EQ(-SRPT_EEXIST, MakeTport(kNewPort1Guid));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, std::string("already has the target port ") + kPort1Guid))
      << fake::log_dump();
}

TEST_F(PortEventTest, EventsThatChangeNothingLogNothing) {
  const size_t lines = fake::log_lines().size();
  for (srpt_port_event ev : {SRPT_PORT_EVENT_LID_CHANGE, SRPT_PORT_EVENT_PKEY_CHANGE,
                             SRPT_PORT_EVENT_SM_CHANGE, SRPT_PORT_EVENT_GID_CHANGE,
                             SRPT_PORT_EVENT_CLIENT_REREGISTER, SRPT_PORT_EVENT_ACTIVE})
    Event(ev);
  EXPECT_EQ(lines, fake::log_lines().size()) << fake::log_dump();
  EXPECT_EQ(0, MakeTport(kPort1Gid)) << "the names are still the first ones";
}

TEST_F(PortEventTest, DownAndActiveAreLoggedOncePerChange) {
  fake::set_ports_down_until(~uint64_t{0});
  Event(SRPT_PORT_EVENT_ERR);
  Event(SRPT_PORT_EVENT_ERR);
  EXPECT_EQ(1u, fake::count_log_lines(SRPT_LOG_INFO, "mlx5_0 port 1: down")) << fake::log_dump();
  fake::set_ports_down_until(0);
  Event(SRPT_PORT_EVENT_ACTIVE);
  Event(SRPT_PORT_EVENT_ACTIVE);
  EXPECT_EQ(1u, fake::count_log_lines(SRPT_LOG_INFO, "mlx5_0 port 1: active")) << fake::log_dump();
  EXPECT_EQ(0u, fake::count_log_lines(SRPT_LOG_INFO, "mlx5_0 port 2: down")) << fake::log_dump();
  EXPECT_EQ(0u, fake::count_log_lines(SRPT_LOG_INFO, "mlx5_0 port 2: active")) << fake::log_dump();
}

TEST_F(PortEventTest, AMissingGidKeepsTheNamesAndIsNotedOnce) {
  // A MAC change on RoCE: the old default GID goes (an event), the new one
  // comes (another).
  fake::fail_call(fake::Call::PortGid0, -SRPT_EINVAL, 0, /*and_later=*/true);
  Event(SRPT_PORT_EVENT_GID_CHANGE);
  Event(SRPT_PORT_EVENT_GID_CHANGE);
  EXPECT_EQ(1u, fake::count_log_lines(
                    SRPT_LOG_INFO, std::string("mlx5_0 port 1: no GID 0 for now (error -22); "
                                               "target port names stay ") +
                                       kPort1Guid + " and " + kPort1Gid + " until it is back"))
      << fake::log_dump();
  EXPECT_EQ(0u, fake::count_log_lines(SRPT_LOG_WARNING, "GID 0")) << fake::log_dump();
  EXPECT_EQ(0, MakeTport(kPort1Gid)) << "the names are kept meanwhile";
  fake::disarm_call(fake::Call::PortGid0);
  SetPort1Gid(kNewPort1Id);
  Event(SRPT_PORT_EVENT_GID_CHANGE);
  EXPECT_TRUE(fake::logged(SRPT_LOG_NOTICE, std::string("target port names now ") + kNewPort1Guid))
      << fake::log_dump();
  // Missing again, then back unchanged.
  fake::fail_call(fake::Call::PortGid0, -SRPT_EINVAL);
  Event(SRPT_PORT_EVENT_GID_CHANGE);
  Event(SRPT_PORT_EVENT_GID_CHANGE);
  EXPECT_EQ(2u, fake::count_log_lines(SRPT_LOG_INFO, "mlx5_0 port 1: no GID 0 for now"))
      << fake::log_dump();
  EXPECT_EQ(1u, fake::count_log_lines(SRPT_LOG_INFO, "mlx5_0 port 1: GID 0 back, unchanged"))
      << fake::log_dump();
}

TEST_F(PortEventTest, AnEventForAPortNotServedIsIgnored) {
  srpt_core_port_event(cdev_, 7, SRPT_PORT_EVENT_GID_CHANGE);
  EXPECT_EQ(0u, fake::queued_works());
}

TEST_F(PortEventTest, RemovalRunsAQueuedRefreshBeforeTheDeviceGoes) {
  SetPort1Gid(kNewPort1Id);
  srpt_core_port_event(cdev_, 1, SRPT_PORT_EVENT_GID_CHANGE);
  ASSERT_EQ(1u, fake::queued_works());
  // The fake reports destroying a pending work item, or a work run on a
  // freed device (ASan).
  RemoveDevice(cdev_);
  cdev_ = nullptr;
  EXPECT_EQ(0u, fake::queued_works());
  EXPECT_FALSE(fake::logged(SRPT_LOG_NOTICE, "GID 0 changed")) << "the port was detached first";
  EXPECT_TRUE(fake::dm_agents().empty());
}

class PortEventAgentTest : public TargetTest {};

TEST_F(PortEventAgentTest, APortThatRefusedItsAgentGetsOneWhenItComesBack) {
  FakeDevice dev = TwoPortDevice();
  fake::fail_call(fake::Call::DmAgentCreate, -SRPT_EOPNOTSUPP);
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  ASSERT_EQ(1u, fake::dm_agents().size());
  srpt_core_port_event(cdev, 1, SRPT_PORT_EVENT_ACTIVE);
  fake::run_works();
  EXPECT_EQ(2u, fake::dm_agents().size());
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "mlx5_0 port 1: device management agent registered"))
      << fake::log_dump();
  // A PORT_ERR alone reads nothing again.
  const size_t creates = fake::call_count(fake::Call::DmAgentCreate);
  srpt_core_port_event(cdev, 2, SRPT_PORT_EVENT_ERR);
  fake::run_works();
  EXPECT_EQ(creates, fake::call_count(fake::Call::DmAgentCreate));
  RemoveDevice(cdev);
  EXPECT_TRUE(fake::dm_agents().empty());
}

TEST_F(PortEventAgentTest, AFailedEventWorkFailsTheAddCleanly) {
  FakeDevice dev = TwoPortDevice();
  fake::fail_call(fake::Call::WorkCreate, -SRPT_ENOMEM);
  EXPECT_EQ(-SRPT_ENOMEM, AddDevice(dev));
  EXPECT_TRUE(fake::dm_agents().empty());
}

}  // namespace
