// SPDX-License-Identifier: GPL-2.0
// SendBudget (include/srpt/core/send_budget.h). Invariants: avail_ plus the
// sq_held of every claim is the queue's depth; a claim is on waiting_
// exactly while its sq_post is not None. Callers hold the owner's lock.
#include <srpt/core/send_budget.h>

#include <srpt/rt/assert.h>
#include <srpt/rt/utility.h>

namespace srpt {

bool SendBudget::reserve(SqClaim& c, u32 need, SqClaim::SqPost what) {
  // One chain at a time: a claim that waits keeps the chain it waits for.
  if (SRPT_CHECK_FAILED(c.sq_post == SqClaim::SqPost::None)) return false;
  c.sq_need = 0;
  if (waiting_.empty() && avail_ >= need) {
    avail_ -= need;
    c.sq_held += need;
    return true;
  }
  c.sq_need = need;
  c.sq_post = what;
  waiting_.push_back(c);
  return false;
}

void SendBudget::give_back(SqClaim& c) { avail_ += exchange(c.sq_held, 0u); }

SqClaim* SendBudget::next(SqClaim::SqPost* what) {
  SqClaim* c = waiting_.front();
  if (c == nullptr || c->sq_need > avail_) return nullptr;
  waiting_.pop_front();
  avail_ -= c->sq_need;
  c->sq_held += exchange(c->sq_need, 0u);
  *what = exchange(c->sq_post, SqClaim::SqPost::None);
  SRPT_ASSERT(*what != SqClaim::SqPost::None);
  return c;
}

void SendBudget::forget_waiters() {
  while (SqClaim* c = waiting_.pop_front()) {
    c->sq_need = 0;
    c->sq_post = SqClaim::SqPost::None;
  }
}

}  // namespace srpt
