// SPDX-License-Identifier: GPL-2.0
// SharedRecvQueue: the shared receive queue (SRQ) of one RDMA device and its
// request IU buffers, used instead of per-channel receive rings while a port
// of the device has use_srq set.
//
// Buffer ownership: every buffer is either posted on the SRQ or held by
// exactly one channel, from the receive completion that delivered it until
// that channel posts it back (repost). A channel gives back every buffer it
// holds before it drops its reference, also when it closes with IUs pending
// or commands in flight.
//
// Lifetime: reference counted. The Device holds one reference while use_srq
// is on; every channel attached to it holds one, dropped in its release work
// after its QP is destroyed. The last reference destroys the SRQ, so it
// outlives every QP made on it; device removal waits for the device's
// channels first, so the SRQ goes before the device's PD.
//
// Events (srpt_core_srq_event, from the driver's context, maybe atomic): an
// SRQ error marks the SRQ failed and calls the owner's hook once, which
// only queues work (the Target replaces the device's SRQ and closes the
// channels on the failed one: Target::replace_failed_srq); a limit event
// is logged (no limit is ever armed).
#pragma once

#include <srpt/abi/device.h>
#include <srpt/abi/queue.h>
#include <srpt/rt/refptr.h>
#include <srpt/rt/status.h>

namespace srpt {

// The one immediate-data offset an SRQ's buffers align to a sector: what
// ib_srp sends (an SRP_CMD without additional CDB, 48 bytes, and one
// 20-byte immediate data descriptor). Other offsets log in without
// immediate data while the port uses the SRQ.
constexpr u32 kSrqImmDataOffset = 68;

class SharedRecvQueue : public RefCounted<SharedRecvQueue> {
 public:
  // Called once when the SRQ fails, from the event's context (may be
  // atomic: must not sleep).
  struct FailureHook {
    void (*fn)(void* ctx);
    void* ctx;
  };

  // `count` buffers (lowered to the device's limit) of `buf_size` bytes;
  // immediate data is sector-aligned only at offset `imm_offset`. `name`
  // (the device's) is for log lines.
  static Result<RefPtr<SharedRecvQueue>> create(srpt_k_device* kdev, const char* name,
                                                u32 count, u32 buf_size, u32 imm_offset,
                                                FailureHook on_failure);
  ~SharedRecvQueue();

  srpt_k_srq* ksrq() const { return ksrq_; }
  u32 count() const { return count_; }
  u32 buf_size() const { return buf_size_; }
  u32 imm_offset() const { return imm_offset_; }
  u8* buf(u32 index) const { return srpt_k_ring_buf(ring_, index); }
  // A buffer a channel held goes back to the SRQ.
  Status repost(u32 index);

  // srpt_core_srq_event. Any context.
  void on_event(srpt_srq_event ev);
  // An SRQ error was reported: it receives nothing any more.
  bool failed() const { return __atomic_load_n(&failed_, __ATOMIC_ACQUIRE); }

 private:
  friend class RefPtr<SharedRecvQueue>;
  SharedRecvQueue() = default;

  srpt_k_srq* ksrq_ = nullptr;
  srpt_k_ring* ring_ = nullptr;  // owned by ksrq_
  u32 count_ = 0;
  u32 buf_size_ = 0;
  u32 imm_offset_ = 0;
  const char* name_ = "";  // the device's, which outlives the SRQ
  FailureHook on_failure_{};
  bool failed_ = false;  // atomic
};

}  // namespace srpt
