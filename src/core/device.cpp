// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/device.h>

#include <srpt/abi/log.h>

namespace srpt {

Result<Own<Device>> Device::create(srpt_k_device* kdev,
                                   const srpt_device_desc& desc) {
  Mutex srq_lock = SRPT_TRY(Mutex::create(SRPT_LOCK_SRQ));
  Own<Device> dev = SRPT_TRY(make_own<Device>(alloc_sleep, move(srq_lock)));
  StringView name = StringView::from_cstr(desc.name);
  if (!dev->name_.assign(name)) return Error::NameTooLong;
  dev->kdev_ = kdev;
  dev->node_guid_ = desc.node_guid;
  dev->vendor_id_ = desc.vendor_id;
  dev->vendor_part_id_ = desc.vendor_part_id;
  dev->hw_ver_ = desc.hw_ver;
  dev->max_qp_wr_ = desc.max_qp_wr;
  dev->max_cqe_ = desc.max_cqe;

  for (u32 i = 0; i < desc.port_count; i++) {
    Result<RefPtr<Port>> port = Port::create(name, desc.ports[i]);
    if (!port.ok()) return port.error();  // ~Device releases the ports made so far
    // A port whose GID cannot be read cannot be named in configfs: it is
    // served once a port event finds its GID 0 (Target::refresh_port).
    if (!port.value()->named())
      srpt_log(SRPT_LOG_WARNING,
               "%s port %u: no GID 0 yet; port not served until it has one\n", desc.name,
               desc.ports[i].port_num);
    // The list's reference is the one port.value() held.
    Port* p = port.value().get();
    p->add_ref();
    dev->ports_.push_back(*p);
  }
  return move(dev);
}

bool Device::rename(StringView name) {
  if (name.size() > decltype(name_)::capacity()) return false;
  (void)name_.assign(name);
  for (Port& p : ports_) p.set_device_name(name);
  return true;
}

Port* Device::port(u32 port_num) {
  for (Port& p : ports_)
    if (p.port_num() == port_num) return &p;
  return nullptr;
}

void Device::detach_ports() {
  for (Port& p : ports_) p.detach();
}

Device::~Device() {
  SRPT_ASSERT(!target_node.linked());
  SRPT_ASSERT(ib_listener == nullptr);
  // Removal destroyed it; a device that failed to be added was never
  // listed, so no event queued it.
  if (event_work != nullptr) srpt_k_work_destroy(event_work);
  while (Port* p = ports_.pop_front()) {
    if (p->release_ref()) destroy(p);
  }
}

}  // namespace srpt
