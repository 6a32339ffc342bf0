// SPDX-License-Identifier: GPL-2.0
// SlotPool: a channel's command slots, free or busy.
//
// A slot is on the free list or busy, never both: take() hands out the
// oldest free slot and counts it busy, put() takes it back. Slots are made
// once with the channel (add()) and live as long as it; the pool never owns
// them. A request that needs a slot and finds none waits in the channel's
// RequestFifo until a put() (SlotPoolTest).
//
// Not synchronised: the owner guards it with its lock (Channel::lock_,
// SRPT_GUARDED_BY).
#pragma once

#include <srpt/rt/assert.h>
#include <srpt/rt/list.h>
#include <srpt/rt/types.h>

namespace srpt {

template <class Slot, ListNode Slot::*Node>
class SlotPool : NonCopyable {
 public:
  SlotPool() = default;
  ~SlotPool() { forget(); }

  // A new slot, free.
  void add(Slot& s) { free_.push_back(s); }
  // nullptr when every slot is busy.
  Slot* take() {
    Slot* s = free_.pop_front();
    if (s != nullptr) busy_++;
    return s;
  }
  void put(Slot& s) {
    if (SRPT_CHECK_FAILED(busy_ > 0)) return;
    busy_--;
    free_.push_back(s);
  }
  u32 busy() const { return busy_; }
  // The channel's teardown: the slots are about to be destroyed.
  void forget() {
    while (free_.pop_front() != nullptr) {
    }
  }

 private:
  List<Slot, Node> free_;
  u32 busy_ = 0;
};

}  // namespace srpt
