// SPDX-License-Identifier: GPL-2.0
// TargetTest: drives the core through its C entry points, as the shim does.
//
// SetUp initialises the core with the in-tree default parameters. Every
// object made through the helpers below is tracked until the matching drop,
// and TearDown undoes what is left in configfs order (TPGs, target ports,
// devices, core) before CoreTest's leak checks, so a failing test does not
// take the following ones down with it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <srpt/abi/core.h>
#include <srpt/abi/device.h>
#include <srpt/abi/fabric.h>

#include "core_test.h"
#include "fake_device.h"

// The standard test device: one HCA, two InfiniBand ports on the default
// subnet.
inline constexpr uint64_t kSubnetPrefix = 0xfe80000000000000ull;
inline constexpr uint64_t kNodeGuid = 0x949ea5fffe802180ull;
inline constexpr uint64_t kPort1Id = 0x949ea5fffe802188ull;
inline constexpr uint64_t kPort2Id = 0x949ea5fffe802189ull;
inline constexpr const char* kPort1Guid = "949e:a5ff:fe80:2188";
inline constexpr const char* kPort1Gid = "0xfe80000000000000949ea5fffe802188";
inline constexpr const char* kPort2Guid = "949e:a5ff:fe80:2189";
inline constexpr const char* kPort2Gid = "0xfe80000000000000949ea5fffe802189";

class TargetTest : public CoreTest {
 protected:
  // The in-tree driver's defaults.
  static srpt_params DefaultParams();
  // The defaults with recv_ring_cache = `rings` (0: a login always makes
  // its receive ring, as the allocation walks need).
  static srpt_params ParamsWithRingCache(int32_t rings);
  // What SetUp initialises the core with; a fixture overrides it for other
  // module parameters.
  virtual srpt_params SetUpParams() const { return DefaultParams(); }
  // "mlx5_0" with node GUID kNodeGuid and ports 1 and 2 as above.
  static FakeDevice TwoPortDevice();

  void SetUp() override;
  void TearDown() override;

  int InitCore(const srpt_params& params);
  void ExitCore();

  int AddDevice(FakeDevice& dev, srpt_core_device** out = nullptr);
  void RemoveDevice(srpt_core_device* dev);
  int MakeTport(const char* name, srpt_core_tport** out = nullptr);
  void DropTport(srpt_core_tport* tport);
  // Each TPG gets its own fake se_portal_group (fake::new_ktpg).
  int MakeTpg(srpt_core_tport* tport, const char* name,
              srpt_core_tpg** out = nullptr);
  // The fake se_portal_group the TPG was made with.
  srpt_k_tpg* KTpg(srpt_core_tpg* tpg);
  void DropTpg(srpt_core_tpg* tpg);

  bool initialized() const { return initialized_; }

 private:
  bool initialized_ = false;
  std::vector<srpt_core_device*> devices_;
  std::vector<srpt_core_tport*> tports_;
  std::vector<srpt_core_tpg*> tpgs_;
  std::vector<std::pair<srpt_core_tpg*, srpt_k_tpg*>> ktpgs_;
};
