// SPDX-License-Identifier: GPL-2.0
// Module parameters, checked once at load. Names, defaults and ranges are the
// in-tree ib_srpt's, so existing modprobe.d files keep working.
#pragma once

#include <srpt/abi/core.h>
#include <srpt/rt/status.h>
#include <srpt/rt/types.h>

namespace srpt {

struct Params {
  // Largest SRP request IU accepted at login (srp_max_req_size).
  static constexpr s32 kDefaultMaxReqSize = 8276;
  static constexpr s32 kMinMaxReqSize = 996;
  // Receive queue size of a shared receive queue (srpt_srq_size).
  static constexpr s32 kDefaultSrqSize = 4095;
  static constexpr s32 kMinSrqSize = 4;
  static constexpr s32 kMaxSrqSize = 65535;

  // Channels one I_T nexus may hold at once (max_channels_per_nexus, not an
  // in-tree parameter: the in-tree driver has no limit). ib_srp opens one
  // per CPU by default (ch_count), so the default leaves room for that.
  static constexpr s32 kDefaultMaxNexusChannels = 64;
  static constexpr s32 kMaxMaxNexusChannels = 1024;
  // Receive rings of released channels each device keeps for its next
  // logins (recv_ring_cache, not an in-tree parameter; 0: none), and as
  // many of their command-context sets. At ib_srp's default login (128
  // credits) a ring is about 1.1 MiB and a set about 166 KiB; each is freed
  // after 5 s unused.
  static constexpr s32 kDefaultRecvRingCache = 8;

  u32 max_req_size;
  u32 max_nexus_channels;
  u32 srq_size;
  u32 recv_ring_cache;
  u64 service_guid;  // 0 until set by parameter or by the first device

  // Error::Inval (after logging which parameter and why) when out of range.
  static Result<Params> from_module(const srpt_params& raw);
};

}  // namespace srpt
