// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/srp_cmd.h>

#include <srpt/rt/utility.h>

namespace srpt {
namespace {

srpt_task_attr task_attr_of(u8 srp_attr) {
  switch (srp_attr) {
    case 1: return SRPT_TASK_HEAD;
    case 2: return SRPT_TASK_ORDERED;
    case 4: return SRPT_TASK_ACA;
    default: return SRPT_TASK_SIMPLE;  // 0, and reserved values as in-tree
  }
}

srpt_rdma_seg seg_of(const srp::DirectBuf& d) {
  return srpt_rdma_seg{d.va.get(), d.key.get(), d.len.get()};
}

}  // namespace

const char* cmd_refusal_name(CmdRefusal r) {
  switch (r) {
    case CmdRefusal::None: return "none";
    case CmdRefusal::Truncated: return "IU truncated";
    case CmdRefusal::Bidirectional: return "bidirectional command";
    case CmdRefusal::BadFormat: return "unsupported descriptor format";
    case CmdRefusal::ImmediateNotGranted: return "immediate data not negotiated";
    case CmdRefusal::ImmediateOutOfBounds: return "immediate data past the IU";
    case CmdRefusal::ImmediateOverlap: return "immediate data overlaps the request";
    case CmdRefusal::EmptyTable: return "empty indirect descriptor table";
    case CmdRefusal::TableLength: return "descriptor table length not a multiple of 16";
    case CmdRefusal::TableCount: return "descriptor count beyond the table";
    case CmdRefusal::TooManySegments: return "too many data segments";
    case CmdRefusal::LengthMismatch: return "indirect length above its segments";
    case CmdRefusal::DataTooLong: return "data length above 16 MiB";
    case CmdRefusal::TableFetchFailed: return "descriptor table fetch failed";
    case CmdRefusal::StoreTooSmall: return "segment store too small";
  }
  return "?";
}

u64 scsi_lun_to_int(const u8 (&lun)[8]) {
  u64 v = 0;
  for (int i = 0; i < 8; i += 2)
    v |= (static_cast<u64>(lun[i]) << ((i + 1) * 8)) |
         (static_cast<u64>(lun[i + 1]) << (i * 8));
  return v;
}

namespace {

// The segments of `n` wire descriptors at `list` into out->segs (which may
// be the same memory: each entry is read whole before it is written), and
// the data length check: the initiator's total may be below what the
// segments offer (the SCSI layer asked for less), never above.
CmdRefusal take_segments(const u8* list, u32 n, u32 data_len, ParsedCmd* out) {
  u64 sum = 0;
  for (u32 i = 0; i < n; i++) {
    srp::DirectBuf d;
    const u8* src = list + i * sizeof(srp::DirectBuf);
    u8* dst = reinterpret_cast<u8*>(&d);
    for (u32 b = 0; b < sizeof(d); b++) dst[b] = src[b];
    out->segs[i] = seg_of(d);
    sum += out->segs[i].len;
  }
  out->nsegs = n;
  out->data_len = data_len;
  if (data_len > kMaxCmdDataLen) return CmdRefusal::DataTooLong;
  if (data_len > sum) return CmdRefusal::LengthMismatch;
  return CmdRefusal::None;
}

}  // namespace

CmdRefusal decode_desc_table(const u8* table, ParsedCmd* out) {
  const u32 n = out->ext.len / sizeof(srp::DirectBuf);
  // parse_srp_cmd() bounded ext.len; a caller handing anything else is a bug.
  if (n == 0 || n > kMaxRdmaSegs) return CmdRefusal::TooManySegments;
  return take_segments(table, n, out->data_len, out);
}

CmdRefusal parse_srp_cmd(const u8* iu, u32 len, const ChannelIuLimits& lim,
                         srpt_rdma_seg* store, ParsedCmd* out, u32 store_cap) {
  *out = ParsedCmd{};
  out->segs = store;
  if (len < sizeof(srp::Cmd)) return CmdRefusal::Truncated;
  const auto* cmd = reinterpret_cast<const srp::Cmd*>(iu);
  out->tag = cmd->tag;
  out->lun = scsi_lun_to_int(cmd->lun);
  out->attr = task_attr_of(cmd->task_attr);

  // Additional CDB bytes follow the 16-byte CDB, in 4-byte units (the low
  // two bits of add_cdb_len are reserved).
  const u32 add_cdb = cmd->add_cdb_len & ~3u;
  const u32 desc_off = sizeof(srp::Cmd) + add_cdb;
  if (desc_off > len) return CmdRefusal::Truncated;
  out->cdb = cmd->cdb;
  out->cdb_len = 16 + add_cdb;

  const u8 out_fmt = cmd->buf_fmt >> 4;
  const u8 in_fmt = cmd->buf_fmt & 0xf;
  if (out_fmt != srp::kNoData && in_fmt != srp::kNoData)
    return CmdRefusal::Bidirectional;
  const u8 fmt = out_fmt != srp::kNoData ? out_fmt : in_fmt;
  out->dir = out_fmt != srp::kNoData  ? SRPT_DIR_WRITE
             : in_fmt != srp::kNoData ? SRPT_DIR_READ
                                      : SRPT_DIR_NONE;
  const u32 desc_cnt =
      out->dir == SRPT_DIR_WRITE ? cmd->data_out_desc_cnt : cmd->data_in_desc_cnt;
  const u8* desc = iu + desc_off;
  const u32 room = len - desc_off;

  switch (fmt) {
    case srp::kNoData:
      return CmdRefusal::None;

    case srp::kDirect: {
      if (room < sizeof(srp::DirectBuf)) return CmdRefusal::Truncated;
      return take_segments(desc, 1,
                           reinterpret_cast<const srp::DirectBuf*>(desc)->len.get(),
                           out);
    }

    case srp::kIndirect: {
      // The header, then desc_cnt descriptors in the IU: the first entries
      // of the table that table_desc describes in initiator memory.
      if (room < sizeof(srp::IndirectBufHeader)) return CmdRefusal::Truncated;
      const auto* hdr = reinterpret_cast<const srp::IndirectBufHeader*>(desc);
      const u32 table_len = hdr->table_desc.len.get();
      if (table_len % sizeof(srp::DirectBuf) != 0) return CmdRefusal::TableLength;
      const u32 total = table_len / sizeof(srp::DirectBuf);
      if (total == 0) return CmdRefusal::EmptyTable;
      if (desc_cnt > total) return CmdRefusal::TableCount;
      if ((room - sizeof(srp::IndirectBufHeader)) / sizeof(srp::DirectBuf) < desc_cnt)
        return CmdRefusal::Truncated;
      if (total > kMaxRdmaSegs) return CmdRefusal::TooManySegments;
      if (total == desc_cnt) {
        if (total > store_cap) return CmdRefusal::StoreTooSmall;
        return take_segments(desc + sizeof(srp::IndirectBufHeader), total,
                             hdr->len.get(), out);
      }
      // The rest of the table is in initiator memory: the whole table is
      // fetched from there (the IU's entries are a copy of its head), unless
      // the command is refused anyway.
      if (hdr->len.get() > kMaxCmdDataLen) return CmdRefusal::DataTooLong;
      out->ext = ExternalTable{hdr->table_desc.va.get(), hdr->table_desc.key.get(),
                               table_len};
      out->data_len = hdr->len.get();
      return CmdRefusal::None;
    }

    case srp::kImmediate: {
      if (out->dir != SRPT_DIR_WRITE) return CmdRefusal::BadFormat;
      if (!lim.immediate) return CmdRefusal::ImmediateNotGranted;
      if (room < 4) return CmdRefusal::Truncated;
      // The data follows its descriptor, as the in-tree driver requires: an
      // offset inside the additional CDB or the descriptor would hand those
      // bytes to the target core as data.
      if (lim.imm_data_offset < desc_off + 4) return CmdRefusal::ImmediateOverlap;
      const u32 imm_len = Be32(*reinterpret_cast<const Be32*>(desc)).get();
      const u64 end = static_cast<u64>(lim.imm_data_offset) + imm_len;
      if (end > len || end > lim.max_it_iu_len)
        return CmdRefusal::ImmediateOutOfBounds;
      out->imm = iu + lim.imm_data_offset;
      out->imm_len = imm_len;
      out->data_len = imm_len;
      return CmdRefusal::None;
    }

    default:
      return CmdRefusal::BadFormat;
  }
}

u32 built_sense_len(const u8* sense, u32 reported) {
  if (sense == nullptr || reported == 0) return 0;
  if (reported < 8) return reported;
  const u8 response_code = sense[0] & 0x7f;  // bit 7: VALID (fixed format)
  if (response_code < 0x70 || response_code > 0x73) return reported;
  return min(reported, 8u + sense[7]);
}

u32 build_srp_rsp(u8* buf, u32 cap, const RspFields& f) {
  auto* rsp = reinterpret_cast<srp::Rsp*>(buf);
  *rsp = srp::Rsp{};
  rsp->opcode = srp::kRsp;
  rsp->req_lim_delta.set(f.req_lim_delta);
  rsp->tag = f.tag;
  rsp->status = f.status;
  u32 off = sizeof(srp::Rsp);

  if (f.has_rsp_code) {
    // Four bytes of response data, the code in the last one.
    rsp->flags |= srp::kRspFlagRspValid;
    rsp->resp_data_len.set(4);
    for (int i = 0; i < 4; i++) buf[off + i] = 0;
    buf[off + 3] = f.rsp_code;
    off += 4;
  }
  if (f.residual != 0 && (f.underflow || f.overflow)) {
    const bool out = f.dir == SRPT_DIR_WRITE;
    if (f.underflow) rsp->flags |= out ? srp::kRspFlagDoUnder : srp::kRspFlagDiUnder;
    if (f.overflow) rsp->flags |= out ? srp::kRspFlagDoOver : srp::kRspFlagDiOver;
    (out ? rsp->data_out_res_cnt : rsp->data_in_res_cnt).set(f.residual);
  }
  if (f.sense != nullptr && f.sense_len != 0 && cap > off) {
    const u32 n = min(f.sense_len, cap - off);
    for (u32 i = 0; i < n; i++) buf[off + i] = f.sense[i];
    rsp->flags |= srp::kRspFlagSnsValid;
    rsp->sense_data_len.set(n);
    off += n;
  }
  return off;
}

void refusal_sense(CmdRefusal why, u8 (&sense)[kRefusalSenseLen]) {
  for (u8& b : sense) b = 0;
  sense[0] = 0x70;  // current error, fixed format
  sense[7] = 10;    // additional sense length
  if (why == CmdRefusal::TableFetchFailed) {
    sense[2] = 0x0b;  // ABORTED COMMAND
    return;
  }
  sense[2] = 0x05;   // ILLEGAL REQUEST
  sense[12] = 0x0e;  // INVALID FIELD IN COMMAND INFORMATION UNIT
  sense[13] = 0x03;
}

}  // namespace srpt
