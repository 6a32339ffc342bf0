// SPDX-License-Identifier: GPL-2.0
// CmdContextSet: the shim's command contexts (srpt_k_cmd: se_cmd, sense
// buffer, RDMA contexts) of one channel, one per command slot. A login
// takes a released channel's set from its device (cmd_context_cache.h)
// when there is one of its slot count, and rebinds each context to its own
// QP and slots instead of allocating and zeroing 64 of 1320 bytes each.
//
// A set is filled in slot order: bind(i) makes context i when the set
// holds fewer than i + 1 (a new set) and rebinds it otherwise; a set a
// failed login left partly made is not whole and is never reused.
#pragma once

#include <srpt/abi/cmd.h>
#include <srpt/abi/queue.h>
#include <srpt/rt/own.h>
#include <srpt/rt/status.h>
#include <srpt/rt/utility.h>

namespace srpt {

class CmdContextSet : Pinned {
 public:
  // A set of `count` slots holding no context yet.
  static Result<Own<CmdContextSet>> create(u32 count);
  // Destroys the contexts made. Their commands are released and no work
  // request names them (the owning channel's QP is destroyed).
  ~CmdContextSet();

  // Slot i's context, for the core's command `core` on `qp`: made, or the
  // set's rebound (srpt_k_cmd_bind). i is made() or below. A kernel errno
  // when it cannot be made.
  int bind(u32 i, srpt_k_qp* qp, u32 port_num, srpt_core_cmd* core);
  srpt_k_cmd* at(u32 i) const;

  u32 count() const { return count_; }
  u32 made() const { return made_; }
  bool whole() const { return made_ == count_; }

 private:
  CmdContextSet(u32 count, srpt_k_cmd** kcmds) : count_(count), kcmds_(kcmds) {}
  template <class T, class Ctx, class... Args>
  friend Result<Own<T>> make_own(Ctx, Args&&...);

  const u32 count_;
  u32 made_ = 0;  // kcmds_[0, made_) are live contexts
  srpt_k_cmd** const kcmds_;
};

}  // namespace srpt
