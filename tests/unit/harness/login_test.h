// SPDX-License-Identifier: GPL-2.0
// LoginTest: logins and channels through the core's C entry points, with
// the fake CM, queues, sessions and commands standing in for the kernel.
//
// SetUp brings up the standard target: the two-port device (service GUID =
// its node GUID), a GUID-named target port on port 1 with one enabled TPG
// whose ACLs admit the standard initiator under its IB/CM name (port GUID
// form) and its RDMA/CM name (source address). Logins go through
// fake::cm_login(), which plays the CM core: it destroys the cm_id itself
// whenever srpt_core_login() returns non-zero.
//
// TearDown runs what is still queued, removes everything (which releases
// every channel) and then checks THE OWNERSHIP RULE for every login the
// test made: its cm_id was destroyed exactly once, by the CM core if and
// only if srpt_core_login() returned non-zero, by the channel otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <srpt/abi/cm.h>
#include <srpt/core/login_policy.h>
#include <srpt/core/srp_wire.h>

#include "target_test.h"

// The standard initiator: port id = id_ext (8 bytes) + port GUID.
inline constexpr uint64_t kInitiatorIdExt = 0x0000000000000000ull;
inline constexpr uint64_t kInitiatorGuid = 0x0002c903000e8acdull;
inline constexpr const char* kInitiatorGuidName = "0002:c903:000e:8acd";
inline constexpr const char* kInitiatorId0x = "0x00000000000000000002c903000e8acd";
inline constexpr const char* kInitiatorIdHex = "00000000000000000002c903000e8acd";
inline constexpr const char* kInitiatorAddr = "192.0.2.2";

// The credits (request IUs, command slots) of a login on the default
// attributes of the fake's device.
inline constexpr uint32_t kCredits = srpt::kMaxLoginCredits;

using Bytes = std::vector<uint8_t>;
using Id16 = std::array<uint8_t, 16>;

// 16 bytes from two 64-bit halves, big-endian.
Id16 MakeId(uint64_t hi, uint64_t lo);

// The fields of an SRP_LOGIN_REQ and how the CM delivers it.
// Allocations a login makes with srp_sq_size 4, each of which the
// allocation walks fail in turn: spinlock, dispatch gate (spinlock,
// completion), channel, IU table, command table, 4 commands, 2 rings
// (receive, send; no descriptor-table buffers: those come with the first
// command that needs one), QP, the command-context set (its table, itself)
// and its 4 contexts, work, completion, session.
constexpr size_t kSmallLoginAllocations = 6 + 4 + 2 + 1 + 2 + 4 + 3;

struct LoginReq {
  srpt_cm_kind kind = SRPT_CM_IB;
  uint8_t opcode = srpt::srp::kLoginReq;
  uint64_t tag = 0x0102030405060708ull;  // bytes 01..08 on the wire
  uint32_t it_iu_len = 8260;             // ib_srp's default
  uint16_t buf_fmt = srpt::srp::kBufFmtDirect | srpt::srp::kBufFmtIndirect;
  uint8_t flags = srpt::srp::kMultiChanSingle;
  uint16_t imm_off = 0;
  Id16 i_port_id = MakeId(kInitiatorIdExt, kInitiatorGuid);
  Id16 t_port_id{};                      // LoginTest fills in the service GUID
  bool reserved_ff = false;              // every reserved byte 0xff
  // Delivery: private data length (0: IB/CM 92 as the shim passes it,
  // RDMA/CM 56), port, source address (RDMA/CM), device (null: the test's).
  size_t priv_len = 0;
  uint32_t port_num = 1;
  std::string src_addr = kInitiatorAddr;
  srpt_k_device* kdev = nullptr;
  // IB/CM: the initiator's port GID from the REQ's path (the shim passes it).
  Id16 initiator_gid = MakeId(0xfe80000000000000ull, kInitiatorGuid);
};

// The private data as the CM would deliver it.
Bytes EncodeLoginReq(const LoginReq& r);

// An SRP_LOGIN_RSP as the fake recorded it.
struct LoginRspView {
  uint8_t opcode;
  uint32_t req_lim_delta;
  uint64_t tag;
  uint32_t max_it_iu_len;
  uint32_t max_ti_iu_len;
  uint16_t buf_fmt;
  uint8_t rsp_flags;
};
LoginRspView DecodeLoginRsp(const Bytes& b);

// An SRP_RSP as sent.
struct RspView {
  uint8_t opcode;
  uint32_t req_lim_delta;
  uint64_t tag;
  uint8_t flags;
  uint8_t status;
  uint32_t data_out_res;
  uint32_t data_in_res;
  uint32_t sense_len;
  uint32_t resp_len;
  Bytes resp_data;
  Bytes sense;
};
RspView DecodeRsp(const Bytes& b);

// An SRP_CMD under construction.
struct SrpCmd {
  uint64_t tag = 0xa0a1a2a3a4a5a6a7ull;
  std::array<uint8_t, 8> lun{0, 1, 0, 0, 0, 0, 0, 0};  // LUN 1
  std::array<uint8_t, 16> cdb{0x00};  // TEST UNIT READY
  uint8_t buf_fmt = 0;
  uint8_t out_cnt = 0;
  uint8_t in_cnt = 0;
  uint8_t task_attr = 0;
  uint8_t add_cdb_len = 0;
  Bytes add_cdb;   // appended after the 48-byte header
  Bytes tail;      // descriptors and anything after
};
Bytes EncodeSrpCmd(const SrpCmd& c);
// A 16-byte direct descriptor.
Bytes DirectDesc(uint64_t va, uint32_t rkey, uint32_t len);
// An indirect descriptor header (table descriptor + total length).
Bytes IndirectHeader(uint64_t table_va, uint32_t table_rkey, uint32_t table_len,
                     uint32_t total_len);
void Append(Bytes& to, const Bytes& more);
// A bare IU of `len` bytes with `opcode` and `tag`.
Bytes SimpleIu(uint8_t opcode, uint64_t tag, size_t len = 16);

class LoginTest : public TargetTest {
 protected:
  struct Outcome {
    int ret;
    fake::CmId* id;
  };

  void SetUp() override;
  void TearDown() override;

  // A request the standard target accepts.
  LoginReq GoodReq(srpt_cm_kind kind = SRPT_CM_IB) const;
  Outcome Login(const LoginReq& r);
  // Private data as given.
  // Private data as given; an IB/CM login comes from `gid` (null: the
  // standard initiator's port GID, fe80::<kInitiatorGuid>).
  Outcome LoginRaw(srpt_cm_kind kind, const Bytes& priv, uint32_t port_num = 1,
                   srpt_k_device* kdev = nullptr, const char* src = kInitiatorAddr,
                   const Id16* gid = nullptr);

  // Refused with an SRP_LOGIN_REJ of `reason` echoing `tag`; the CM core
  // destroyed the cm_id and nothing of the channel is left.
  void ExpectRejected(const Outcome& o, uint32_t reason,
                      uint64_t tag = LoginReq().tag);
  // Refused with a CM reject that carries no SRP_LOGIN_REJ.
  void ExpectPlainReject(const Outcome& o);
  // Accepted: zero, one SRP_LOGIN_RSP, the channel owns the cm_id.
  void ExpectAccepted(const Outcome& o);
  LoginRspView Rsp(const Outcome& o);
  // The cm_id was destroyed exactly once, by the channel.
  void ExpectReleasedByChannel(const Outcome& o);

  // What is wrong with how `id` was destroyed, after the test, by THE
  // OWNERSHIP RULE: exactly one destroyer, exactly once, and it is the CM
  // core iff srpt_core_login() returned non-zero. Empty when all is well.
  static std::vector<std::string> OwnershipProblems(const fake::CmId* id);

  // Channel helpers.
  srpt_k_qp* Qp(const Outcome& o) const;
  void Establish(const Outcome& o);
  // A logged-in, established channel.
  Outcome LiveChannel(srpt_cm_kind kind = SRPT_CM_IB);
  // Delivers an IU; returns the receive index it used.
  uint32_t Receive(const Outcome& o, const Bytes& iu);
  // The sends posted and not completed, and everything ever sent.
  const std::deque<fake::PostedSend>& Posted(const Outcome& o) const;
  const std::vector<fake::PostedSend>& Sent(const Outcome& o) const;
  // The target core finishes a submitted command with `status`, no sense.
  static void Answer(srpt_k_cmd* cmd, uint8_t status = 0);
  // Logs `o` out (SRP_I_LOGOUT) and runs its release.
  void Logout(const Outcome& o);
  // The value of line `name` of debugfs ib_srpt/objects.
  static unsigned long long Objects(const std::string& name);
  // Runs queued work (release works) until none is left.
  size_t RunWorks() { return fake::run_works(); }

  // A target port named `port_name` with TPG "1", enabled, admitting the
  // test initiator by its GUID name and its address.
  void ServeTpg(const char* port_name, srpt_core_tport** tport, srpt_core_tpg** tpg);

  // The fixture's device (TwoPortDevice()).
  FakeDevice& device() { return dev_; }
  // Changes the fixture's device before SetUp adds it.
  virtual void TuneDevice(FakeDevice& dev) { (void)dev; }

  srpt_core_device* cdev_ = nullptr;
  srpt_core_tport* tport_ = nullptr;
  srpt_core_tpg* tpg_ = nullptr;
  uint64_t service_guid_ = 0;
  std::vector<fake::CmId*> logins_;

 private:
  FakeDevice dev_ = TwoPortDevice();
};
