// SPDX-License-Identifier: GPL-2.0
// Who owns the cm_id of a connection request, in types.
//
// The CM core lends the new cm_id to the login handler for the duration of
// the REQ callback (CmIdLease). The handler ends in exactly one of two ways:
//
//   LoginVerdict::caller_keeps(move(lease), why)   non-zero: the CM core
//       destroys the cm_id when the callback returns;
//   LoginVerdict::channel_owns(move(proof))        zero: a channel adopted it
//       with OwnedCmId::adopt(move(lease)), which is the only way to get the
//       proof, and destroys it exactly once, later, in process context.
//
// LoginVerdict has no other constructor, so a path that returns without
// deciding does not compile. A path that decides twice (gives back a lease
// that a channel already adopted) finds the lease empty: that is reported as
// a bug and answered with zero, because a channel holds the cm_id and the CM
// core must not destroy it under the channel. A lease destroyed while still
// holding the cm_id (neither returned nor adopted) is reported too.
#pragma once

#include <srpt/abi/cm.h>
#include <srpt/rt/assert.h>
#include <srpt/rt/status.h>
#include <srpt/rt/utility.h>

namespace srpt {

class CmIdLease : NonCopyable {
 public:
  CmIdLease(srpt_cm_kind kind, srpt_k_cm* cm) : kind_(kind), cm_(cm) {}
  CmIdLease(CmIdLease&& o) noexcept : kind_(o.kind_), cm_(exchange(o.cm_, nullptr)) {}
  CmIdLease& operator=(CmIdLease&&) = delete;
  ~CmIdLease() { SRPT_ASSERT(cm_ == nullptr); }  // neither returned nor adopted

  srpt_cm_kind kind() const { return kind_; }
  // The cm_id, for calls made while it is lent (reject, QP creation).
  srpt_k_cm* get() const { return cm_; }
  bool held() const { return cm_ != nullptr; }

 private:
  friend class OwnedCmId;
  friend class LoginVerdict;
  srpt_cm_kind kind_;
  srpt_k_cm* cm_;
};

// Proof that a channel adopted the cm_id; single use.
class CmIdAdopted : NonCopyable {
 public:
  CmIdAdopted(CmIdAdopted&& o) noexcept : valid_(exchange(o.valid_, false)) {}
  CmIdAdopted& operator=(CmIdAdopted&&) = delete;

 private:
  friend class OwnedCmId;
  friend class LoginVerdict;
  CmIdAdopted() : valid_(true) {}
  bool valid_;
};

class OwnedCmId : NonCopyable {
 public:
  OwnedCmId() = default;
  OwnedCmId(OwnedCmId&& o) noexcept : kind_(o.kind_), cm_(exchange(o.cm_, nullptr)) {}
  OwnedCmId& operator=(OwnedCmId&& o) noexcept {
    SRPT_ASSERT(cm_ == nullptr);
    kind_ = o.kind_;
    cm_ = exchange(o.cm_, nullptr);
    return *this;
  }
  // Destroying a cm_id that was never destroyed would leak it; it cannot
  // be destroyed here because this may run inside its own callback.
  ~OwnedCmId() { SRPT_ASSERT(cm_ == nullptr); }

  struct Adoption;
  // Takes the cm_id out of the lease (which is empty afterwards).
  static Adoption adopt(CmIdLease&& lease);

  srpt_cm_kind kind() const { return kind_; }
  srpt_k_cm* get() const { return cm_; }
  bool held() const { return cm_ != nullptr; }

  // Exactly once, in process context, never from this cm_id's callback.
  void destroy() {
    srpt_k_cm* cm = exchange(cm_, nullptr);
    if (SRPT_CHECK_FAILED(cm != nullptr)) return;
    srpt_k_cm_destroy(kind_, cm);
  }

 private:
  srpt_cm_kind kind_ = SRPT_CM_RDMA;
  srpt_k_cm* cm_ = nullptr;
};

struct [[nodiscard]] OwnedCmId::Adoption {
  OwnedCmId id;
  CmIdAdopted proof;
};

inline OwnedCmId::Adoption OwnedCmId::adopt(CmIdLease&& lease) {
  OwnedCmId id;
  id.kind_ = lease.kind_;
  id.cm_ = exchange(lease.cm_, nullptr);
  return Adoption{move(id), CmIdAdopted()};
}

class [[nodiscard]] LoginVerdict {
 public:
  // The login failed before any channel took the cm_id; `why` becomes the
  // callback's return value, so the CM core destroys the cm_id.
  static LoginVerdict caller_keeps(CmIdLease&& lease, Error why) {
    if (SRPT_CHECK_FAILED(lease.held())) return LoginVerdict(0);
    lease.cm_ = nullptr;  // back to the CM core, which destroys it
    return LoginVerdict(why.to_kernel());
  }
  // A channel owns the cm_id; whatever happened to the login after that,
  // the callback returns zero.
  static LoginVerdict channel_owns(CmIdAdopted&& proof) {
    SRPT_ASSERT(proof.valid_);
    proof.valid_ = false;
    return LoginVerdict(0);
  }

  int to_kernel() const { return ret_; }

 private:
  explicit LoginVerdict(int ret) : ret_(ret) {}
  int ret_;
};

}  // namespace srpt
