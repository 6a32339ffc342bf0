// SPDX-License-Identifier: GPL-2.0
// Allocation-failure walks: every allocation an operation makes is failed in
// turn, and each time the operation must return -ENOMEM, keep no memory or
// mutex, report no bug, and leave the core as usable as before.
#include <cstdio>
#include <functional>
#include <string>

#include "../harness/target_test.h"

namespace {

class AllocFailureTest : public TargetTest {
 protected:
  // Runs `op` (returns 0 or a negative errno) with allocation attempt N failing,
  // for N = 0, 1, ... . After a failure it checks that nothing was kept, then
  // runs `op` unhindered and `undo` to prove the core still works. The walk
  // ends when `op` succeeds with the failure still armed, i.e. it made fewer
  // than N + 1 allocations: every failure point has been visited. Returns the
  // number of failure points. `tolerated`, when given, says whether `op` may
  // succeed despite the failure (a failure it is designed to survive).
  size_t Walk(const char* what, const std::function<int()>& op,
              const std::function<void()>& undo,
              const std::function<bool()>& tolerated = nullptr) {
    constexpr size_t kMaxPoints = 64;  // a runaway walk is a bug, too
    for (size_t n = 0; n < kMaxPoints; n++) {
      SCOPED_TRACE(std::string(what) + ": allocation " + std::to_string(n) +
                   " fails");
      const size_t blocks = fake::live_allocations();
      const size_t bytes = fake::live_bytes();
      const size_t mutexes = fake::live_mutexes();

      fake::fail_nth_allocation(n);
      const int ret = op();
      const bool injected = fake::injected_failure_count() > 0;
      fake::disarm_allocation_failures();

      if (!injected) {
        EXPECT_EQ(0, ret) << "failed with no allocation failing";
        if (ret == 0) undo();
        EXPECT_EQ(blocks, fake::live_allocations());
        std::printf("  %s: %zu allocation failure points walked\n", what, n);
        return n;
      }
      if (ret == 0 && tolerated && tolerated()) {
        undo();
        EXPECT_EQ(blocks, fake::live_allocations()) << "leaked a block";
        EXPECT_EQ(mutexes, fake::live_mutexes()) << "leaked a mutex";
        continue;
      }
      EXPECT_EQ(-SRPT_ENOMEM, ret);
      if (ret == 0) {
        undo();  // it swallowed the failure; keep the walk consistent
      } else {
        EXPECT_EQ(blocks, fake::live_allocations()) << "leaked a block";
        EXPECT_EQ(bytes, fake::live_bytes());
        EXPECT_EQ(mutexes, fake::live_mutexes()) << "leaked a mutex";
      }
      EXPECT_EQ(0u, fake::held_mutexes());
      const std::vector<fake::BugReport> bugs = TakeBugReports();
      EXPECT_TRUE(bugs.empty()) << bugs.front().str();

      // Still usable: the same operation succeeds without injection.
      EXPECT_EQ(0, op()) << "the core was left unusable";
      undo();
      EXPECT_EQ(blocks, fake::live_allocations());
      EXPECT_EQ(mutexes, fake::live_mutexes());
      if (HasFatalFailure()) break;
    }
    ADD_FAILURE() << what << ": the walk did not end";
    return 0;
  }
};

}  // namespace

TEST_F(AllocFailureTest, CoreInit) {
  ExitCore();
  const srpt_params params = DefaultParams();
  const size_t points = Walk(
      "srpt_core_init", [&] { return srpt_core_init(&params); },
      [] { srpt_core_exit(); });
  EXPECT_GE(points, 1u);
  ASSERT_EQ(0, InitCore(params));
}

TEST_F(AllocFailureTest, DeviceAddOfATwoPortDevice) {
  FakeDevice dev = TwoPortDevice();
  const srpt_device_desc desc = dev.desc();
  srpt_core_device* cdev = nullptr;
  const size_t points = Walk(
      "srpt_core_device_add",
      [&] { return srpt_core_device_add(dev.kdev(), &desc, &cdev); },
      [&] { srpt_core_device_remove(cdev); },
      // Without an IB/CM listener the device is still served (RDMA/CM).
      [] { return fake::logged(SRPT_LOG_WARNING, "no IB/CM listener"); });
  // The device, each of its ports (and its login lock) and the IB/CM
  // listener are allocations of their own.
  EXPECT_GE(points, 4u);
}

TEST_F(AllocFailureTest, TportMake) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  for (const char* name : {kPort1Guid, kPort1Gid}) {
    srpt_core_tport* t = nullptr;
    const size_t points = Walk(
        "srpt_core_tport_make", [&] { return srpt_core_tport_make(name, &t); },
        [&] { srpt_core_tport_drop(t); });
    EXPECT_GE(points, 1u) << name;
  }
}

TEST_F(AllocFailureTest, TpgMake) {
  FakeDevice dev = TwoPortDevice();
  ASSERT_EQ(0, AddDevice(dev));
  srpt_core_tport* tport = nullptr;
  ASSERT_EQ(0, MakeTport(kPort2Gid, &tport));
  srpt_core_tpg* tpg = nullptr;
  srpt_k_tpg* ktpg = fake::new_ktpg("tpg_1");
  const size_t points = Walk(
      "srpt_core_tpg_make",
      [&] { return srpt_core_tpg_make(tport, "tpg_1", ktpg, &tpg); },
      [&] { srpt_core_tpg_drop(tpg); });
  EXPECT_GE(points, 1u);
}

// Memory runs out for good part-way through bringing a target up: whichever
// step hits it fails with -ENOMEM, and tearing down what was made leaks
// nothing.
TEST_F(AllocFailureTest, EverythingFailsFromNOn) {
  ExitCore();
  const srpt_params params = DefaultParams();
  FakeDevice dev = TwoPortDevice();
  bool completed = false;
  for (size_t n = 0; n < 64 && !completed; n++) {
    SCOPED_TRACE("allocations fail from " + std::to_string(n) + " on");
    fake::fail_allocations_from(n);
    int ret = InitCore(params);
    srpt_core_device* cdev = nullptr;
    srpt_core_tport* tport = nullptr;
    srpt_core_tpg* tpg = nullptr;
    if (ret == 0) ret = AddDevice(dev, &cdev);
    if (ret == 0) ret = MakeTport(kPort1Guid, &tport);
    if (ret == 0) ret = MakeTpg(tport, "1", &tpg);
    if (ret == 0) ret = srpt_core_tpg_enable(tpg, 1);
    completed = fake::injected_failure_count() == 0;
    fake::disarm_allocation_failures();
    if (completed) {
      EXPECT_EQ(0, ret);
    } else {
      EXPECT_EQ(-SRPT_ENOMEM, ret);
    }
    if (tpg) DropTpg(tpg);
    if (tport) DropTport(tport);
    if (cdev) RemoveDevice(cdev);
    if (initialized()) ExitCore();
    EXPECT_EQ(0u, fake::live_allocations());
    EXPECT_EQ(0u, fake::live_mutexes());
    EXPECT_TRUE(TakeBugReports().empty());
  }
  EXPECT_TRUE(completed);
  ASSERT_EQ(0, InitCore(params));
}
