// SPDX-License-Identifier: GPL-2.0
// The Device Management agent's answers: what an SRP target port tells
// srp_daemon and ibsrpdm about itself (IBA 16.3, SRP r16a annex B.7), the
// same answers Linux's in-tree ib_srpt gives, so that initiators configured
// against it find this module unchanged.
//
// One I/O unit per port with one I/O controller, in slot 1, offering one
// service: SRP.T10:<service GUID>. The in-tree driver answers
// IOControllerProfile and ServiceEntries for slot 2 as well although
// IOUnitInfo lists it empty; a drop-in replacement answers the same.
//
// Pure: the shim receives the MAD, gathers the facts below from the device
// and the port, and sends what answer() built.
#pragma once

#include <srpt/core/dm_wire.h>
#include <srpt/rt/types.h>

namespace srpt::dm {

// What the answers report, read when the MAD arrives.
struct IocFacts {
  u64 service_guid;     // srpt_service_guid: the IOC GUID and the service id
  u32 vendor_id;        // the device's attributes
  u32 vendor_part_id;
  u32 hw_ver;
  u32 send_queue_depth; // the SRQ size with use_srq, else min(128, max_qp_wr)
  u32 send_size;        // srp_max_req_size
  u32 max_rdma_size;    // the port's srp_max_rdma_size
};

inline constexpr u32 kMaxControllers = 16;
inline constexpr u32 kServedSlots = 2;            // in-tree: slots 1 and 2 answer
inline constexpr u32 kMaxRdmaSizeReported = 1u << 24;
inline constexpr u8 kRdmaReadDepth = 4;
inline constexpr u32 kRespTimeValue = 20;         // ClassPortInfo: 4.096 us * 2^20
inline constexpr char kIdString[] = "Linux SRP target";
inline constexpr char kServiceNamePrefix[] = "SRP.T10:";

// Builds in *rsp the GetResp to *req (a MAD of class kMgmtClass that the MAD
// layer delivered to the agent): the request's header with method GetResp
// and the status of the answer, and the attribute's data when the status is
// kStatusOk (zero otherwise).
void answer(const Mad& req, const IocFacts& facts, Mad* rsp);

}  // namespace srpt::dm
