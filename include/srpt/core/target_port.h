// SPDX-License-Identifier: GPL-2.0
// TargetPort: a directory /sys/kernel/config/target/srpt/<name>, i.e. one
// name form of one RDMA port, and the TPGs below it.
//
// Lifetime: configfs mkdir..rmdir. configfs removes the TPGs first, so the
// TPG list is empty when the target port is dropped. A port has at most one
// TargetPort per name form: a second directory for the same form (say the
// GID form with and without "0x") is refused with -EEXIST, so that a login
// arriving on a port finds one well-defined set of TPGs.
//
// Locking: the TPG list is guarded by the Target's lock.
#pragma once

#include <srpt/core/port.h>
#include <srpt/core/port_name.h>
#include <srpt/core/tpg.h>
#include <srpt/rt/list.h>
#include <srpt/rt/refptr.h>

namespace srpt {

class TargetPort : Pinned {
 public:
  // Target lock held (the port's names are read).
  TargetPort(RefPtr<Port> port, PortNameForm form)
      : port_(move(port)),
        form_(form),
        name_(form == PortNameForm::Guid ? port_->guid_name() : port_->gid_name()) {}

  Port& port() const { return *port_; }
  PortNameForm form() const { return form_; }
  // The canonical name, formatted as the in-tree driver does, of the port
  // when the directory was made. Fixed for the directory's life, also when
  // a GID change renames the port (Target::refresh_port): the target core
  // reads it without our locks (the fabric's WWN).
  const PortName& name() const { return name_; }
  List<Tpg, &Tpg::tport_node>& tpgs() { return tpgs_; }

 private:
  RefPtr<Port> port_;
  PortNameForm form_;
  const PortName name_;
  List<Tpg, &Tpg::tport_node> tpgs_;
};

}  // namespace srpt
