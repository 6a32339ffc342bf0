// SPDX-License-Identifier: GPL-2.0
// LogLimiter: rate limiting, per initiator, of the log lines a remote peer
// can make the target write at will (refused logins, malformed requests).
//
// One initiator's flood must not hide another's warnings
// (LoginRejectTest.OneInitiatorsFloodDoesNotHideAnothersWarning), and the
// state must not grow with the names a peer can make up. So a fixed table:
// each of kSlots initiators has its own budget of kBurst lines per
// kIntervalNs (the kernel's printk_ratelimit defaults). A name not in the
// table takes a free slot, else the slot whose interval ended longest ago;
// when every slot is within its interval, the name shares one overflow
// budget with all other such names. Whatever peers do, one interval holds
// at most (kSlots + 1) * kBurst lines plus one report per slot.
//
// The lines a slot cut are reported when its name logs again in a later
// interval ("<name>: N messages suppressed"), before that line; the count
// of an evicted slot moves to the overflow budget's report.
//
// Names are kept as a 64-bit hash (FNV-1a): two names that collide share a
// budget, which only merges their limits. Lock-free, from any context:
// slots are claimed and intervals restarted with compare-and-swap, and every
// shared field is accessed atomically (tests/threads: LogLimiterThreadsTest,
// under ThreadSanitizer). A caller that counts a line while another resets
// the slot's count has that line forgiven: bookkeeping, not a decision
// anything else depends on. The other way round, two CPUs that claim a slot
// for the same new name at once can both succeed (the second slot then only
// idles out its interval), and a caller that reads the count between a
// restart and its reset has its line cut: fewer lines than the budget for
// one interval, never more. The threaded test holds an interval to twice the
// limit above, and to the exact budget where threads log different names.
#pragma once

#include <srpt/rt/string.h>
#include <srpt/rt/types.h>
#include <srpt/rt/utility.h>

namespace srpt {

class LogLimiter : NonCopyable {
 public:
  static constexpr u32 kSlots = 16;
  static constexpr u32 kBurst = 10;
  static constexpr u64 kIntervalNs = 5000000000ull;

  LogLimiter() = default;

  // Whether a line about `who` (the initiator's short name: source address
  // or port GUID) may go to the log now.
  bool admit(StringView who);

 private:
  struct Slot {
    u64 key = 0;         // hash of the name; 0: free
    u64 begin_ns = 0;    // start of the current interval
    u32 printed = 0;     // lines admitted in it
    u32 suppressed = 0;  // lines cut since the last report
  };

  Slot& slot_for(u64 key, u64 now);

  Slot slots_[kSlots];
  Slot overflow_;
};

}  // namespace srpt
