// SPDX-License-Identifier: GPL-2.0
#include "alloc.h"

#include <cstdlib>
#include <unordered_map>

#include <srpt/abi/alloc.h>

#include "fault.h"
#include "lock.h"
#include "violation.h"

namespace fake {
namespace {

// Invariant: `blocks` holds exactly the blocks srpt_kzalloc() returned and
// srpt_kfree() has not yet been given, with their sizes; `bytes` is the sum.
struct AllocState {
  std::unordered_map<const void*, size_t> blocks;
  size_t bytes = 0;
  size_t sleeping = 0;
  size_t atomic = 0;
};

AllocState& state() {
  static AllocState s;
  return s;
}

}  // namespace

size_t live_allocations() { return state().blocks.size(); }
size_t live_bytes() { return state().bytes; }
size_t sleeping_allocations() { return state().sleeping; }
size_t atomic_allocations() { return state().atomic; }

void reset_alloc() { state() = AllocState{}; }

}  // namespace fake

extern "C" void* srpt_kzalloc(size_t size, srpt_alloc_ctx ctx) noexcept {
  // As the shim: a zero-sized request is NULL and is no allocation attempt.
  if (size == 0) return nullptr;
  if (ctx != SRPT_ALLOC_SLEEP && ctx != SRPT_ALLOC_ATOMIC)
    fake::record_violation("srpt_kzalloc(%zu) with unknown context %d", size,
                           static_cast<int>(ctx));
  if (ctx == SRPT_ALLOC_SLEEP) fake::might_sleep("srpt_kzalloc(SRPT_ALLOC_SLEEP)");
  if (fake::next_allocation_fails()) return nullptr;
  void* p = calloc(1, size);
  if (p == nullptr) abort();  // the host itself is out of memory
  fake::AllocState& s = fake::state();
  s.blocks.emplace(p, size);
  s.bytes += size;
  (ctx == SRPT_ALLOC_ATOMIC ? s.atomic : s.sleeping)++;
  return p;
}

extern "C" void srpt_kfree(const void* ptr) noexcept {
  if (ptr == nullptr) return;
  fake::AllocState& s = fake::state();
  auto it = s.blocks.find(ptr);
  if (it == s.blocks.end()) {
    fake::record_violation("srpt_kfree(%p): not a live srpt_kzalloc() block",
                           ptr);
    return;
  }
  s.bytes -= it->second;
  s.blocks.erase(it);
  free(const_cast<void*>(ptr));
}
