// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/srp_tsk_mgmt.h>


namespace srpt {

const char* tsk_mgmt_refusal_name(TskMgmtRefusal r) {
  switch (r) {
    case TskMgmtRefusal::None: return "none";
    case TskMgmtRefusal::Truncated: return "IU truncated";
    case TskMgmtRefusal::UnknownFunction: return "unknown function";
  }
  return "?";
}

const char* tsk_mgmt_func_name(u8 srp_func) {
  switch (srp_func) {
    case kSrpTskAbortTask: return "ABORT TASK";
    case kSrpTskAbortTaskSet: return "ABORT TASK SET";
    case kSrpTskClearTaskSet: return "CLEAR TASK SET";
    case kSrpTskLunReset: return "LOGICAL UNIT RESET";
    case kSrpTskClearAca: return "CLEAR ACA";
  }
  return "unknown";
}

TskMgmtRefusal parse_srp_tsk_mgmt(const u8* iu, u32 len, ParsedTskMgmt* out) {
  *out = ParsedTskMgmt{};
  if (len >= 16)
    for (int i = 0; i < 8; i++) out->tag.bytes[i] = iu[8 + i];
  if (len < sizeof(srp::TskMgmt)) return TskMgmtRefusal::Truncated;
  const auto* t = reinterpret_cast<const srp::TskMgmt*>(iu);
  out->lun = scsi_lun_to_int(t->lun);
  out->srp_func = t->tsk_mgmt_func;
  out->task_tag = t->task_tag;
  switch (t->tsk_mgmt_func) {
    case kSrpTskAbortTask: out->func = SRPT_TMF_ABORT_TASK; break;
    case kSrpTskAbortTaskSet: out->func = SRPT_TMF_ABORT_TASK_SET; break;
    case kSrpTskClearTaskSet: out->func = SRPT_TMF_CLEAR_TASK_SET; break;
    case kSrpTskLunReset: out->func = SRPT_TMF_LUN_RESET; break;
    case kSrpTskClearAca: out->func = SRPT_TMF_CLEAR_ACA; break;
    default: return TskMgmtRefusal::UnknownFunction;
  }
  return TskMgmtRefusal::None;
}

u8 tsk_mgmt_refusal_code(TskMgmtRefusal r) {
  switch (r) {
    case TskMgmtRefusal::None: return kTmrComplete;
    case TskMgmtRefusal::Truncated: return kTmrFieldsInvalid;
    case TskMgmtRefusal::UnknownFunction: return kTmrNotSupported;
  }
  return kTmrFailed;
}

u8 tsk_mgmt_rsp_code(srpt_tmf_result r) {
  switch (r) {
    case SRPT_TMF_RESULT_COMPLETE:
    case SRPT_TMF_RESULT_NO_TASK:
      return kTmrComplete;
    case SRPT_TMF_RESULT_NOT_SUPPORTED:
      return kTmrNotSupported;
    case SRPT_TMF_RESULT_NO_LUN:
    case SRPT_TMF_RESULT_REJECTED:
    case SRPT_TMF_RESULT_FAILED:
      return kTmrFailed;
  }
  return kTmrFailed;
}

}  // namespace srpt
