// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/port.h>

#include <srpt/rt/assert.h>

namespace srpt {

Result<RefPtr<Port>> Port::create(StringView device_name,
                                  const srpt_port_desc& desc) {
  Mutex login_lock = SRPT_TRY(Mutex::create(SRPT_LOCK_LOGIN));
  RefPtr<Port> port = RefPtr<Port>::adopt(new (alloc_sleep) Port(move(login_lock)));
  if (!port) return Error::NoMem;
  if (!port->device_name_.assign(device_name)) return Error::NameTooLong;
  port->port_num_ = desc.port_num;
  for (usize i = 0; i < sizeof(port->gid0_.raw); i++)
    port->gid0_.raw[i] = desc.gid0[i];
  port->link_layer_ = static_cast<srpt_link_layer>(desc.link_layer);
  port->iwarp_ = desc.iwarp != 0;
  if (desc.gid0_valid)
    port->set_gid0(port->gid0_);
  else
    port->gid0_missing_ = true;
  return move(port);
}

void Port::set_gid0(const Gid& gid) {
  gid0_ = gid;
  guid_name_ = format_guid_name(gid0_.interface_id());
  gid_name_ = format_gid_name(gid0_);
  named_ = true;
}

Port::~Port() {
  // A target port holds a reference, so none can still point here.
  for (TargetPort* t : tports_) SRPT_ASSERT(t == nullptr);
  SRPT_ASSERT(!device_node.linked());
}

}  // namespace srpt
