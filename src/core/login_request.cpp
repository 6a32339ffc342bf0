// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/login_request.h>

namespace srpt {
namespace {

// Both wire forms carry the same fields at different offsets.
template <class Wire>
LoginRequest from_wire(const Wire& w) {
  LoginRequest r{};
  r.opcode = w.opcode;
  r.tag = w.tag;
  r.req_it_iu_len = w.req_it_iu_len.get();
  r.req_buf_fmt = w.req_buf_fmt.get();
  r.req_flags = w.req_flags;
  r.imm_data_offset = w.imm_data_offset.get();
  for (int i = 0; i < 16; i++) {
    r.initiator_port_id[i] = w.initiator_port_id[i];
    r.target_port_id[i] = w.target_port_id[i];
  }
  return r;
}

}  // namespace

Result<LoginRequest> LoginRequest::parse(srpt_cm_kind kind, const u8* priv,
                                         usize len) {
  if (priv == nullptr) return Error::Inval;
  if (kind == SRPT_CM_IB) {
    if (len < sizeof(srp::LoginReq)) return Error::Inval;
    return from_wire(*reinterpret_cast<const srp::LoginReq*>(priv));
  }
  if (kind == SRPT_CM_RDMA) {
    if (len < sizeof(srp::LoginReqRdma)) return Error::Inval;
    return from_wire(*reinterpret_cast<const srp::LoginReqRdma*>(priv));
  }
  return Error::Inval;
}

}  // namespace srpt
