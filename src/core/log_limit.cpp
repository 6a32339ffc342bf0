// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/log_limit.h>

#include <srpt/abi/log.h>
#include <srpt/abi/session.h>

namespace srpt {
namespace {

u64 load(const u64& v) { return __atomic_load_n(&v, __ATOMIC_RELAXED); }
u32 load(const u32& v) { return __atomic_load_n(&v, __ATOMIC_RELAXED); }
void store(u64& v, u64 x) { __atomic_store_n(&v, x, __ATOMIC_RELAXED); }
void store(u32& v, u32 x) { __atomic_store_n(&v, x, __ATOMIC_RELAXED); }
bool swap_if(u64& v, u64 expected, u64 x) {
  return __atomic_compare_exchange_n(&v, &expected, x, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED);
}

// Never 0, which marks a free slot.
u64 key_of(StringView name) {
  u64 h = 0xcbf29ce484222325ull;
  for (usize i = 0; i < name.size(); i++) {
    h ^= static_cast<u8>(name[i]);
    h *= 0x100000001b3ull;
  }
  return h != 0 ? h : 1;
}

}  // namespace

LogLimiter::Slot& LogLimiter::slot_for(u64 key, u64 now) {
  for (Slot& s : slots_)
    if (load(s.key) == key) return s;
  for (Slot& s : slots_) {
    if (load(s.key) == 0 && swap_if(s.key, 0, key)) {
      store(s.begin_ns, now);
      store(s.printed, 0u);
      return s;
    }
  }
  Slot* idle = nullptr;
  for (Slot& s : slots_) {
    const u64 b = load(s.begin_ns);
    if (now >= b + kIntervalNs && (idle == nullptr || b < load(idle->begin_ns))) idle = &s;
  }
  if (idle != nullptr) {
    const u64 old = load(idle->key);
    if (old != key && swap_if(idle->key, old, key)) {
      const u32 cut = __atomic_exchange_n(&idle->suppressed, 0u, __ATOMIC_RELAXED);
      __atomic_fetch_add(&overflow_.suppressed, cut, __ATOMIC_RELAXED);
      store(idle->begin_ns, now);
      store(idle->printed, 0u);
      return *idle;
    }
  }
  return overflow_;
}

bool LogLimiter::admit(StringView who) {
  const u64 now = srpt_k_now_ns();
  Slot& s = slot_for(key_of(who), now);
  const u64 begin = load(s.begin_ns);
  if (now >= begin + kIntervalNs && swap_if(s.begin_ns, begin, now)) {
    store(s.printed, 0u);
    const u32 cut = __atomic_exchange_n(&s.suppressed, 0u, __ATOMIC_RELAXED);
    if (cut != 0) {
      if (&s == &overflow_)
        srpt_log(SRPT_LOG_WARNING, "other initiators: %u messages suppressed\n", cut);
      else
        srpt_log(SRPT_LOG_WARNING, "%.*s: %u messages suppressed\n",
                 static_cast<int>(who.size()), who.data(), cut);
    }
  }
  if (load(s.printed) < kBurst && __atomic_fetch_add(&s.printed, 1u, __ATOMIC_RELAXED) < kBurst)
    return true;
  __atomic_fetch_add(&s.suppressed, 1u, __ATOMIC_RELAXED);
  return false;
}

}  // namespace srpt
