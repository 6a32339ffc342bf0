// SPDX-License-Identifier: GPL-2.0
// The target registry (src/core/target.cpp) through the C entry points the
// shim calls: devices, target ports, TPGs and the service GUID.
#include <srpt/core/tpg.h>

#include <string>

#include "../harness/target_test.h"

namespace {

class RegistryTest : public TargetTest {
 protected:
  // Whether a TPG currently accepts logins. Not part of the C ABI yet: read
  // from the core object the opaque handle points to.
  static bool Enabled(srpt_core_tpg* tpg) {
    return reinterpret_cast<srpt::Tpg*>(tpg)->enabled();
  }
};

}  // namespace

TEST_F(RegistryTest, DeviceAddLogsThePortNames) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, kPort1Guid));
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, kPort1Gid));
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, kPort2Gid));
}

TEST_F(RegistryTest, TportByGuidForm) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
  EXPECT_STREQ(kPort1Guid, srpt_core_tport_name(t));
}

TEST_F(RegistryTest, TportByUppercaseGuidGetsTheCanonicalName) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport("949E:A5FF:FE80:2189", &t));
  EXPECT_STREQ(kPort2Guid, srpt_core_tport_name(t));
}

TEST_F(RegistryTest, TportByGidFormWithAndWithoutPrefix) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* with_prefix = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Gid, &with_prefix));
  EXPECT_STREQ(kPort1Gid, srpt_core_tport_name(with_prefix));

  srpt_core_tport* without_prefix = nullptr;
  const std::string bare = std::string(kPort2Gid).substr(2);
  ASSERT_EQ(0, MakeTport(bare.c_str(), &without_prefix));
  EXPECT_STREQ(kPort2Gid, srpt_core_tport_name(without_prefix));
}

TEST_F(RegistryTest, BothFormsOfOnePortCoexist) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* by_guid = nullptr;
  srpt_core_tport* by_gid = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &by_guid));
  ASSERT_EQ(0, MakeTport(kPort1Gid, &by_gid));
  EXPECT_NE(by_guid, by_gid);
}

TEST_F(RegistryTest, NameOfNoPortIsRefusedAndLogged) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  EXPECT_EQ(-SRPT_EINVAL, MakeTport("949e:a5ff:fe80:218a"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "949e:a5ff:fe80:218a")) << fake::log_dump();
  EXPECT_EQ(-SRPT_EINVAL, MakeTport("0xfe80000000000001949ea5fffe802188"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "0xfe80000000000001949ea5fffe802188"))
      << fake::log_dump();
}

TEST_F(RegistryTest, UnparsableNameIsRefusedAndLogged) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  EXPECT_EQ(-SRPT_EINVAL, MakeTport("ib.fe80000000000000949ea5fffe802188"));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "ib.fe80000000000000949ea5fffe802188"))
      << fake::log_dump();
  EXPECT_EQ(-SRPT_EINVAL, MakeTport(""));
}

TEST_F(RegistryTest, NoDeviceNoPort) {
  EXPECT_EQ(-SRPT_EINVAL, MakeTport(kPort1Guid));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, kPort1Guid));
}

TEST_F(RegistryTest, SecondTportOfOneFormIsRefused) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  ASSERT_EQ(0, MakeTport(kPort1Gid));
  const size_t before = fake::live_allocations();

  const std::string bare = std::string(kPort1Gid).substr(2);
  EXPECT_EQ(-SRPT_EEXIST, MakeTport(bare.c_str()));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, kPort1Gid)) << "names the existing one";
  EXPECT_EQ(-SRPT_EEXIST, MakeTport("0XFE80000000000000949EA5FFFE802188"));
  EXPECT_EQ(before, fake::live_allocations()) << "a refused tport kept memory";

  ASSERT_EQ(0, MakeTport(kPort1Guid));
  EXPECT_EQ(-SRPT_EEXIST, MakeTport("949E:A5FF:FE80:2188"));
}

TEST_F(RegistryTest, DroppedTportCanBeMadeAgain) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
  DropTport(t);
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
}

TEST_F(RegistryTest, PortWithoutGidIsSkipped) {
  FakeDevice dev("rxe0", kNodeGuid);
  dev.AddPortWithoutGid().AddPort(MakeGid(kSubnetPrefix, kPort2Id));
  ASSERT_EQ(0, AddDevice(dev));
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "rxe0 port 1")) << fake::log_dump();
  EXPECT_EQ(0, MakeTport(kPort2Guid));
}

// A port whose GID 0 cannot be read when its device is added (a RoCE port
// whose network device has no address yet) is served from the first port
// event after which it has one: its names are made then, configfs can
// name it, and it gets its DM agent.
TEST_F(RegistryTest, APortWithoutGidAtAddIsServedOnceItHasOne) {
  FakeDevice dev("rxe0", kNodeGuid);
  dev.AddPortWithoutGid().AddPort(MakeGid(kSubnetPrefix, kPort2Id));
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "rxe0 port 1: no GID 0 yet")) << fake::log_dump();
  EXPECT_EQ(-SRPT_EINVAL, MakeTport(kPort1Guid));
  EXPECT_EQ(-SRPT_EINVAL, MakeTport("0000:0000:0000:0000")) << "no name before a GID";
  const size_t agents = fake::dm_agents().size();

  const GidBytes gid = MakeGid(kSubnetPrefix, kPort1Id);
  fake::set_port_gid0(dev.kdev(), 1, gid.data());
  srpt_core_port_event(cdev, 1, SRPT_PORT_EVENT_GID_CHANGE);
  fake::run_works();
  EXPECT_TRUE(fake::logged(SRPT_LOG_NOTICE, "rxe0 port 1: GID 0 now readable; target port names"))
      << fake::log_dump();
  EXPECT_EQ(agents + 1, fake::dm_agents().size()) << "its DM agent, made with its names";
  srpt_core_tport* t = nullptr;
  EXPECT_EQ(0, MakeTport(kPort1Guid, &t));
}

// `rdma dev set NAME name NEW`: the RDMA core tells its clients, and every
// line the module logs afterwards, and debugfs, name the device as it is
// named now. Target port names (from GID 0) are not the device's name.
TEST_F(RegistryTest, ARenamedDeviceIsLoggedUnderItsNewName) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  srpt_core_device_rename(cdev, "srpt_renamed0");
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "device mlx5_0 is now named srpt_renamed0"))
      << fake::log_dump();
  fake::set_ports_down_until(~0ull);
  srpt_core_port_event(cdev, 1, SRPT_PORT_EVENT_ERR);
  fake::run_works();
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "srpt_renamed0 port 1: down")) << fake::log_dump();
  fake::set_ports_down_until(0);
  srpt_core_tport* t = nullptr;
  EXPECT_EQ(0, MakeTport(kPort1Guid, &t)) << "target port names do not change";
  // A name too long for the module is refused; the old one stays.
  srpt_core_device_rename(cdev, std::string(64, 'n').c_str());
  EXPECT_TRUE(fake::logged(SRPT_LOG_WARNING, "keeps the name srpt_renamed0")) << fake::log_dump();
}

TEST_F(RegistryTest, DeviceNameTooLongIsRefused) {
  FakeDevice dev(std::string(64, 'd'), kNodeGuid);
  dev.AddPort(MakeGid(kSubnetPrefix, kPort1Id));
  EXPECT_EQ(-SRPT_ENAMETOOLONG, AddDevice(dev));
  EXPECT_EQ(1u, fake::live_allocations()) << "only the Target may remain";

  FakeDevice longest(std::string(63, 'd'), kNodeGuid);
  longest.AddPort(MakeGid(kSubnetPrefix, kPort1Id));
  EXPECT_EQ(0, AddDevice(longest));
}

TEST_F(RegistryTest, TwoDevices) {
  FakeDevice a = TwoPortDevice();
  FakeDevice b("mlx5_1", 0x0002c90300000010ull);
  b.AddPort(MakeGid(kSubnetPrefix, 0x0002c90300000011ull));
  ASSERT_EQ(0, AddDevice(a));
  ASSERT_EQ(0, AddDevice(b));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport("0002:c903:0000:0011", &t));
  EXPECT_STREQ("0002:c903:0000:0011", srpt_core_tport_name(t));
  EXPECT_EQ(0, MakeTport(kPort2Guid));
}

TEST_F(RegistryTest, TpgMakeEnableDrop) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
  srpt_core_tpg* tpg = nullptr;
  ASSERT_EQ(0, MakeTpg(t, "tpg_1", &tpg));
  EXPECT_EQ(1, srpt_core_tpg_tag(tpg));
  EXPECT_FALSE(Enabled(tpg));

  EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 1));
  EXPECT_TRUE(Enabled(tpg));
  EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 1));  // idempotent
  EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 0));
  EXPECT_FALSE(Enabled(tpg));

  srpt_core_tpg* second = nullptr;
  ASSERT_EQ(0, MakeTpg(t, "tpg_2", &second));
  EXPECT_EQ(0, srpt_core_tpg_enable(second, 1));
  DropTpg(second);
  DropTpg(tpg);
  DropTport(t);
}

TEST_F(RegistryTest, DeviceRemovalDisablesAndDetaches) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Gid, &t));
  srpt_core_tpg* tpg = nullptr;
  ASSERT_EQ(0, MakeTpg(t, "tpg_1", &tpg));
  ASSERT_EQ(0, srpt_core_tpg_enable(tpg, 1));

  RemoveDevice(cdev);
  EXPECT_FALSE(Enabled(tpg));
  EXPECT_TRUE(fake::logged(SRPT_LOG_NOTICE, kPort1Gid)) << fake::log_dump();
  EXPECT_STREQ(kPort1Gid, srpt_core_tport_name(t)) << "the name outlives the device";

  fake::reset_log();
  EXPECT_EQ(-SRPT_ENODEV, srpt_core_tpg_enable(tpg, 1));
  EXPECT_FALSE(Enabled(tpg));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, kPort1Gid)) << fake::log_dump();
  EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 0)) << "disabling is always allowed";

  // The removed port can no longer be named...
  EXPECT_EQ(-SRPT_EINVAL, MakeTport(kPort1Guid));
  // ...and TPGs can still be made and dropped under the orphaned tport.
  srpt_core_tpg* late = nullptr;
  ASSERT_EQ(0, MakeTpg(t, "tpg_2", &late));
  DropTpg(late);

  DropTpg(tpg);
  DropTport(t);  // drops the last reference to the port
  EXPECT_EQ(1u, fake::live_allocations()) << "only the Target remains";
  EXPECT_EQ(2u, fake::live_mutexes()) << "the Target's registry lock and RDMA/CM lock";
}

// Destroying the IB/CM listener waits for its running
// REQ callbacks, which wait for a port's login lock (and the target lock):
// removal must hold neither there (the fake's listener destroy records a
// violation when one is held).
TEST_F(RegistryTest, DeviceRemovalDestroysTheListenerWithoutTheLoginLock) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  ASSERT_EQ(1u, fake::live_listeners());
  RemoveDevice(cdev);
  EXPECT_EQ(0u, fake::live_listeners());
  EXPECT_TRUE(fake::take_violations().empty());
}

TEST_F(RegistryTest, DeviceRemovalWithTportsOnBothPorts) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  srpt_core_tport* a = nullptr;
  srpt_core_tport* b = nullptr;
  srpt_core_tport* c = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &a));
  ASSERT_EQ(0, MakeTport(kPort1Gid, &b));
  ASSERT_EQ(0, MakeTport(kPort2Guid, &c));
  RemoveDevice(cdev);
  DropTport(b);
  DropTport(a);
  DropTport(c);
  EXPECT_EQ(1u, fake::live_allocations());
}

TEST_F(RegistryTest, ReaddedDeviceServesItsPortsAgain) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  RemoveDevice(cdev);
  EXPECT_EQ(-SRPT_EINVAL, MakeTport(kPort1Guid));
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport(kPort1Guid, &t));
  srpt_core_tpg* tpg = nullptr;
  ASSERT_EQ(0, MakeTpg(t, "1", &tpg));
  EXPECT_EQ(0, srpt_core_tpg_enable(tpg, 1));
}

TEST_F(RegistryTest, ServiceGuidAdoptedFromTheFirstDevice) {
  EXPECT_EQ(0u, srpt_core_service_guid(77)) << "no device yet: still 0";
  FakeDevice first = TwoPortDevice();
  FakeDevice second("mlx5_1", 0x0002c90300000010ull);
  second.AddPort(MakeGid(kSubnetPrefix, 0x0002c90300000011ull));
  ASSERT_EQ(0, AddDevice(first));
  EXPECT_EQ(kNodeGuid, srpt_core_service_guid(77));
  EXPECT_TRUE(fake::logged(SRPT_LOG_INFO, "service GUID 0x949ea5fffe802180"))
      << fake::log_dump();
  ASSERT_EQ(0, AddDevice(second));
  EXPECT_EQ(kNodeGuid, srpt_core_service_guid(77)) << "the first one stays";
}

TEST_F(RegistryTest, ServiceGuidParameterIsKept) {
  ExitCore();
  srpt_params p = DefaultParams();
  p.srpt_service_guid = 0x1122334455667788ull;
  ASSERT_EQ(0, InitCore(p));
  EXPECT_EQ(0x1122334455667788ull, srpt_core_service_guid(0));
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  EXPECT_EQ(0x1122334455667788ull, srpt_core_service_guid(0));
}

TEST_F(RegistryTest, ServiceGuidFallbackOutsideInitExit) {
  ExitCore();
  EXPECT_EQ(99u, srpt_core_service_guid(99));
  ASSERT_EQ(0, InitCore(DefaultParams()));
}

// A review finding: the parameter's sysfs file outlives the module's exit
// function, so `cat .../parameters/srpt_service_guid` may run while
// srpt_core_exit() frees the Target. The getter read the Target pointer
// and then took its lock: a Target freed in between was used after free.
TEST_F(RegistryTest, TheServiceGuidReadWhileTheModuleExitsUsesNoFreedTarget) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  RemoveDevice(cdev);
  bool exited = false;
  fake::before_next_mutex_lock([&] {
    ExitCore();
    exited = true;
  });
  const uint64_t guid = srpt_core_service_guid(7);
  fake::before_next_mutex_lock(nullptr);
  EXPECT_EQ(kNodeGuid, guid);
  EXPECT_FALSE(exited) << "the getter took a lock of the Target";
  ExitCore();
  EXPECT_EQ(7u, srpt_core_service_guid(7)) << "after exit: the parameter's own value";
}

TEST_F(RegistryTest, InitMakesTheTargetLocks) {
  EXPECT_EQ(2u, fake::live_mutexes());
  EXPECT_EQ(1u, fake::live_mutexes_of_class(SRPT_LOCK_TARGET));
  EXPECT_EQ(1u, fake::live_mutexes_of_class(SRPT_LOCK_RDMA_CM));
}

// One login lock per port, none global.
TEST_F(RegistryTest, EachPortHasItsOwnLoginLock) {
  EXPECT_EQ(0u, fake::live_mutexes_of_class(SRPT_LOCK_LOGIN));
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  EXPECT_EQ(2u, fake::live_mutexes_of_class(SRPT_LOCK_LOGIN));
  RemoveDevice(cdev);
  EXPECT_EQ(0u, fake::live_mutexes_of_class(SRPT_LOCK_LOGIN));
}

TEST_F(RegistryTest, InitTwiceIsABug) {
  const srpt_params p = DefaultParams();
  EXPECT_EQ(-SRPT_EBUSY, srpt_core_init(&p));
  ExpectOneBugReport("g_target == nullptr");
}

TEST_F(RegistryTest, ExitFreesEverything) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  srpt_core_tport* t = nullptr;
  ASSERT_EQ(0, MakeTport(kPort2Gid, &t));
  srpt_core_tpg* tpg = nullptr;
  ASSERT_EQ(0, MakeTpg(t, "1", &tpg));
  // The shim's order at module unload: ib_unregister_client() removes the
  // devices; configfs has already removed the directories.
  DropTpg(tpg);
  DropTport(t);
  RemoveDevice(cdev);
  EXPECT_EQ(1u, fake::live_allocations());
  EXPECT_EQ(2u, fake::live_mutexes());
  ExitCore();
  EXPECT_EQ(0u, fake::live_allocations());
  EXPECT_EQ(0u, fake::live_mutexes());
  EXPECT_EQ(5u, srpt_core_service_guid(5));
}

TEST_F(RegistryTest, EntryPointsReleaseTheLock) {
  FakeDevice dev = TwoPortDevice();
  srpt_core_device* cdev = nullptr;
  ASSERT_EQ(0, AddDevice(dev, &cdev));
  EXPECT_EQ(0u, fake::held_mutexes());
  EXPECT_EQ(-SRPT_EINVAL, MakeTport("949e:a5ff:fe80:0000"));
  EXPECT_EQ(0u, fake::held_mutexes());
  ASSERT_EQ(0, MakeTport(kPort1Guid));
  EXPECT_EQ(-SRPT_EEXIST, MakeTport(kPort1Guid));
  EXPECT_EQ(0u, fake::held_mutexes());
  fake::fail_nth_allocation(0);
  EXPECT_EQ(-SRPT_ENOMEM, MakeTport(kPort2Guid));
  EXPECT_EQ(0u, fake::held_mutexes());
}
