// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/target.h>

#include <srpt/abi/log.h>
#include <srpt/rt/assert.h>

namespace srpt {
namespace {

const char* form_name(PortNameForm form) {
  return form == PortNameForm::Guid ? "GUID" : "GID";
}

// kstrtou16(page, 0, &val) semantics, as the in-tree attribute, on the text
// configfs hands over (the kernel parses its NUL-terminated page, so nothing
// after a NUL counts): one optional '+'; then hex after "0x"/"0X" when a hex
// digit follows, octal after a leading '0', decimal otherwise; then at most
// one '\n'. As in the kernel, a number that overflows 64 bits is Range even
// with junk after it, junk after any other number is Inval, and a well-formed
// number above 0xffff is Range.
Result<u16> parse_u16(StringView text) {
  for (usize i = 0; i < text.size(); i++) {
    if (text[i] == '\0') {
      text = text.substr(0, i);
      break;
    }
  }
  if (text.starts_with("+")) text = text.substr(1);
  unsigned base = 10;
  if (text.starts_with("0")) {
    base = 8;
    if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X') &&
        hex_digit_value(text[2]) >= 0) {
      base = 16;
      text = text.substr(2);
    }
  }
  u64 v = 0;
  bool overflow = false;
  usize digits = 0;
  for (; digits < text.size(); digits++) {
    const int d = hex_digit_value(text[digits]);
    if (d < 0 || static_cast<unsigned>(d) >= base) break;
    if (v > (~u64{0} - static_cast<u64>(d)) / base) overflow = true;
    v = v * base + static_cast<u64>(d);
  }
  if (overflow) return Error::Range;
  if (digits == 0) return Error::Inval;
  const StringView rest = text.substr(digits);
  if (!rest.empty() && rest != "\n") return Error::Inval;
  if (v > 0xffff) return Error::Range;
  return static_cast<u16>(v);
}

}  // namespace

Result<Own<Target>> Target::create(const Params& params) {
  Mutex lock = SRPT_TRY(Mutex::create(SRPT_LOCK_TARGET));
  return make_own<Target>(alloc_sleep, move(lock), params);
}

Target::~Target() {
  // module_exit runs after ib_unregister_client() removed every device, and
  // the module cannot be unloaded while configfs holds a target port.
  SRPT_ASSERT(devices_.empty());
}

Result<Device*> Target::add_device(srpt_k_device* kdev,
                                   const srpt_device_desc& desc) {
  Own<Device> dev = SRPT_TRY(Device::create(kdev, desc));
  MutexGuard guard(lock_);
  if (params_.service_guid == 0) {
    params_.service_guid = desc.node_guid;
    srpt_log(SRPT_LOG_INFO, "service GUID 0x%016llx (node GUID of %s)\n",
             static_cast<unsigned long long>(desc.node_guid), dev->name());
  }
  for (Port& p : dev->ports()) {
    srpt_log(SRPT_LOG_INFO, "%s port %u: target port names %s and %s\n",
             dev->name(), p.port_num(), p.guid_name().c_str(),
             p.gid_name().c_str());
  }
  Device* raw = move(dev).release();
  devices_.push_back(*raw);
  return raw;
}

void Target::remove_device(Device* dev) {
  {
    MutexGuard guard(lock_);
    devices_.remove(*dev);
    dev->detach_ports();
    for (Port& p : dev->ports()) {
      for (int f = 0; f < kPortNameFormCount; f++) {
        TargetPort* t = p.tport(static_cast<PortNameForm>(f));
        if (t == nullptr) continue;
        for (Tpg& tpg : t->tpgs()) tpg.enabled_ = false;
        srpt_log(SRPT_LOG_NOTICE,
                 "%s port %u removed; target port %s stays in configfs, "
                 "disabled, until it is removed\n",
                 dev->name(), p.port_num(), t->name().c_str());
      }
    }
  }
  // Ports referenced by target ports survive this; the rest go now.
  destroy(dev);
}

Port* Target::find_attached_port(const ParsedPortName& name) {
  for (Device& d : devices_)
    for (Port& p : d.ports())
      if (p.attached() && name.names(p.gid0())) return &p;
  return nullptr;
}

Result<TargetPort*> Target::make_tport(StringView name) {
  Result<ParsedPortName> parsed = parse_port_name(name);
  if (!parsed.ok()) {
    srpt_log(SRPT_LOG_ERR,
             "target port name \"%.*s\" is neither a port GUID "
             "(xxxx:xxxx:xxxx:xxxx) nor a port GID (0x + 32 hex digits)\n",
             static_cast<int>(name.size()), name.data());
    return parsed.error();
  }
  // The lookup, the uniqueness check and the registration are one critical
  // section, so two mkdirs naming the same port cannot both succeed.
  TargetPort* tport = nullptr;
  {
    MutexGuard guard(lock_);
    Port* port = find_attached_port(parsed.value());
    if (port == nullptr) {
      srpt_log(SRPT_LOG_ERR, "no RDMA port has the %s \"%.*s\"\n",
               form_name(parsed.value().form), static_cast<int>(name.size()),
               name.data());
      return Error::Inval;
    }
    PortNameForm form = parsed.value().form;
    if (TargetPort* existing = port->tport(form)) {
      srpt_log(SRPT_LOG_ERR,
               "\"%.*s\" names %s port %u, which already has the target port "
               "%s\n",
               static_cast<int>(name.size()), name.data(), port->device_name(),
               port->port_num(), existing->name().c_str());
      return Error::Exist;
    }
    tport = new (alloc_sleep) TargetPort(RefPtr<Port>(port), form);
    if (tport == nullptr) return Error::NoMem;
    port->set_tport(form, tport);
  }
  return tport;
}

void Target::drop_tport(TargetPort* tport) {
  {
    MutexGuard guard(lock_);
    SRPT_ASSERT(tport->tpgs().empty());
    Port& port = tport->port();
    SRPT_ASSERT(port.tport(tport->form()) == tport);
    port.set_tport(tport->form(), nullptr);
  }
  // Drops the port reference; a port of a removed device dies here.
  destroy(tport);
}

Result<Tpg*> Target::make_tpg(TargetPort& tport, StringView name) {
  (void)name;  // like the in-tree driver, any TPG name is accepted
  Tpg* tpg = new (alloc_sleep) Tpg(tport);
  if (tpg == nullptr) return Error::NoMem;
  MutexGuard guard(lock_);
  tport.tpgs().push_back(*tpg);
  return tpg;
}

Status Target::enable_tpg(Tpg& tpg, bool enable) {
  MutexGuard guard(lock_);
  Port& port = tpg.tport().port();
  if (enable && !port.attached()) {
    srpt_log(SRPT_LOG_ERR,
             "cannot enable a TPG of %s: %s port %u has been removed\n",
             tpg.tport().name().c_str(), port.device_name(), port.port_num());
    return Error::NoDev;
  }
  tpg.enabled_ = enable;
  return Status::ok_status();
}

void Target::drop_tpg(Tpg* tpg) {
  {
    MutexGuard guard(lock_);
    tpg->enabled_ = false;
    tpg->tport().tpgs().remove(*tpg);
  }
  destroy(tpg);
}

Status Target::set_rdma_cm_port(StringView text) {
  u16 port = SRPT_TRY(parse_u16(text));
  MutexGuard guard(lock_);
  rdma_cm_port_ = port;
  return Status::ok_status();
}

u16 Target::rdma_cm_port() {
  MutexGuard guard(lock_);
  return rdma_cm_port_;
}

u64 Target::service_guid() {
  MutexGuard guard(lock_);
  return params_.service_guid;
}

}  // namespace srpt
