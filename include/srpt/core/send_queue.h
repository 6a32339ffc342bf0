// SPDX-License-Identifier: GPL-2.0
// How many work requests a channel's send queue is made to hold.
//
// What a channel may have on its send queue at once: one response per
// command slot, and RDMA. A command posts its RDMA in parts of whole
// contexts (one per remote segment), reserving each part's room before
// posting it and waiting in arrival order while the queue lacks room
// (Channel::sq_reserve); so depth beyond the slots only buys concurrency of
// large transfers, and the whole queue must hold one context. A command
// with a longer context is answered CHECK CONDITION with a log line.
//
// Depth costs device memory for the channel's lifetime: rxe allocates
// every send queue entry up front (512 bytes each at 16 scatter/gather
// entries, in a power-of-two number of entries counting one spare and the
// drain request: 128 slots + 129 + 1 take 512 entries, 256 KiB). in-tree
// ib_srpt takes srp_sq_size (4096) regardless, which is most of its memory
// per channel; here srp_sq_size only caps the depth.
#pragma once

#include <srpt/core/srp_cmd.h>
#include <srpt/rt/types.h>

namespace srpt {

// The longest context one command is given room for: an 8 MiB segment of
// 4 KiB pages at 16 scatter/gather entries per work request, plus one for
// a segment that starts inside a page.
inline constexpr u32 kMaxContextWrs = (8u << 20) / (16u * 4096u) + 1;

// Slots plus one longest context, at most srp_sq_size, never fewer than
// the slots (each needs room for its response).
constexpr u32 send_queue_depth(u32 slots, u32 srp_sq_size) {
  const u32 want = slots + kMaxContextWrs;
  const u32 capped = want < srp_sq_size ? want : srp_sq_size;
  return capped > slots ? capped : slots;
}

}  // namespace srpt
