// SPDX-License-Identifier: GPL-2.0
#include "fake_device.h"

GidBytes MakeGid(uint64_t subnet_prefix, uint64_t interface_id) {
  GidBytes g{};
  for (int i = 0; i < 8; i++) {
    g[i] = static_cast<uint8_t>(subnet_prefix >> (56 - 8 * i));
    g[8 + i] = static_cast<uint8_t>(interface_id >> (56 - 8 * i));
  }
  return g;
}

FakeDevice::FakeDevice(std::string name, uint64_t node_guid)
    : name_(std::move(name)), node_guid_(node_guid) {}

FakeDevice& FakeDevice::AddPort(const GidBytes& gid, srpt_link_layer link) {
  srpt_port_desc p{};
  p.port_num = static_cast<uint32_t>(ports_.size() + 1);
  for (size_t i = 0; i < gid.size(); i++) p.gid0[i] = gid[i];
  p.gid0_valid = 1;
  p.link_layer = static_cast<uint8_t>(link);
  ports_.push_back(p);
  return *this;
}

FakeDevice& FakeDevice::AddPortWithoutGid() {
  srpt_port_desc p{};
  p.port_num = static_cast<uint32_t>(ports_.size() + 1);
  p.gid0_valid = 0;
  p.link_layer = SRPT_LINK_INFINIBAND;
  ports_.push_back(p);
  return *this;
}

FakeDevice& FakeDevice::AddIwarpPort(const GidBytes& gid) {
  AddPort(gid, SRPT_LINK_ETHERNET);
  ports_.back().iwarp = 1;
  return *this;
}

srpt_device_desc FakeDevice::desc() const {
  srpt_device_desc d{};
  d.name = name_.c_str();
  d.node_guid = node_guid_;
  d.port_count = static_cast<uint32_t>(ports_.size());
  d.ports = ports_.empty() ? nullptr : ports_.data();
  d.vendor_id = kFakeVendorId;
  d.vendor_part_id = kFakeVendorPartId;
  d.hw_ver = kFakeHwVer;
  d.max_qp_wr = max_qp_wr_;
  d.max_cqe = max_cqe_;
  return d;
}
