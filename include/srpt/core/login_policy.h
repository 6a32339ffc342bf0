// SPDX-License-Identifier: GPL-2.0
// The login rules that depend only on the request and the target's limits:
// which requests are refused with which SRP_LOGIN_REJ reason, and what a
// successful login grants. Checks that need the registry (TPG enabled, ACL,
// channel limit) and resources are made by the login handler, in the order
// of the table at the top of src/core/login.cpp.
#pragma once

#include <srpt/core/login_request.h>
#include <srpt/core/srp_wire.h>
#include <srpt/rt/types.h>
#include <srpt/rt/utility.h>

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

// The credits a login grants, which are also the request IUs its channel
// posts and its command slots. As in-tree: min(128, max_qp_wr), on its own
// ring and on the SRQ alike. ib_srp sizes its SCSI host's queue by them,
// once, at login (credits granted later do not raise it), so fewer than an
// initiator's queue_size cost it queue depth for the session's life. Never
// more than a receive queue holds beside its drain request, nor than
// srp_sq_size: each slot needs room on the send queue for its response.
inline constexpr u32 kMaxLoginCredits = 128;
constexpr u32 login_credits(u32 max_qp_wr, u32 sq_size) {
  const u32 queue = max_qp_wr > 0 ? max_qp_wr - 1 : 0;
  return min(min(kMaxLoginCredits, queue), sq_size);
}

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

// The outcome of one login step: go on with a T, or refuse the login with a
// Rejection. The steps of Target::login (login.cpp) return these and are
// chained with SRPT_LOGIN_TRY, so that a refusal leaves each step at once
// and unwinds what that step acquired before the caller answers.
template <class T>
class [[nodiscard]] LoginStep {
 public:
  LoginStep(T&& value) : ok_(true), value_(move(value)) {}  // NOLINT: implicit by design
  LoginStep(const Rejection& r) : ok_(false), rejection_(r) {}  // NOLINT: `return rej;`

  bool ok() const { return ok_; }
  const Rejection& rejection() const { return rejection_; }
  // Only on a step known to be ok().
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return move(value_); }

 private:
  bool ok_;
  T value_{};
  Rejection rejection_{0, nullptr};
};

// A step that yields nothing but may refuse.
template <>
class [[nodiscard]] LoginStep<void> {
 public:
  LoginStep() : ok_(true) {}
  LoginStep(const Rejection& r) : ok_(false), rejection_(r) {}  // NOLINT: `return rej;`
  static LoginStep go_on() { return LoginStep(); }

  bool ok() const { return ok_; }
  const Rejection& rejection() const { return rejection_; }
  void value() && {}

 private:
  bool ok_;
  Rejection rejection_{0, nullptr};
};

// The request checks' outcome: the grant, or why not.
class [[nodiscard]] LoginCheck : public LoginStep<LoginGrant> {
 public:
  static LoginCheck accept(const LoginGrant& g) { return LoginCheck(g); }
  static LoginCheck reject(u32 reason, const char* cause) {
    return LoginCheck(Rejection{reason, cause});
  }
  const LoginGrant& grant() const { return value(); }

 private:
  explicit LoginCheck(LoginGrant g) : LoginStep<LoginGrant>(move(g)) {}
  explicit LoginCheck(const Rejection& r) : LoginStep<LoginGrant>(r) {}
};

namespace detail {
inline void login_value(LoginStep<void>&&) {}
template <class T> T login_value(LoginStep<T>&& s) { return move(s).value(); }
}  // namespace detail

// Opcode, IU length, descriptor formats, target port id; then the grant.
LoginCheck check_login_request(const LoginRequest& req,
                               const LoginLimits& limits);

}  // namespace srpt

// Evaluates a LoginStep; on a refusal returns its Rejection from the
// enclosing step (whose locals, whatever it acquired, unwind in reverse),
// otherwise yields the value (void for LoginStep<void>).
#define SRPT_LOGIN_TRY(expr)                                   \
  ({                                                           \
    auto&& srpt_login_step_ = (expr);                          \
    if (!srpt_login_step_.ok()) return srpt_login_step_.rejection(); \
    ::srpt::detail::login_value(::srpt::move(srpt_login_step_)); \
  })
