// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/params.h>

#include <srpt/abi/log.h>
#include <srpt/core/recv_ring_cache.h>

namespace srpt {

Result<Params> Params::from_module(const srpt_params& raw) {
  if (raw.srp_max_req_size < kMinMaxReqSize) {
    srpt_log(SRPT_LOG_ERR,
             "invalid srp_max_req_size=%d: must be at least %d\n",
             raw.srp_max_req_size, kMinMaxReqSize);
    return Error::Inval;
  }
  if (raw.srpt_srq_size < kMinSrqSize || raw.srpt_srq_size > kMaxSrqSize) {
    srpt_log(SRPT_LOG_ERR,
             "invalid srpt_srq_size=%d: must be in [%d, %d]\n",
             raw.srpt_srq_size, kMinSrqSize, kMaxSrqSize);
    return Error::Inval;
  }
  if (raw.max_channels_per_nexus < 1 ||
      raw.max_channels_per_nexus > kMaxMaxNexusChannels) {
    srpt_log(SRPT_LOG_ERR,
             "invalid max_channels_per_nexus=%d: must be in [1, %d]\n",
             raw.max_channels_per_nexus, kMaxMaxNexusChannels);
    return Error::Inval;
  }
  if (raw.recv_ring_cache < 0 ||
      raw.recv_ring_cache > static_cast<s32>(RecvRingCache::kMaxCapacity)) {
    srpt_log(SRPT_LOG_ERR, "invalid recv_ring_cache=%d: must be in [0, %u]\n",
             raw.recv_ring_cache, RecvRingCache::kMaxCapacity);
    return Error::Inval;
  }
  Params p{};
  p.recv_ring_cache = static_cast<u32>(raw.recv_ring_cache);
  p.max_nexus_channels = static_cast<u32>(raw.max_channels_per_nexus);
  p.max_req_size = static_cast<u32>(raw.srp_max_req_size);
  p.srq_size = static_cast<u32>(raw.srpt_srq_size);
  p.service_guid = raw.srpt_service_guid;
  return move(p);
}

}  // namespace srpt
