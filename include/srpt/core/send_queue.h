// SPDX-License-Identifier: GPL-2.0
// How many work requests a channel's send queue is made to hold.
//
// What a channel may have on its send queue at once: one response per
// command slot, and RDMA chains. A command reserves its whole chain (reads,
// or writes plus the response) before posting and waits in arrival order
// while the queue lacks room (Channel::sq_reserve), so depth beyond the
// slots only buys concurrency of large transfers; a command whose chain
// exceeds the whole depth is answered CHECK CONDITION with a log line.
//
// Depth costs device memory for the channel's lifetime: rxe allocates
// every send queue entry up front (measured: about 0.6 KiB each, in a
// power-of-two number of entries). in-tree ib_srpt takes srp_sq_size
// (4096) regardless, which is most of its memory per channel; here
// srp_sq_size only caps the depth.
#pragma once

#include <srpt/core/srp_cmd.h>
#include <srpt/rt/types.h>

namespace srpt {

// The largest chain one command is given room for: one RDMA context per
// remote segment (kMaxRdmaSegs), plus the extra work requests of an 8 MiB
// transfer at 16 scatter/gather entries of 4 KiB pages per request. ib_srp
// at cmd_sg_entries=255 with 8 MiB commands needs about 257.
inline constexpr u32 kMaxCommandWrs = kMaxRdmaSegs + (8u << 20) / (16u * 4096u);

// Slots plus one largest chain, at most srp_sq_size, never fewer than the
// slots (each needs room for its response).
constexpr u32 send_queue_depth(u32 slots, u32 srp_sq_size) {
  const u32 want = slots + kMaxCommandWrs;
  const u32 capped = want < srp_sq_size ? want : srp_sq_size;
  return capped > slots ? capped : slots;
}

}  // namespace srpt
