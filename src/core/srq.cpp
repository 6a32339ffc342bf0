// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/srq.h>

#include <srpt/abi/log.h>
#include <srpt/core/abi_handle.h>

namespace srpt {

// The SRQ's handle pair lives with the SRQ rather than in abi_entry.cpp, so
// that the SRQ links without the rest of the core (tests/threads).
// SAFETY: a srpt_core_srq* the shim gives back is the context create()
// passed with the kernel SRQ; the SharedRecvQueue destroys that SRQ (after
// which no event comes) before it goes.
srpt_core_srq* to_abi(SharedRecvQueue& q) { return reinterpret_cast<srpt_core_srq*>(&q); }
SharedRecvQueue& from_abi(srpt_core_srq* q) { return *reinterpret_cast<SharedRecvQueue*>(q); }

Result<RefPtr<SharedRecvQueue>> SharedRecvQueue::create(srpt_k_device* kdev,
                                                        const char* name, u32 count,
                                                        u32 buf_size, u32 imm_offset,
                                                        FailureHook on_failure) {
  RefPtr<SharedRecvQueue> q =
      RefPtr<SharedRecvQueue>::adopt(new (alloc_sleep) SharedRecvQueue());
  if (!q) return Error::NoMem;
  q->name_ = name;
  q->on_failure_ = on_failure;
  u32 got = count;
  // The SRQ object outlives the kernel SRQ (the destructor destroys it),
  // so every event finds it (above).
  const int ret = srpt_k_srq_create(kdev, &got, buf_size, imm_offset, to_abi(*q), &q->ksrq_);
  if (ret) return Error::from_kernel(ret);
  q->ring_ = srpt_k_srq_ring(q->ksrq_);
  q->count_ = got;
  q->buf_size_ = buf_size;
  q->imm_offset_ = imm_offset;
  return move(q);
}

SharedRecvQueue::~SharedRecvQueue() {
  // Every QP made on it is gone: the last channel dropped its reference
  // after destroying its QP.
  if (ksrq_ != nullptr) srpt_k_srq_destroy(ksrq_);
}

void SharedRecvQueue::on_event(srpt_srq_event ev) {
  switch (ev) {
    case SRPT_SRQ_EVENT_ERR:
      if (__atomic_exchange_n(&failed_, true, __ATOMIC_ACQ_REL)) return;
      srpt_log(SRPT_LOG_ERR,
               "%s: shared receive queue failed (SRQ error); its channels are "
               "closed and a new one replaces it\n",
               name_);
      if (on_failure_.fn != nullptr) on_failure_.fn(on_failure_.ctx);
      return;
    case SRPT_SRQ_EVENT_LIMIT_REACHED:
      srpt_log(SRPT_LOG_INFO, "%s: shared receive queue limit reached (none was armed)\n",
               name_);
      return;
  }
  srpt_log(SRPT_LOG_WARNING, "%s: unknown shared receive queue event %d\n", name_,
           static_cast<int>(ev));
}

Status SharedRecvQueue::repost(u32 index) {
  if (index >= count_) return Error::Inval;
  const int ret = srpt_k_srq_post_recv(ksrq_, index);
  if (ret) return Error::from_kernel(ret);
  return Status::ok_status();
}

}  // namespace srpt
