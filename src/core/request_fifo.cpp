// SPDX-License-Identifier: GPL-2.0
// RequestFifo (include/srpt/core/request_fifo.h). Invariants: count_ <=
// held_ <= credits_; the ring never overflows because admit() refuses at
// held_ == credits_. Callers hold the owner's lock.
#include <srpt/core/request_fifo.h>

#include <srpt/rt/new.h>
#include <srpt/rt/assert.h>

namespace srpt {

Result<RequestFifo> RequestFifo::create(u32 credits) {
  Iu* ius = new (alloc_sleep) Iu[credits];
  if (ius == nullptr) return Error::NoMem;
  return RequestFifo(ius, credits);
}

RequestFifo::~RequestFifo() { destroy_array(ius_); }

bool RequestFifo::admit(Iu iu) {
  if (held_ >= credits_) return false;
  ius_[(head_ + count_) % credits_] = iu;
  count_++;
  held_++;
  return true;
}

RequestFifo::Iu RequestFifo::pop() {
  SRPT_ASSERT(count_ > 0);
  const Iu iu = ius_[head_];
  head_ = (head_ + 1) % credits_;
  count_--;
  return iu;
}

void RequestFifo::release_buffer() {
  if (!SRPT_CHECK_FAILED(held_ > 0)) held_--;
}

void RequestFifo::spend() {
  if (req_lim_ > 0) req_lim_--;
}

u32 RequestFifo::grant() {
  const u32 delta = 1 + exchange(owed_, 0u);
  req_lim_ += delta;
  return delta;
}

}  // namespace srpt
