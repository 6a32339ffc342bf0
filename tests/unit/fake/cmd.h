// SPDX-License-Identifier: GPL-2.0
// The fake SCSI command contexts (include/srpt/abi/cmd.h) and the part of
// the target core that they talk to.
//
// srpt_k_cmd_submit() records the submission; the test then plays the target
// core by calling srpt_core_cmd_write_pending / queue_data_in / queue_status
// with cmd_ctx(cmd), after set_cmd_result() if the default result (GOOD, all
// data moved, no sense) is not wanted. srpt_k_cmd_free() calls
// srpt_core_cmd_release() synchronously, as transport_generic_free_cmd()
// does when the last reference goes. A prepared context takes one work
// request per started kFakeBytesPerWr of its segment (rdma_rw at 16 pages
// per request). RDMA parts (srpt_k_cmd_rdma_read, srpt_k_cmd_rdma_write)
// are posted on the QP and completed with complete_rdma_read() /
// complete_rdma_write() (or flushed);
// srpt_k_cmd_fail() answers CHECK CONDITION through queue_status at once, as
// transport_generic_request_failure() does; a submission to a stopped
// session is refused with -ESHUTDOWN and records nothing, as
// target_init_cmd() does (the core answers BUSY). srpt_k_cmd_submit_tmf() records a
// task management request; the test answers it with answer_tmf() (queue_tm_rsp)
// or aborts it; a stopped session refuses it with -ESHUTDOWN, as
// target_submit_tmr() does, holding nothing.
//
// Violations: submitting a command the target core still holds, freeing or
// failing one it does not hold (or whose response or RDMA is still posted),
// destroying one it holds, immediate data that does not lie at the
// aligned offset of its receive ring, RDMA calls out of order (a part that does not
// start where the last ended, or is posted while another part of the same
// command is), executing a command whose data-out contexts are still
// mapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <srpt/abi/cmd.h>

#include "fault.h"

namespace fake {
// TRANSPORT_SENSE_BUFFER.
inline constexpr size_t kSenseBufferSize = 96;
// The bytes one RDMA work request moves: 16 pages of 4 KiB.
inline constexpr uint32_t kFakeBytesPerWr = 16 * 4096;
}  // namespace fake

struct srpt_k_cmd {
  enum class Phase {
    Idle,          // no command (never submitted, or released)
    Submitted,     // with the target core
    RdmaReading,   // data-out RDMA reads posted
    Executing,     // srpt_k_cmd_execute(): with the backend
    RspPosted,     // srpt_k_cmd_send_rsp() posted the response
  };
  srpt_k_qp* qp;
  uint32_t port_num;
  srpt_core_cmd* ctx;  // the core's command
  int serial;
  Phase phase = Phase::Idle;
  bool active = false;  // from submit to release
  srpt_k_session* sess = nullptr;
  srpt_cmd_result result{};
  // The context's sense buffer (the shim's sense[TRANSPORT_SENSE_BUFFER]),
  // which the target core writes into and result.sense points at. It lives
  // as long as the context, across the commands of its slot, and is zeroed
  // by srpt_k_cmd_submit() as the shim does.
  std::vector<uint8_t> sense = std::vector<uint8_t>(fake::kSenseBufferSize);
  // Prepared RDMA contexts, one per segment, and their work requests.
  std::vector<srpt_rdma_seg> segs;
  std::vector<uint32_t> ctx_wrs;
  srpt_data_dir rw_dir = SRPT_DIR_NONE;
  uint32_t wrs = 0;
  uint32_t posted_to = 0;  // contexts posted so far, in order
  int parts = 0;           // RDMA parts posted (srpt_k_cmd_rdma_read/_write)
  int submits = 0;
  int frees = 0;
  int releases = 0;
  int executes = 0;
  int fails = 0;
  // Task management (srpt_k_cmd_submit_tmf): what the target core answers.
  bool is_tmf = false;
  srpt_tmf_result tmf_result = SRPT_TMF_RESULT_COMPLETE;
  int fetches = 0;
  bool fetching = false;
  // Times srpt_k_cmd_bind() gave it to another channel's slot.
  int binds = 0;
};

namespace fake {

struct PostedSend;

struct Submission {
  srpt_k_cmd* cmd;
  srpt_k_session* sess;
  std::vector<uint8_t> cdb;
  uint64_t lun;
  uint64_t tag;
  uint32_t data_len;
  srpt_data_dir dir;
  srpt_task_attr attr;
  std::vector<uint8_t> imm;
  bool has_imm;
};
const std::vector<Submission>& submissions();

struct TmfSubmission {
  srpt_k_cmd* cmd;
  srpt_k_session* sess;
  srpt_tmf func;
  uint64_t lun;
  uint64_t tag;
  uint64_t ref_tag;
};
const std::vector<TmfSubmission>& tmf_submissions();
// The target core answers a task management request (queue_tm_rsp).
void answer_tmf(srpt_k_cmd* cmd, srpt_tmf_result r);

srpt_core_cmd* cmd_ctx(const srpt_k_cmd* cmd);
// What srpt_k_cmd_result() reports for `cmd` from now on. The target core
// writes `sense` over the start of the context's sense buffer (what lies
// beyond stays as it was) and reports `sense_len` bytes of it: by default
// sense.size(); the target core's own CHECK CONDITIONs report the whole
// buffer, kSenseBufferSize (translate_sense_reason()).
void set_cmd_result(srpt_k_cmd* cmd, const srpt_cmd_result& r,
                    const std::vector<uint8_t>& sense = {}, size_t sense_len = 0);
// Completes the posted RDMA part (reads, or data-in writes) of `cmd` (!ok:
// with kWcRemAccessErr).
void complete_rdma_read(srpt_k_cmd* cmd, bool ok = true);
void complete_rdma_write(srpt_k_cmd* cmd, bool ok = true);
// Completes it with the ib_wc_status `wc_status` (queue.h: kWc*).
void complete_rdma_read_status(srpt_k_cmd* cmd, int wc_status);
// The target core aborts `cmd` (a TMF, a LUN reset) before any response:
// aborted_task, then release_cmd, as the target core does on its own.
void target_core_aborts(srpt_k_cmd* cmd);

size_t live_cmds();
size_t active_cmds();  // with the target core (submitted, not released)

// The posted descriptor-table read of `cmd` completes: `table` (what the
// initiator's memory holds) lands in the buffer, or the read fails.
void complete_fetch(srpt_k_cmd* cmd, const std::vector<uint8_t>& table,
                    bool ok = true);
// The table read `cmd` has posted (nullptr: none).
const PostedSend* posted_fetch(const srpt_k_cmd* cmd);
// For the queue fake: the table read of `cmd` completed (or was flushed).
void cmd_fetch_completed(srpt_k_cmd* cmd, bool ok);
// For the queue fake: an RDMA part of `cmd` completed (or was flushed),
// with the ib_wc_status of its last work request.
void cmd_rdma_part_completed(srpt_k_cmd* cmd, int wc_status);
// The call of `c` (CmdRdmaRead, CmdRdmaWrite or CmdSendRsp) after `skip`
// more of it goes in part, as when the send queue takes the head of a
// chain and refuses the rest: its first `posted_wrs` RDMA work requests
// are posted unsignalled (fewer than the part's; for a response, at most
// the writes in front of it), and the call does what the shim does then
// (abi/cmd.h, SRPT_K_POST_BROKEN).
void break_next_post(Call c, uint32_t posted_wrs, size_t skip = 0);
// For the queue fake: `cmd` still holds what its posted RDMA work requests
// use (with the target core, its contexts mapped).
bool cmd_holds_buffers(const srpt_k_cmd* cmd);
// For the session drain: the backend finishes one command of `sess` that is
// still with the target core (queue_status). False when none is.
bool finish_one_cmd_of(srpt_k_session* sess);

std::vector<std::string> cmd_leaks();
void reset_cmd();

}  // namespace fake
