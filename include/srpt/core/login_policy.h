// SPDX-License-Identifier: GPL-2.0
// The login rules that depend only on the request and the target's limits:
// which requests are refused with which SRP_LOGIN_REJ reason, and what a
// successful login grants. Checks that need the registry (TPG enabled, ACL,
// channel limit) and resources are made by the login handler, in the order
// the README's table lists them.
#pragma once

#include <srpt/core/login_request.h>
#include <srpt/core/srp_wire.h>
#include <srpt/rt/types.h>

namespace srpt {

struct LoginLimits {
  u32 max_req_size;   // srp_max_req_size
  u64 service_guid;   // both halves of a valid target_port_id
  u32 max_rsp_size;   // srp_max_rsp_size of the port
  u32 recv_depth;     // request IUs the channel will post
  // Non-zero: immediate data only at this offset (an SRQ's buffers are
  // shared by all channels, so they align one offset to a sector).
  u32 required_imm_offset;
};

// A refusal: the SRP reason and a human cause for the log line.
struct Rejection {
  u32 reason;
  const char* cause;
};

struct LoginGrant {
  u32 max_it_iu_len;   // never larger than requested
  u32 max_ti_iu_len;   // our responses fit in this
  u32 req_lim_delta;   // initial credits = request IUs posted
  bool immediate;      // IMMED_SUPP
  u16 imm_data_offset; // when immediate
  bool multi_channel;  // MULTI requested (else SINGLE)
};

class [[nodiscard]] LoginCheck {
 public:
  static LoginCheck accept(const LoginGrant& g) { return LoginCheck(g); }
  static LoginCheck reject(u32 reason, const char* cause) {
    return LoginCheck(Rejection{reason, cause});
  }
  bool ok() const { return ok_; }
  const LoginGrant& grant() const { return grant_; }
  const Rejection& rejection() const { return rejection_; }

 private:
  explicit LoginCheck(const LoginGrant& g) : ok_(true), grant_(g) {}
  explicit LoginCheck(const Rejection& r) : ok_(false), rejection_(r) {}
  bool ok_;
  LoginGrant grant_{};
  Rejection rejection_{};
};

// Opcode, IU length, descriptor formats, target port id; then the grant.
LoginCheck check_login_request(const LoginRequest& req,
                               const LoginLimits& limits);

}  // namespace srpt
