// SPDX-License-Identifier: GPL-2.0
// The core's C entry points (include/srpt/abi/{core,device,fabric}.h): each
// converts C types to core types, calls the Target, and converts the result
// back to a kernel return value. No decisions here.
#include <srpt/abi/cm.h>
#include <srpt/abi/cmd.h>
#include <srpt/abi/core.h>
#include <srpt/abi/queue.h>
#include <srpt/abi/session.h>
#include <srpt/abi/device.h>
#include <srpt/abi/dm.h>
#include <srpt/abi/fabric.h>
#include <srpt/abi/log.h>
#include <srpt/core/abi_handle.h>
#include <srpt/core/initiator_name.h>
#include <srpt/core/target.h>
#include <srpt/rt/assert.h>

namespace srpt {
namespace {

// Set by srpt_core_init() before the shim registers anything that can call in,
// cleared by srpt_core_exit() after everything that could is unregistered.
// Constant-initialised: the module loader runs no C++ constructors.
Target* g_target = nullptr;

// The service GUID in effect, for the parameter's getter: the sysfs file of
// a module parameter outlives the module's exit function, so a read may run
// while srpt_core_exit() frees the Target, and must not reach the Target
// (RegistryTest.TheServiceGuidReadWhileTheModuleExitsUsesNoFreedTarget).
// Published after init and after each device added (the first one may
// adopt its node GUID); g_service_guid_valid is cleared before the Target
// goes. Both atomic; constant-initialised.
u64 g_service_guid = 0;
bool g_service_guid_valid = false;

void publish_service_guid(u64 guid) {
  __atomic_store_n(&g_service_guid, guid, __ATOMIC_RELAXED);
  __atomic_store_n(&g_service_guid_valid, true, __ATOMIC_RELEASE);
}
void withdraw_service_guid() { __atomic_store_n(&g_service_guid_valid, false, __ATOMIC_RELEASE); }

}  // namespace
}  // namespace srpt

using srpt::g_target;
using srpt::publish_service_guid;
using srpt::withdraw_service_guid;

// The opaque ABI types stay incomplete: a pointer to one is a pointer to the
// core object it names, converted only here.
namespace {
srpt::Device* from_abi(srpt_core_device* d) { return reinterpret_cast<srpt::Device*>(d); }
srpt::TargetPort* from_abi(srpt_core_tport* t) { return reinterpret_cast<srpt::TargetPort*>(t); }
const srpt::TargetPort* from_abi(const srpt_core_tport* t) {
  return reinterpret_cast<const srpt::TargetPort*>(t);
}
srpt::Tpg* from_abi(srpt_core_tpg* t) { return reinterpret_cast<srpt::Tpg*>(t); }
}  // namespace

// SAFETY: a srpt_core_chan* the shim gives back is one to_abi(Channel&)
// made: the shim gets it only as the context of the channel's cm_id, QP
// and session, and gives it back only in their callbacks; the release work
// removes the session, destroys the QP (draining its completions) and the
// cm_id (waiting for its callback) before the channel's last reference can
// go (channel.h; ChannelTest.LogoutReleasesEverythingInOrder). Likewise a
// srpt_core_cmd* is one to_abi(Command&) made for srpt_k_cmd_create(),
// given back only for that slot's command context, which the channel
// destroys before its Commands. The two handle types are distinct, so the
// shim cannot give back one where the other is expected
// (tests/unit/abi/handles_check.sh).
srpt::Channel& srpt::from_abi(srpt_core_chan* ch) { return *reinterpret_cast<Channel*>(ch); }
srpt::Command& srpt::from_abi(srpt_core_cmd* cmd) { return *reinterpret_cast<Command*>(cmd); }
srpt_core_chan* srpt::to_abi(Channel& ch) { return reinterpret_cast<srpt_core_chan*>(&ch); }
srpt_core_cmd* srpt::to_abi(Command& cmd) { return reinterpret_cast<srpt_core_cmd*>(&cmd); }
// SAFETY: the device handle a DM agent gives back is the one add_device()
// passed when it made the agent; remove_device() destroys every agent
// (waiting for its handlers) before the Device.
srpt_core_device* srpt::to_abi(Device& dev) { return reinterpret_cast<srpt_core_device*>(&dev); }

extern "C" {

int srpt_core_init(const srpt_params* raw) noexcept {
  if (SRPT_CHECK_FAILED(g_target == nullptr)) return -SRPT_EBUSY;
  srpt::Result<srpt::Params> params = srpt::Params::from_module(*raw);
  if (!params.ok()) return params.error().to_kernel();
  srpt::Result<srpt::Own<srpt::Target>> target = srpt::Target::create(params.value());
  if (!target.ok()) return target.error().to_kernel();
  g_target = srpt::move(target).value().release();
  publish_service_guid(g_target->service_guid());
  return 0;
}

void srpt_core_exit(void) noexcept {
  if (g_target == nullptr) return;
  g_target->shutdown();
  withdraw_service_guid();
  srpt::destroy(srpt::exchange(g_target, nullptr));
}

void srpt_core_stop_rdma_cm(void) noexcept { g_target->stop_rdma_cm(); }

uint64_t srpt_core_service_guid(uint64_t fallback) noexcept {
  if (!__atomic_load_n(&srpt::g_service_guid_valid, __ATOMIC_ACQUIRE)) return fallback;
  return __atomic_load_n(&srpt::g_service_guid, __ATOMIC_RELAXED);
}

int srpt_core_device_add(srpt_k_device* kdev, const srpt_device_desc* desc,
                         srpt_core_device** out) noexcept {
  srpt::Result<srpt::Device*> dev = g_target->add_device(kdev, *desc);
  if (!dev.ok()) return dev.error().to_kernel();
  publish_service_guid(g_target->service_guid());
  *out = reinterpret_cast<srpt_core_device*>(dev.value());
  return 0;
}

void srpt_core_device_remove(srpt_core_device* dev) noexcept {
  g_target->remove_device(from_abi(dev));
}

void srpt_core_device_rename(srpt_core_device* dev, const char* name) noexcept {
  g_target->rename_device(*from_abi(dev), srpt::StringView::from_cstr(name));
}

void srpt_core_port_event(srpt_core_device* dev, uint32_t port_num,
                          srpt_port_event ev) noexcept {
  g_target->port_event(*from_abi(dev), port_num, ev);
}

void srpt_core_srq_event(srpt_core_srq* ctx, srpt_srq_event ev) noexcept {
  srpt::from_abi(ctx).on_event(ev);
}

void srpt_core_dm_answer(srpt_core_device* dev, uint32_t port_num, const void* req,
                         void* rsp) noexcept {
  // SAFETY: the shim passes two SRPT_DM_MAD_SIZE-byte MADs (abi/dm.h);
  // dm::Mad is that many bytes of alignment 1.
  static_assert(sizeof(srpt::dm::Mad) == SRPT_DM_MAD_SIZE && alignof(srpt::dm::Mad) == 1);
  g_target->dm_answer(*from_abi(dev), port_num, *static_cast<const srpt::dm::Mad*>(req),
                      static_cast<srpt::dm::Mad*>(rsp));
}

int srpt_core_tport_make(const char* name, srpt_core_tport** out) noexcept {
  srpt::Result<srpt::TargetPort*> t =
      g_target->make_tport(srpt::StringView::from_cstr(name));
  if (!t.ok()) return t.error().to_kernel();
  *out = reinterpret_cast<srpt_core_tport*>(t.value());
  return 0;
}

const char* srpt_core_tport_name(const srpt_core_tport* tport) noexcept {
  return from_abi(tport)->name().c_str();
}

void srpt_core_tport_drop(srpt_core_tport* tport) noexcept {
  g_target->drop_tport(from_abi(tport));
}

int srpt_core_tpg_make(srpt_core_tport* tport, const char* name,
                       srpt_k_tpg* ktpg, srpt_core_tpg** out) noexcept {
  srpt::Result<srpt::Tpg*> tpg = g_target->make_tpg(
      *from_abi(tport), srpt::StringView::from_cstr(name), ktpg);
  if (!tpg.ok()) return tpg.error().to_kernel();
  *out = reinterpret_cast<srpt_core_tpg*>(tpg.value());
  return 0;
}

uint16_t srpt_core_tpg_tag(const srpt_core_tpg*) noexcept { return srpt::Tpg::kTag; }

int srpt_core_tpg_enable(srpt_core_tpg* tpg, int enable) noexcept {
  return g_target->enable_tpg(*from_abi(tpg), enable != 0).to_kernel();
}

void srpt_core_tpg_drop(srpt_core_tpg* tpg) noexcept {
  g_target->drop_tpg(from_abi(tpg));
}

int srpt_core_rdma_cm_port_store(const char* buf, size_t len) noexcept {
  return g_target->set_rdma_cm_port(srpt::StringView(buf, len)).to_kernel();
}

uint16_t srpt_core_rdma_cm_port(void) noexcept { return g_target->rdma_cm_port(); }

uint32_t srpt_core_tpg_attr_show(srpt_core_tpg* tpg, srpt_tpg_attr attr) noexcept {
  return g_target->tpg_attribute(*from_abi(tpg), attr);
}

int srpt_core_tpg_attr_store(srpt_core_tpg* tpg, srpt_tpg_attr attr,
                             const char* buf, size_t len) noexcept {
  return g_target->set_tpg_attribute(*from_abi(tpg), attr, srpt::StringView(buf, len))
      .to_kernel();
}

int srpt_core_acl_name_check(const char* name) noexcept {
  if (srpt::is_valid_acl_name(srpt::StringView::from_cstr(name))) return 0;
  srpt_log(SRPT_LOG_ERR,
           "ACL name \"%s\" is none of: port GUID, 0x + 32 hex digits, "
           "32 hex digits, IPv4 or IPv6 address\n",
           name);
  return -SRPT_EINVAL;
}

void srpt_core_show_channels(srpt_k_seq* seq) noexcept {
  if (g_target != nullptr) g_target->show_channels(seq);
}

void srpt_core_acl_info(srpt_core_tpg* tpg, const char* acl_name, srpt_k_seq* seq) noexcept {
  if (g_target != nullptr && acl_name != nullptr)
    g_target->show_acl_info(*from_abi(tpg), srpt::StringView::from_cstr(acl_name), seq);
}

void srpt_core_show_objects(srpt_k_seq* seq) noexcept {
  if (g_target != nullptr) g_target->show_objects(seq);
}

// --- the login path and the channels' callbacks ----------------------------

int srpt_core_login(const srpt_login_event* ev) noexcept {
  return g_target->login(*ev).to_kernel();
}

void srpt_core_cm_event(srpt_core_chan* ch, srpt_cm_event ev) noexcept {
  srpt::from_abi(ch).on_cm_event(ev);
}

void srpt_core_recv_done(srpt_core_chan* ch, uint32_t index, uint32_t byte_len, int ok) noexcept {
  srpt::from_abi(ch).on_recv(index, byte_len, ok != 0);
}

void srpt_core_send_done(srpt_core_chan* ch, uint32_t index, int ok) noexcept {
  srpt::from_abi(ch).on_send(index, ok != 0);
}

void srpt_core_qp_event(srpt_core_chan* ch, srpt_qp_event ev, const char* name) noexcept {
  srpt::from_abi(ch).on_qp_event(ev, name);
}

void srpt_core_session_close(srpt_core_chan* ch) noexcept {
  srpt::from_abi(ch).close(srpt::CloseReason::SessionClosed);
}

int srpt_core_cmd_write_pending(srpt_core_cmd* cmd) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  return c.channel().on_write_pending(c);
}

int srpt_core_cmd_queue_data_in(srpt_core_cmd* cmd) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  return c.channel().on_queue_data_in(c);
}

int srpt_core_cmd_queue_status(srpt_core_cmd* cmd) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  return c.channel().on_queue_status(c);
}

void srpt_core_cmd_queue_tm_rsp(srpt_core_cmd* cmd) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  c.channel().on_queue_tm_rsp(c);
}

void srpt_core_cmd_aborted(srpt_core_cmd* cmd) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  c.channel().on_aborted(c);
}

void srpt_core_cmd_release(srpt_core_cmd* cmd) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  c.channel().on_release(c);
}

void srpt_core_cmd_fetch_done(srpt_core_cmd* cmd, int ok) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  c.channel().on_fetch_done(c, ok != 0);
}

void srpt_core_cmd_rdma_done(srpt_core_cmd* cmd, int wc_status) noexcept {
  srpt::Command& c = srpt::from_abi(cmd);
  c.channel().on_rdma_done(c, wc_status);
}

}  // extern "C"
