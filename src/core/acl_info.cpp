// SPDX-License-Identifier: GPL-2.0
// acls/<name>/info: the SRP sessions of one ACL, in the form iSCSI writes
// there, which is what rtslib parses for `targetcli sessions`.
//
// Rules:
// - A session is an I_T nexus (initiator port id, target port id, RDMA
//   port) of this TPG logged in under this ACL's name; its channels are its
//   connections. Its id is the login serial of its oldest listed channel:
//   stable while that channel lives, never shared by two sessions.
// - rtslib reads: "InitiatorName:" opens a session; "LIO Session ID: N"
//   and "SessionType: T" on one line; a TARG_SESS_STATE_ word; per
//   connection a line "...: CID ... TARG_CONN_STATE_..." and then a line
//   containing "Address" whose second and third words are the address and
//   the transport. No other line may contain those markers.
// - Printed under lock_, one line per srpt_k_seq_printf: a reader sees one
//   consistent set of channels, and a file cut at its size ends between
//   lines (the shim drops a line that does not fit whole).
// - Without a session: a single line starting "No active", as iSCSI.
#include <srpt/core/target.h>

#include <srpt/core/channel.h>
#include <srpt/core/tpg.h>

namespace srpt {
namespace {

const char* conn_state(Channel::State s) {
  switch (s) {
    case Channel::State::Connecting: return "TARG_CONN_STATE_IN_LOGIN";
    case Channel::State::Live: return "TARG_CONN_STATE_LOGGED_IN";
    case Channel::State::Closing: return "TARG_CONN_STATE_CLEANUP_WAIT";
    case Channel::State::Released: break;
  }
  return "TARG_CONN_STATE_FREE";
}

}  // namespace

void Target::show_acl_info(Tpg& tpg, StringView acl_name, srpt_k_seq* seq) {
  MutexGuard guard(lock_);
  auto listed = [&](Channel& ch) {
    return ch.tpg() == &tpg && StringView::from_cstr(ch.session_name()) == acl_name &&
           ch.state() < Channel::State::Released;
  };
  bool any = false;
  for (Channel& first : channels_) {
    if (!listed(first)) continue;
    // Each nexus once, from its oldest channel (channels_ is in login order).
    bool seen = false;
    for (Channel& before : channels_) {
      if (&before == &first) break;
      if (listed(before) && before.same_nexus(first)) seen = true;
    }
    if (seen) continue;
    any = true;
    auto of_session = [&](Channel& ch) { return listed(ch) && ch.same_nexus(first); };

    bool live = false, connecting = false;
    for (Channel& ch : channels_) {
      if (!of_session(ch)) continue;
      const Channel::State s = ch.state();
      live = live || s == Channel::State::Live;
      connecting = connecting || s == Channel::State::Connecting;
    }
    const char* sess_state = live         ? "TARG_SESS_STATE_LOGGED_IN"
                             : connecting ? "TARG_SESS_STATE_ACTIVE"
                                          : "TARG_SESS_STATE_FAILED";
    srpt_k_seq_printf(seq, "InitiatorName: %s\n", first.session_name());
    srpt_k_seq_printf(seq, "InitiatorAlias: %s\n", first.names().port_id_0x.c_str());
    srpt_k_seq_printf(seq, "LIO Session ID: %llu   SessionType: Normal\n",
                      static_cast<unsigned long long>(first.login_serial()));
    srpt_k_seq_printf(seq, "Session State: %s\n", sess_state);
    for (Channel& ch : channels_) {
      if (!of_session(ch)) continue;
      const Channel::Snapshot s = ch.snapshot();
      srpt_k_seq_printf(seq, "CID: %llu   Connection State: %s   Credits: %u of %u\n",
                        static_cast<unsigned long long>(ch.login_serial()),
                        conn_state(s.state), s.req_lim, ch.grant().req_lim_delta);
      srpt_k_seq_printf(seq, "   Address %s %s   Port: %s/%u\n", ch.names().short_name.c_str(),
                        ch.kind() == SRPT_CM_IB ? "IB_CM" : "RDMA_CM", ch.port().device_name(),
                        ch.port().port_num());
    }
  }
  if (!any)
    srpt_k_seq_printf(seq, "No active SRP session for Initiator Endpoint: %.*s\n",
                      static_cast<int>(acl_name.size()), acl_name.data());
}

}  // namespace srpt
