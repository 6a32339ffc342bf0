// SPDX-License-Identifier: GPL-2.0
#include "target_test.h"

#include "../fake/port.h"

#include <algorithm>

namespace {

template <class T>
void forget(std::vector<T*>& v, T* p) {
  auto it = std::find(v.begin(), v.end(), p);
  EXPECT_NE(v.end(), it) << "dropping an object the test did not make";
  if (it != v.end()) v.erase(it);
}

}  // namespace

srpt_params TargetTest::DefaultParams() {
  srpt_params p{};
  p.srp_max_req_size = 8276;
  p.srpt_srq_size = 4095;
  p.srpt_service_guid = 0;
  p.max_channels_per_nexus = 64;
  p.recv_ring_cache = 8;
  return p;
}

srpt_params TargetTest::ParamsWithRingCache(int32_t rings) {
  srpt_params p = DefaultParams();
  p.recv_ring_cache = rings;
  return p;
}

FakeDevice TargetTest::TwoPortDevice() {
  FakeDevice dev("mlx5_0", kNodeGuid);
  dev.AddPort(MakeGid(kSubnetPrefix, kPort1Id))
      .AddPort(MakeGid(kSubnetPrefix, kPort2Id));
  return dev;
}

void TargetTest::SetUp() {
  CoreTest::SetUp();
  ASSERT_EQ(0, InitCore(SetUpParams()));
}

void TargetTest::TearDown() {
  fake::disarm_allocation_failures();
  while (!tpgs_.empty()) DropTpg(tpgs_.back());
  while (!tports_.empty()) DropTport(tports_.back());
  while (!devices_.empty()) RemoveDevice(devices_.back());
  if (initialized_) ExitCore();
  CoreTest::TearDown();
}

int TargetTest::InitCore(const srpt_params& params) {
  const int ret = srpt_core_init(&params);
  if (ret == 0) initialized_ = true;
  return ret;
}

void TargetTest::ExitCore() {
  srpt_core_exit();
  initialized_ = false;
}

int TargetTest::AddDevice(FakeDevice& dev, srpt_core_device** out) {
  const srpt_device_desc desc = dev.desc();
  // What the shim would read again after a port event: the GIDs added.
  for (uint32_t i = 0; i < desc.port_count; i++)
    if (desc.ports[i].gid0_valid)
      fake::set_port_gid0(dev.kdev(), desc.ports[i].port_num, desc.ports[i].gid0);
  srpt_core_device* cdev = nullptr;
  const int ret = srpt_core_device_add(dev.kdev(), &desc, &cdev);
  if (ret == 0) {
    EXPECT_NE(nullptr, cdev);
    devices_.push_back(cdev);
    if (out) *out = cdev;
  }
  return ret;
}

void TargetTest::RemoveDevice(srpt_core_device* dev) {
  forget(devices_, dev);
  srpt_core_device_remove(dev);
}

int TargetTest::MakeTport(const char* name, srpt_core_tport** out) {
  srpt_core_tport* t = nullptr;
  const int ret = srpt_core_tport_make(name, &t);
  if (ret == 0) {
    EXPECT_NE(nullptr, t);
    tports_.push_back(t);
    if (out) *out = t;
  }
  return ret;
}

void TargetTest::DropTport(srpt_core_tport* tport) {
  forget(tports_, tport);
  srpt_core_tport_drop(tport);
}

int TargetTest::MakeTpg(srpt_core_tport* tport, const char* name,
                        srpt_core_tpg** out) {
  srpt_core_tpg* t = nullptr;
  srpt_k_tpg* ktpg = fake::new_ktpg(name);
  const int ret = srpt_core_tpg_make(tport, name, ktpg, &t);
  if (ret == 0) {
    EXPECT_NE(nullptr, t);
    tpgs_.push_back(t);
    ktpgs_.emplace_back(t, ktpg);
    if (out) *out = t;
  }
  return ret;
}

srpt_k_tpg* TargetTest::KTpg(srpt_core_tpg* tpg) {
  for (auto& p : ktpgs_)
    if (p.first == tpg) return p.second;
  ADD_FAILURE() << "not a TPG the test made";
  return nullptr;
}

void TargetTest::DropTpg(srpt_core_tpg* tpg) {
  forget(tpgs_, tpg);
  for (auto it = ktpgs_.begin(); it != ktpgs_.end(); ++it) {
    if (it->first == tpg) {
      ktpgs_.erase(it);
      break;
    }
  }
  srpt_core_tpg_drop(tpg);
}
