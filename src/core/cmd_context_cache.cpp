// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/cmd_context_cache.h>

namespace srpt {

Result<Own<CmdContextCache>> CmdContextCache::create(u32 capacity) {
  Own<IdleCache> sets = SRPT_TRY(IdleCache::create(capacity, &CmdContextCache::destroy_set));
  return make_own<CmdContextCache>(alloc_sleep, move(sets));
}

Result<Own<CmdContextSet>> CmdContextCache::take(u32 count) {
  if (void* cached = sets_->take(key(count)))
    return Own<CmdContextSet>::adopt(static_cast<CmdContextSet*>(cached));
  return CmdContextSet::create(count);
}

void CmdContextCache::give(Own<CmdContextSet> set) {
  if (!set) return;
  if (!set->whole()) return;  // `set` destroys its contexts
  const u32 count = set->count();
  sets_->give(move(set).release(), key(count));
}

void CmdContextCache::destroy_set(void* set) {
  // SAFETY: the cache holds only sets released by Own (give()), each once.
  destroy(static_cast<CmdContextSet*>(set));
}

}  // namespace srpt
