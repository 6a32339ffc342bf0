// SPDX-License-Identifier: GPL-2.0
// LoginRequest: an SRP_LOGIN_REQ as received, in host byte order, whichever
// CM carried it (IB/CM: the 64-byte IU inside the 92 bytes of REQ private
// data; RDMA/CM: the reordered 56-byte form, because RDMA/CM over IB leaves
// only 56 bytes of private data).
#pragma once

#include <srpt/abi/cm.h>
#include <srpt/core/srp_wire.h>
#include <srpt/rt/status.h>
#include <srpt/rt/types.h>

namespace srpt {

struct LoginRequest {
  u8 opcode;
  srp::Tag tag;
  u32 req_it_iu_len;
  u16 req_buf_fmt;
  u8 req_flags;
  u16 imm_data_offset;
  u8 initiator_port_id[16];
  u8 target_port_id[16];

  // Error::Inval when the private data is too short to hold the request
  // (or the kind is unknown); every other field value is accepted here and
  // judged by the login policy.
  static Result<LoginRequest> parse(srpt_cm_kind kind, const u8* priv,
                                    usize len);
};

}  // namespace srpt
