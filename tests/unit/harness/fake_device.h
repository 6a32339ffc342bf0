// SPDX-License-Identifier: GPL-2.0
// FakeDevice: what the shim's ib_client would report for an RDMA device, as
// the plain descriptors of include/srpt/abi/device.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <srpt/abi/device.h>

using GidBytes = std::array<uint8_t, 16>;

// A GID from its halves (host order), laid out in network byte order.
GidBytes MakeGid(uint64_t subnet_prefix, uint64_t interface_id);

class FakeDevice {
 public:
  FakeDevice(std::string name, uint64_t node_guid);

  // Adds the next port (port numbers count from 1) with GID 0 `gid`.
  FakeDevice& AddPort(const GidBytes& gid,
                      srpt_link_layer link = SRPT_LINK_INFINIBAND);
  // Adds a port whose GID query failed.
  FakeDevice& AddPortWithoutGid();
  // Adds an iWARP port (Ethernet link layer, no MADs).
  FakeDevice& AddIwarpPort(const GidBytes& gid);
  // The device attributes desc() reports (defaults: an mlx5 HCA's).
  FakeDevice& SetMaxQpWr(uint32_t n) {
    max_qp_wr_ = n;
    return *this;
  }
  FakeDevice& SetMaxCqe(uint32_t n) {
    max_cqe_ = n;
    return *this;
  }

  // Valid while this object lives and no port is added.
  srpt_device_desc desc() const;
  // The shim's handle: opaque to the core, which only hands it back.
  srpt_k_device* kdev() { return reinterpret_cast<srpt_k_device*>(this); }

 private:
  std::string name_;
  uint64_t node_guid_;
  std::vector<srpt_port_desc> ports_;
  uint32_t max_qp_wr_ = 32768;
  uint32_t max_cqe_ = 4194303;
};

inline constexpr uint32_t kFakeVendorId = 0x0002c9;
inline constexpr uint32_t kFakeVendorPartId = 0x1017;
inline constexpr uint32_t kFakeHwVer = 0x0;
