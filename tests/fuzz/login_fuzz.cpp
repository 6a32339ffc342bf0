// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the login handler (srpt_core_login, Target::login) on
// the standard target of LoginTest, with the fuzzer's bytes as the private
// data of a connection request.
//
// Input: two control bytes, then the private data as the CM delivers it.
//   byte 0  bit 0     CM kind: 0 IB/CM (SRP_LOGIN_REQ), 1 RDMA/CM (srp_login_req_rdma)
//           bit 1     the TPG's ACLs admit nobody
//           bit 2     the TPG is disabled
//           bits 3-4  port: 0, 1 port 1 (the target port's); 2 port 2 (no
//                     target port); 3 port 3 (no such port)
//           bit 5     an accepted login gets its RTU (ESTABLISHED) and then a
//                     DREQ (DISCONNECTED), else it stays connecting
//           bit 6     the same request arrives a second time (SINGLE takeover,
//                     MULTI nexus)
//           bit 7     a failure is injected into the first login (byte 1)
//   byte 1  with bit 7: below 0x80, allocation attempt byte 1 (0 = the
//           first the login makes) fails; from 0x80, the first call of
//           ABI function (byte 1 - 0x80) % fake::Call::Count fails with
//           -ENOMEM (a ring, QP, session, post, accept, reject...)
//
// After every input, besides the fixture's teardown checks (THE OWNERSHIP
// RULE for each cm_id, no leak, no bug report, no contract violation):
//   - the first login's answer is the one the login check table at the top
//     of src/core/login.cpp gives for these bytes (computed here
//     independently of the core), unless a failure was injected and the
//     bytes pass every check that precedes the login's first allocation
//     (the table accepts them), when a refusal with 0x00010001 is allowed
//     too. No ACL (0x00010006) is decided before
//     anything is built, so no injected failure can change that answer;
//   - every answer is well formed: an accepted login returned 0 and sent one
//     52-byte SRP_LOGIN_RSP echoing the tag and granting at most the
//     requested IU length; a refused one returned non-zero and sent one CM
//     reject, bare or with a 32-byte SRP_LOGIN_REJ echoing the tag.
#include <srpt/core/srp_wire.h>

#include <cstring>

#include "../unit/harness/login_test.h"
#include "fuzz_case.h"

namespace {

namespace srp = srpt::srp;

uint64_t be(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = (v << 8) | p[i];
  return v;
}

// What login.cpp's check table answers. 0: accepted; ~0u: a plain CM
// reject; else the SRP_LOGIN_REJ reason.
constexpr uint32_t kAccept = 0, kPlain = ~0u;

struct Setting {
  srpt_cm_kind kind;
  bool acl;
  bool tpg_enabled;
  uint32_t port_num;
};

uint32_t expected_answer(const Setting& s, const Bytes& priv, uint64_t service_guid) {
  const bool ib = s.kind == SRPT_CM_IB;
  if (priv.size() < (ib ? 64u : 56u)) return kPlain;
  if (s.port_num > 2) return kPlain;
  const uint8_t* p = priv.data();
  const uint8_t opcode = ib ? p[0] : p[11];
  const uint32_t it_iu_len = static_cast<uint32_t>(ib ? be(p + 16, 4) : be(p + 12, 4));
  const uint16_t buf_fmt = static_cast<uint16_t>(ib ? be(p + 24, 2) : be(p + 8, 2));
  const uint8_t* t_port_id = ib ? p + 48 : p + 32;
  if (opcode != srp::kLoginReq) return srp::kRejUnableToEstablish;
  if (it_iu_len < 64 || it_iu_len > 8276) return srp::kRejIuTooLarge;
  if ((buf_fmt & (srp::kBufFmtDirect | srp::kBufFmtIndirect)) == 0)
    return srp::kRejUnsupportedDescriptorFmt;
  if (be(t_port_id, 8) != service_guid || be(t_port_id + 8, 8) != service_guid)
    return srp::kRejUnableToAssociate;
  if (s.port_num != 1 || !s.tpg_enabled) return srp::kRejInsufficientResources;
  // The TPG (of a GUID-named target port) admits the standard initiator's
  // session names: its port GUID (IB/CM: the interface id of the GID the
  // REQ came from, which the fixture always sends as kInitiatorGuid, never
  // the login's port id, which an initiator can forge), its source address
  // (RDMA/CM).
  const bool admitted = s.acl;
  if (!admitted) return srp::kRejChannelLimitReached;
  return kAccept;
}

class LoginFuzz : public LoginTest {
 public:
  void Run(const uint8_t* data, size_t size) {
    const uint8_t ctl = size > 0 ? data[0] : 0;
    const uint8_t fail_at = size > 1 ? data[1] : 0;
    const Bytes priv(data + (size > 2 ? 2 : size), data + size);
    Setting s{};
    s.kind = (ctl & 1) ? SRPT_CM_RDMA : SRPT_CM_IB;
    s.acl = !(ctl & 2);
    s.tpg_enabled = !(ctl & 4);
    const uint32_t port_sel = (ctl >> 3) & 3;
    s.port_num = port_sel < 2 ? 1 : port_sel;
    const bool establish = ctl & 0x20;
    const bool twice = ctl & 0x40;
    const bool inject = ctl & 0x80;

    if (!s.acl) {
      fake::disallow_initiator(KTpg(tpg_), kInitiatorGuidName);
      fake::disallow_initiator(KTpg(tpg_), kInitiatorAddr);
    }
    if (!s.tpg_enabled) ASSERT_EQ(0, srpt_core_tpg_enable(tpg_, 0));

    fake::Call call = fake::Call::Count;
    if (inject && fail_at < 0x80) {
      fake::fail_nth_allocation(fail_at);
    } else if (inject) {
      call = static_cast<fake::Call>((fail_at - 0x80) % static_cast<int>(fake::Call::Count));
      fake::fail_call(call, -SRPT_ENOMEM);
    }
    const Outcome first = LoginRaw(s.kind, priv, s.port_num, nullptr,
                                   s.kind == SRPT_CM_RDMA ? kInitiatorAddr : "");
    failed_accept_ = call == fake::Call::CmAccept && fake::injected_call_failures(call) > 0;
    failed_reject_ = call == fake::Call::CmReject && fake::injected_call_failures(call) > 0;
    const bool injected = fake::injected_failure_count() > 0 ||
                          (call != fake::Call::Count && fake::injected_call_failures(call) > 0);
    fake::disarm_allocation_failures();
    if (call != fake::Call::Count) fake::disarm_call(call);
    CheckWellFormed(first, priv);
    CheckAgainstTable(first, expected_answer(s, priv, service_guid_), injected);
    if (establish && first.ret == 0) Establish(first);

    failed_accept_ = failed_reject_ = false;
    if (twice) {
      const Outcome second = LoginRaw(s.kind, priv, s.port_num, nullptr,
                                      s.kind == SRPT_CM_RDMA ? kInitiatorAddr : "");
      CheckWellFormed(second, priv);
      if (establish && second.ret == 0) Establish(second);
    }
    if (establish && first.ret == 0 && !first.id->destroyed())
      fake::cm_event(first.id, SRPT_CM_EV_DISCONNECT);
    RunWorks();
  }

 private:
  static uint64_t Tag(const Bytes& priv, srpt_cm_kind kind) {
    const size_t off = kind == SRPT_CM_IB ? 8 : 0;
    return priv.size() >= off + 8 ? be(priv.data() + off, 8) : 0;
  }

  void CheckWellFormed(const Outcome& o, const Bytes& priv) {
    const uint64_t tag = Tag(priv, o.id->kind);
    if (o.ret == 0 && failed_accept_) {
      // The channel took the cm_id and then failed to accept: zero, and the
      // channel releases it.
      EXPECT_TRUE(o.id->rejects.empty());
      EXPECT_TRUE(o.id->accepts.empty());
      EXPECT_EQ(1, o.id->accept_attempts);
      return;
    }
    if (o.ret == 0) {
      ASSERT_TRUE(o.id->rejects.empty()) << "accepted and rejected";
      ASSERT_EQ(1u, o.id->accepts.size()) << "one SRP_LOGIN_RSP";
      const LoginRspView v = DecodeLoginRsp(o.id->accepts[0]);
      EXPECT_EQ(52u, o.id->accepts[0].size());
      EXPECT_EQ(srp::kLoginRsp, v.opcode);
      EXPECT_EQ(tag, v.tag) << "tag echoed";
      const bool ib = o.id->kind == SRPT_CM_IB;
      const uint32_t asked = static_cast<uint32_t>(be(priv.data() + (ib ? 16 : 12), 4));
      EXPECT_LE(v.max_it_iu_len, asked);
      EXPECT_GE(v.max_it_iu_len, 64u);
      EXPECT_GT(v.req_lim_delta, 0u);
      return;
    }
    EXPECT_TRUE(o.id->accepts.empty()) << "refused after an accept was sent";
    if (failed_reject_) {
      EXPECT_TRUE(o.id->rejects.empty()) << "the reject failed";
      return;
    }
    ASSERT_EQ(1u, o.id->rejects.size()) << "one CM reject";
    const Bytes& rej = o.id->rejects[0];
    if (rej.empty()) return;
    ASSERT_EQ(32u, rej.size()) << "an SRP_LOGIN_REJ";
    EXPECT_EQ(srp::kLoginRej, rej[0]);
    EXPECT_EQ(tag, be(rej.data() + 8, 8)) << "tag echoed";
    const uint32_t reason = static_cast<uint32_t>(be(rej.data() + 4, 4));
    EXPECT_TRUE(reason >= srp::kRejUnableToEstablish &&
                reason <= srp::kRejChannelLimitReached)
        << std::hex << "reason 0x" << reason;
  }

  static uint32_t Answer(const Outcome& o) {
    if (o.ret == 0) return kAccept;
    if (o.id->rejects.empty() || o.id->rejects[0].size() < 8) return kPlain;
    return static_cast<uint32_t>(be(o.id->rejects[0].data() + 4, 4));
  }

  void CheckAgainstTable(const Outcome& o, uint32_t want, bool injected) const {
    const uint32_t got = Answer(o);
    if (got == want) return;
    // A reject that could not be sent leaves nothing on the wire.
    if (failed_reject_ && got == kPlain && want != kAccept) return;
    // A failure was injected: refusing for want of resources is right too,
    // once the request passed the checks that precede any allocation; the
    // only table answer that comes after them is "accepted". A failure
    // cannot change an answer those checks decide, no ACL (0x00010006)
    // included: the ACL is asked before the channel is built.
    const bool past_checks = want == kAccept;
    if (injected && past_checks && got == srp::kRejInsufficientResources) return;
    ADD_FAILURE() << std::hex << "answer 0x" << got << ", the login table says 0x" << want
                  << " (0: accepted, ffffffff: plain CM reject)"
                  << (injected ? " (a failure was injected)" : "");
  }

  bool failed_accept_ = false;
  bool failed_reject_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  InitFuzzHarness(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return RunFuzzCase<LoginFuzz>(data, size);
}
