// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/login_request.h>

namespace srpt {
namespace {

void copy16(u8* dst, const u8* src) {
  for (int i = 0; i < 16; i++) dst[i] = src[i];
}

}  // namespace

Result<LoginRequest> LoginRequest::parse(srpt_cm_kind kind, const u8* priv,
                                         usize len) {
  LoginRequest r{};
  if (priv == nullptr) return Error::Inval;
  if (kind == SRPT_CM_IB) {
    if (len < sizeof(srp::LoginReq)) return Error::Inval;
    const auto* w = reinterpret_cast<const srp::LoginReq*>(priv);
    r.opcode = w->opcode;
    r.tag = w->tag;
    r.req_it_iu_len = w->req_it_iu_len.get();
    r.req_buf_fmt = w->req_buf_fmt.get();
    r.req_flags = w->req_flags;
    r.imm_data_offset = w->imm_data_offset.get();
    copy16(r.initiator_port_id, w->initiator_port_id);
    copy16(r.target_port_id, w->target_port_id);
    return move(r);
  }
  if (kind == SRPT_CM_RDMA) {
    if (len < sizeof(srp::LoginReqRdma)) return Error::Inval;
    const auto* w = reinterpret_cast<const srp::LoginReqRdma*>(priv);
    r.opcode = w->opcode;
    r.tag = w->tag;
    r.req_it_iu_len = w->req_it_iu_len.get();
    r.req_buf_fmt = w->req_buf_fmt.get();
    r.req_flags = w->req_flags;
    r.imm_data_offset = w->imm_data_offset.get();
    copy16(r.initiator_port_id, w->initiator_port_id);
    copy16(r.target_port_id, w->target_port_id);
    return move(r);
  }
  return Error::Inval;
}

}  // namespace srpt
