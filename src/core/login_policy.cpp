// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/login_policy.h>

#include <srpt/rt/byteorder.h>
#include <srpt/rt/utility.h>

namespace srpt {

LoginCheck check_login_request(const LoginRequest& req,
                               const LoginLimits& limits) {
  if (req.opcode != srp::kLoginReq)
    return LoginCheck::reject(srp::kRejUnableToEstablish,
                              "opcode is not SRP_LOGIN_REQ");
  if (req.req_it_iu_len < srp::kMinItIuLen)
    return LoginCheck::reject(srp::kRejIuTooLarge,
                              "requested IT IU length below 64");
  if (req.req_it_iu_len > limits.max_req_size)
    return LoginCheck::reject(srp::kRejIuTooLarge,
                              "requested IT IU length above srp_max_req_size");
  if ((req.req_buf_fmt & (srp::kBufFmtDirect | srp::kBufFmtIndirect)) == 0)
    return LoginCheck::reject(srp::kRejUnsupportedDescriptorFmt,
                              "neither direct nor indirect descriptors offered");
  if (load_be64(req.target_port_id) != limits.service_guid ||
      load_be64(req.target_port_id + 8) != limits.service_guid)
    return LoginCheck::reject(srp::kRejUnableToAssociate,
                              "target port id does not name this target");

  LoginGrant g{};
  g.max_it_iu_len = req.req_it_iu_len;
  // Our largest IU is an SRP_RSP with sense data, which fits in
  // srp_max_rsp_size; an initiator sizes its receive buffers by this.
  g.max_ti_iu_len = limits.max_rsp_size;
  g.req_lim_delta = limits.recv_depth;
  // As in-tree: anything but SINGLE (0) asks to keep other channels.
  g.multi_channel = (req.req_flags & srp::kMultiChanMask) != srp::kMultiChanSingle;
  // Immediate data lives behind the SRP_CMD header and inside the IU;
  // any other offset means the login goes ahead without it.
  g.immediate = (req.req_flags & srp::kImmedRequested) != 0 &&
                req.imm_data_offset >= sizeof(srp::Cmd) &&
                req.imm_data_offset < g.max_it_iu_len &&
                (limits.required_imm_offset == 0 ||
                 req.imm_data_offset == limits.required_imm_offset);
  g.imm_data_offset = g.immediate ? req.imm_data_offset : 0;
  return LoginCheck::accept(g);
}

}  // namespace srpt
