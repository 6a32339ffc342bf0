// SPDX-License-Identifier: GPL-2.0
// The Device Management answers (src/core/dm_agent.cpp), field by field
// against the in-tree driver's (drivers/infiniband/ulp/srpt/ib_srpt.c,
// srpt_mgmt_method_get and what it calls).
#include <srpt/core/dm_agent.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

namespace dm = srpt::dm;

constexpr uint64_t kGuid = 0x0002c90300a1b2c3ull;

dm::IocFacts Facts() {
  dm::IocFacts f{};
  f.service_guid = kGuid;
  f.vendor_id = 0x0002c9;
  f.vendor_part_id = 0x1013;
  f.hw_ver = 0x1234;
  f.send_queue_depth = 128;
  f.send_size = 8260;
  f.max_rdma_size = 65536;
  return f;
}

dm::Mad Request(uint8_t method, uint16_t attr, uint32_t attr_mod) {
  dm::Mad m{};
  m.hdr.base_version = 1;
  m.hdr.mgmt_class = dm::kMgmtClass;
  m.hdr.class_version = 1;
  m.hdr.method = method;
  m.hdr.tid.set(0x1122334455667788ull);
  m.hdr.attr_id.set(attr);
  m.hdr.attr_mod.set(attr_mod);
  std::memset(m.data, 0xa5, sizeof(m.data));  // nothing of it may come back
  return m;
}

dm::Mad Answer(const dm::Mad& req, const dm::IocFacts& f = Facts()) {
  dm::Mad rsp;
  std::memset(static_cast<void*>(&rsp), 0x5a, sizeof(rsp));  // stale bytes
  dm::answer(req, f, &rsp);
  return rsp;
}

void ExpectHeaderEchoed(const dm::Mad& req, const dm::Mad& rsp) {
  EXPECT_EQ(dm::kMethodGetResp, rsp.hdr.method);
  EXPECT_EQ(req.hdr.tid.get(), rsp.hdr.tid.get()) << "the TID matches the answer to its request";
  EXPECT_EQ(req.hdr.attr_id.get(), rsp.hdr.attr_id.get());
  EXPECT_EQ(req.hdr.attr_mod.get(), rsp.hdr.attr_mod.get());
  EXPECT_EQ(dm::kMgmtClass, rsp.hdr.mgmt_class);
  for (uint8_t b : rsp.rmpp_and_dm_hdr) EXPECT_EQ(0, b);
}

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != 0) return false;
  return true;
}

TEST(DmAgentTest, ClassPortInfo) {
  const dm::Mad req = Request(dm::kMethodGet, dm::kAttrClassPortInfo, 0);
  const dm::Mad rsp = Answer(req);
  ExpectHeaderEchoed(req, rsp);
  EXPECT_EQ(dm::kStatusOk, rsp.hdr.status.get());
  const auto& cpi = *reinterpret_cast<const dm::ClassPortInfo*>(rsp.data);
  EXPECT_EQ(1, cpi.base_version);
  EXPECT_EQ(1, cpi.class_version);
  EXPECT_EQ(0, cpi.capability_mask.get());
  EXPECT_EQ(20u, cpi.cap_mask2_resp_time.get());
  EXPECT_TRUE(AllZero(rsp.data + 8, sizeof(rsp.data) - 8));
}

TEST(DmAgentTest, IoUnitInfoHasOneControllerInSlotOne) {
  const dm::Mad req = Request(dm::kMethodGet, dm::kAttrIouInfo, 0);
  const dm::Mad rsp = Answer(req);
  ExpectHeaderEchoed(req, rsp);
  EXPECT_EQ(dm::kStatusOk, rsp.hdr.status.get());
  const auto& iou = *reinterpret_cast<const dm::IouInfo*>(rsp.data);
  EXPECT_EQ(1, iou.change_id.get());
  EXPECT_EQ(16, iou.max_controllers);
  EXPECT_EQ(0, iou.op_rom);
  EXPECT_EQ(0x10, iou.controller_list[0]) << "slot 1 present (high nibble), slot 2 empty";
  EXPECT_TRUE(AllZero(iou.controller_list + 1, sizeof(iou.controller_list) - 1));
}

TEST(DmAgentTest, IocProfileOfSlotOne) {
  const dm::Mad req = Request(dm::kMethodGet, dm::kAttrIocProfile, 1);
  const dm::Mad rsp = Answer(req);
  ExpectHeaderEchoed(req, rsp);
  ASSERT_EQ(dm::kStatusOk, rsp.hdr.status.get());
  const auto& p = *reinterpret_cast<const dm::IocProfile*>(rsp.data);
  EXPECT_EQ(kGuid, p.guid.get());
  EXPECT_EQ(0x0002c9u, p.vendor_id.get());
  EXPECT_EQ(0x1013u, p.device_id.get());
  EXPECT_EQ(0x1234, p.device_version.get());
  EXPECT_EQ(0x0002c9u, p.subsys_vendor_id.get());
  EXPECT_EQ(0u, p.subsys_device_id.get());
  EXPECT_EQ(0x0100, p.io_class.get());
  EXPECT_EQ(0x609e, p.io_subclass.get());
  EXPECT_EQ(0x0108, p.protocol.get());
  EXPECT_EQ(0x0001, p.protocol_version.get());
  EXPECT_EQ(0, p.service_conn.get());
  EXPECT_EQ(0, p.initiators_supported.get());
  EXPECT_EQ(128, p.send_queue_depth.get());
  EXPECT_EQ(4, p.rdma_read_depth);
  EXPECT_EQ(8260u, p.send_size.get());
  EXPECT_EQ(65536u, p.rdma_size.get());
  EXPECT_EQ(0x01 | 0x02 | 0x08 | 0x20, p.op_cap_mask);
  EXPECT_EQ(0, p.svc_cap_mask);
  EXPECT_EQ(1, p.num_svc_entries);
  EXPECT_EQ(std::string("Linux SRP target"), std::string(p.id_string));
  EXPECT_TRUE(AllZero(reinterpret_cast<const uint8_t*>(p.id_string) + 16, 64 - 16));
  EXPECT_TRUE(AllZero(rsp.data + sizeof(dm::IocProfile), sizeof(rsp.data) - sizeof(dm::IocProfile)));
}

TEST(DmAgentTest, IocProfileReportsAtMost16MiBOfRdma) {
  dm::IocFacts f = Facts();
  f.max_rdma_size = 1u << 24;
  EXPECT_EQ(1u << 24, reinterpret_cast<const dm::IocProfile*>(
                          Answer(Request(dm::kMethodGet, dm::kAttrIocProfile, 2), f).data)
                          ->rdma_size.get());
  f.max_rdma_size = (1u << 24) + 4096;  // not settable today; the cap holds anyway
  EXPECT_EQ(1u << 24, reinterpret_cast<const dm::IocProfile*>(
                          Answer(Request(dm::kMethodGet, dm::kAttrIocProfile, 1), f).data)
                          ->rdma_size.get());
}

TEST(DmAgentTest, IocProfileSlotsAsInTree) {
  struct Case {
    uint32_t slot;
    uint16_t status;
  };
  for (Case c : {Case{0, dm::kStatusInvalidField}, Case{1, dm::kStatusOk},
                 Case{2, dm::kStatusOk}, Case{3, dm::kStatusNoIoc}, Case{16, dm::kStatusNoIoc},
                 Case{17, dm::kStatusInvalidField}, Case{0xffffffff, dm::kStatusInvalidField}}) {
    SCOPED_TRACE(c.slot);
    const dm::Mad req = Request(dm::kMethodGet, dm::kAttrIocProfile, c.slot);
    const dm::Mad rsp = Answer(req);
    ExpectHeaderEchoed(req, rsp);
    EXPECT_EQ(c.status, rsp.hdr.status.get());
    if (c.status != dm::kStatusOk) {
      EXPECT_TRUE(AllZero(rsp.data, sizeof(rsp.data)));
    }
  }
}

TEST(DmAgentTest, ServiceEntryNamesTheServiceGuid) {
  const dm::Mad req = Request(dm::kMethodGet, dm::kAttrSvcEntries, 1u << 16);  // slot 1, 0..0
  const dm::Mad rsp = Answer(req);
  ExpectHeaderEchoed(req, rsp);
  ASSERT_EQ(dm::kStatusOk, rsp.hdr.status.get());
  const auto& e = *reinterpret_cast<const dm::SvcEntries*>(rsp.data);
  EXPECT_EQ(std::string("SRP.T10:0002c90300a1b2c3"), std::string(e.entries[0].name));
  EXPECT_EQ(kGuid, e.entries[0].id.get());
  EXPECT_TRUE(AllZero(reinterpret_cast<const uint8_t*>(&e.entries[1]), 3 * sizeof(dm::SvcEntry)));
}

TEST(DmAgentTest, ServiceEntryRangesAsInTree) {
  struct Case {
    uint32_t slot, hi, lo;
    uint16_t status;
  };
  for (Case c : {Case{1, 0, 0, dm::kStatusOk}, Case{2, 1, 0, dm::kStatusOk},
                 Case{1, 1, 1, dm::kStatusOk}, Case{1, 0, 1, dm::kStatusNoIoc},
                 Case{1, 2, 0, dm::kStatusNoIoc}, Case{3, 0, 0, dm::kStatusNoIoc},
                 Case{0, 0, 0, dm::kStatusInvalidField}, Case{17, 0, 0, dm::kStatusInvalidField},
                 Case{0xffff, 0, 0, dm::kStatusInvalidField}}) {
    SCOPED_TRACE(::testing::Message() << c.slot << " " << c.hi << " " << c.lo);
    const dm::Mad req =
        Request(dm::kMethodGet, dm::kAttrSvcEntries, c.slot << 16 | c.hi << 8 | c.lo);
    const dm::Mad rsp = Answer(req);
    EXPECT_EQ(c.status, rsp.hdr.status.get());
    if (c.status != dm::kStatusOk) {
      EXPECT_TRUE(AllZero(rsp.data, sizeof(rsp.data)));
    }
  }
}

TEST(DmAgentTest, OtherAttributesAndMethods) {
  for (uint16_t attr : {0x0000, 0x0002, 0x0013, 0x0014, 0xffff}) {
    SCOPED_TRACE(attr);
    const dm::Mad rsp = Answer(Request(dm::kMethodGet, attr, 1));
    EXPECT_EQ(dm::kStatusUnsupMethodAttr, rsp.hdr.status.get());
    EXPECT_TRUE(AllZero(rsp.data, sizeof(rsp.data)));
  }
  for (uint16_t attr : {dm::kAttrClassPortInfo, dm::kAttrIouInfo, dm::kAttrIocProfile}) {
    const dm::Mad rsp = Answer(Request(dm::kMethodSet, attr, 1));
    EXPECT_EQ(dm::kStatusUnsupMethodAttr, rsp.hdr.status.get()) << "SET is refused as in-tree";
    EXPECT_EQ(dm::kMethodGetResp, rsp.hdr.method);
  }
  for (uint8_t method : {0x00, 0x03, 0x05, 0x06, 0x07, 0x81, 0xff}) {
    SCOPED_TRACE(method);
    const dm::Mad rsp = Answer(Request(method, dm::kAttrIocProfile, 1));
    EXPECT_EQ(dm::kStatusUnsupMethod, rsp.hdr.status.get());
  }
}

}  // namespace
