// SPDX-License-Identifier: GPL-2.0
// Device Management answers (include/srpt/core/dm_agent.h).
#include <srpt/core/dm_agent.h>

#include <srpt/rt/string.h>
#include <srpt/rt/utility.h>

namespace srpt::dm {
namespace {

// Four bits per slot, slot 1 in the high nibble of byte 0.
void set_slot(IouInfo& iou, u32 slot, u8 value) {
  u8& b = iou.controller_list[(slot - 1) / 2];
  b = (slot & 1) ? static_cast<u8>((value << 4) | (b & 0x0f))
                 : static_cast<u8>((b & 0xf0) | (value & 0x0f));
}

template <usize N>
void copy_str(char (&dst)[N], const char* s) {
  usize i = 0;
  for (; i + 1 < N && s[i] != '\0'; i++) dst[i] = s[i];
  for (; i < N; i++) dst[i] = '\0';
}

Status class_port_info(u8* data) {
  auto* cpi = reinterpret_cast<ClassPortInfo*>(data);
  cpi->base_version = kBaseVersion;
  cpi->class_version = kClassVersion;
  cpi->cap_mask2_resp_time.set(kRespTimeValue & 0x1f);
  return kStatusOk;
}

Status iou_info(u8* data) {
  auto* iou = reinterpret_cast<IouInfo*>(data);
  iou->change_id.set(1);
  iou->max_controllers = kMaxControllers;
  set_slot(*iou, 1, kSlotPresent);
  for (u32 slot = 2; slot <= kMaxControllers; slot++) set_slot(*iou, slot, kSlotEmpty);
  return kStatusOk;
}

// Slot 0 and slots beyond the unit's 16 are invalid; others without a
// controller have none.
Status slot_status(u32 slot) {
  if (slot == 0 || slot > kMaxControllers) return kStatusInvalidField;
  if (slot > kServedSlots) return kStatusNoIoc;
  return kStatusOk;
}

Status ioc_profile(u32 slot, const IocFacts& f, u8* data) {
  const Status s = slot_status(slot);
  if (s != kStatusOk) return s;
  auto* p = reinterpret_cast<IocProfile*>(data);
  p->guid.set(f.service_guid);
  p->vendor_id.set(f.vendor_id);
  p->device_id.set(f.vendor_part_id);
  p->device_version.set(static_cast<u16>(f.hw_ver));
  p->subsys_vendor_id.set(f.vendor_id);
  p->io_class.set(kIoClassSrpRev16a);
  p->io_subclass.set(kIoSubclassSrp);
  p->protocol.set(kProtocolSrp);
  p->protocol_version.set(kProtocolVersionSrp);
  p->send_queue_depth.set(static_cast<u16>(f.send_queue_depth));
  p->rdma_read_depth = kRdmaReadDepth;
  p->send_size.set(f.send_size);
  p->rdma_size.set(min(f.max_rdma_size, kMaxRdmaSizeReported));
  p->num_svc_entries = 1;
  p->op_cap_mask = kOpSendToIoc | kOpSendFromIoc | kOpRdmaReadFromIoc | kOpRdmaWriteFromIoc;
  copy_str(p->id_string, kIdString);
  return kStatusOk;
}

// attr_mod: slot in bits 31-16, the last entry wanted in 15-8, the first in
// 7-0. The controller has one entry (0).
Status svc_entries(u32 attr_mod, const IocFacts& f, u8* data) {
  const u32 slot = attr_mod >> 16;
  const u32 hi = (attr_mod >> 8) & 0xff;
  const u32 lo = attr_mod & 0xff;
  const Status s = slot_status(slot);
  if (s != kStatusOk) return s;
  if (lo > hi || hi > 1) return kStatusNoIoc;
  auto* e = reinterpret_cast<SvcEntries*>(data);
  SvcEntry& first = e->entries[0];
  first.id.set(f.service_guid);
  FixedString<sizeof(first.name)> name;  // "SRP.T10:" + 16 digits fit
  (void)name.assign(StringView(kServiceNamePrefix));
  (void)append_hex(name, f.service_guid, 16);
  copy_str(first.name, name.c_str());
  return kStatusOk;
}

Status get(const Mad& req, const IocFacts& f, u8* data) {
  switch (req.hdr.attr_id.get()) {
    case kAttrClassPortInfo: return class_port_info(data);
    case kAttrIouInfo: return iou_info(data);
    case kAttrIocProfile: return ioc_profile(req.hdr.attr_mod.get(), f, data);
    case kAttrSvcEntries: return svc_entries(req.hdr.attr_mod.get(), f, data);
    default: return kStatusUnsupMethodAttr;
  }
}

}  // namespace

void answer(const Mad& req, const IocFacts& facts, Mad* rsp) {
  *rsp = Mad{};
  rsp->hdr = req.hdr;
  rsp->hdr.method = kMethodGetResp;
  Status s;
  switch (req.hdr.method) {
    case kMethodGet: s = get(req, facts, rsp->data); break;
    // SET of any attribute (IOC profile and service entries are read-only
    // here, as in-tree).
    case kMethodSet: s = kStatusUnsupMethodAttr; break;
    default: s = kStatusUnsupMethod; break;
  }
  rsp->hdr.status.set(s);
  if (s != kStatusOk) {
    for (u8& b : rsp->data) b = 0;
  }
}

}  // namespace srpt::dm
