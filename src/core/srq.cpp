// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/srq.h>

namespace srpt {

Result<RefPtr<SharedRecvQueue>> SharedRecvQueue::create(srpt_k_device* kdev,
                                                        u32 count, u32 buf_size,
                                                        u32 imm_offset) {
  RefPtr<SharedRecvQueue> q =
      RefPtr<SharedRecvQueue>::adopt(new (alloc_sleep) SharedRecvQueue());
  if (!q) return Error::NoMem;
  u32 got = count;
  const int ret = srpt_k_srq_create(kdev, &got, buf_size, imm_offset, &q->ksrq_);
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

Status SharedRecvQueue::repost(u32 index) {
  if (index >= count_) return Error::Inval;
  const int ret = srpt_k_srq_post_recv(ksrq_, index);
  if (ret) return Error::from_kernel(ret);
  return Status::ok_status();
}

}  // namespace srpt
