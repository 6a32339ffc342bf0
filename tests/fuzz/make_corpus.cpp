// SPDX-License-Identifier: GPL-2.0
// Writes the seed corpus of the fuzz targets: make-corpus DIR writes
// DIR/login/* and DIR/srp_iu/*, one input per file, named after what it is.
// The requests and IUs are built with the unit tests' encoders
// (tests/unit/harness/login_test.h), so a seed means what the unit tests
// mean by the same words. `make -C tests/fuzz corpus` regenerates the
// committed corpus (tests/fuzz/corpus/).
#include <cstdio>
#include <string>

#include "../unit/harness/login_test.h"
#include "../unit/harness/target_test.h"
#include "../unit/fake/fault.h"

namespace {

namespace srp = srpt::srp;

std::string g_dir;
int g_written = 0;

void Write(const std::string& target, const std::string& name, const Bytes& b) {
  const std::string path = g_dir + "/" + target + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(b.data(), 1, b.size(), f) != b.size()) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::fclose(f);
  g_written++;
}

// --- login: [control][allocation to fail][private data] ---------------------

LoginReq Good(srpt_cm_kind kind) {
  LoginReq r;
  r.kind = kind;
  r.t_port_id = MakeId(kNodeGuid, kNodeGuid);
  return r;
}

void Login(const std::string& name, uint8_t ctl, const LoginReq& r, uint8_t fail_at = 0) {
  Bytes b{static_cast<uint8_t>(ctl | (r.kind == SRPT_CM_RDMA ? 1 : 0)), fail_at};
  Append(b, EncodeLoginReq(r));
  Write("login", std::string(r.kind == SRPT_CM_RDMA ? "rdma-" : "ib-") + name, b);
}

void LoginSeeds() {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = Good(kind);
    Login("valid", 0x00, r);
    Login("valid-established-then-dreq", 0x20, r);
    Login("valid-twice-single", 0x60, r);
    r.flags = srp::kMultiChanMulti;
    Login("valid-twice-multi", 0x60, r);
    r = Good(kind);
    r.flags = srp::kImmedRequested;
    r.imm_off = 68;
    Login("valid-immediate-data", 0x20, r);
    r.imm_off = 20;
    Login("immediate-offset-too-low", 0x00, r);
    r = Good(kind);
    r.reserved_ff = true;
    Login("valid-reserved-ones", 0x00, r);
    r = Good(kind);
    r.priv_len = kind == SRPT_CM_IB ? 63 : 55;
    Login("too-short-plain-reject", 0x00, r);
    Login("unknown-port-plain-reject", 0x18, Good(kind));
    r = Good(kind);
    r.opcode = srp::kCmd;
    Login("rej-10000-opcode", 0x00, r);
    r = Good(kind);
    r.it_iu_len = 63;
    Login("rej-10002-it-iu-len-small", 0x00, r);
    r.it_iu_len = 8277;
    Login("rej-10002-it-iu-len-large", 0x00, r);
    r.it_iu_len = 64;
    Login("valid-it-iu-len-64", 0x00, r);
    r = Good(kind);
    r.buf_fmt = 0;
    Login("rej-10004-buf-fmt", 0x00, r);
    r = Good(kind);
    r.t_port_id = MakeId(kNodeGuid, kNodeGuid + 1);
    Login("rej-10003-target-port-id", 0x00, r);
    Login("rej-10001-tpg-disabled", 0x04, Good(kind));
    Login("rej-10001-port-without-tpg", 0x10, Good(kind));
    Login("rej-10006-no-acl", 0x02, Good(kind));
    r = Good(kind);
    r.i_port_id = MakeId(kInitiatorIdExt, kInitiatorGuid + 1);
    Login("unknown-initiator", 0x00, r);
    for (uint8_t n : {0, 1, 2, 5, 10, 20, 40})
      Login("alloc-fail-" + std::to_string(n), 0x80, Good(kind), n);
    for (int c = 0; c < static_cast<int>(fake::Call::Count); c++)
      Login(std::string("call-fail-") + fake::call_name(static_cast<fake::Call>(c)), 0x80,
            Good(kind), static_cast<uint8_t>(0x80 + c));
  }
}

// --- srp_iu: [control] then records [op][len hi][len lo][bytes] -----------------

struct IuSeq {
  uint8_t ctl;
  Bytes bytes;
  explicit IuSeq(uint8_t c) : ctl(c) {}
  IuSeq& Rec(uint8_t op, const Bytes& iu) {
    bytes.push_back(op);
    bytes.push_back(static_cast<uint8_t>(iu.size() >> 8));
    bytes.push_back(static_cast<uint8_t>(iu.size()));
    Append(bytes, iu);
    return *this;
  }
  Bytes Done() const {
    Bytes b{ctl};
    Append(b, bytes);
    return b;
  }
};

SrpCmd Direct(bool out, uint32_t len) {
  SrpCmd c;
  c.buf_fmt = out ? srp::kDirect << 4 : srp::kDirect;
  (out ? c.out_cnt : c.in_cnt) = 1;
  c.cdb = {static_cast<uint8_t>(out ? 0x2a : 0x28)};
  c.tail = DirectDesc(0x10000, 0x1234, len);
  return c;
}

SrpCmd Indirect(bool out, uint32_t n, uint32_t seg) {
  SrpCmd c;
  c.buf_fmt = out ? srp::kIndirect << 4 : srp::kIndirect;
  (out ? c.out_cnt : c.in_cnt) = static_cast<uint8_t>(n);
  c.cdb = {static_cast<uint8_t>(out ? 0x2a : 0x28)};
  c.tail = IndirectHeader(0x9000, 0x77, n * 16, n * seg);
  for (uint32_t i = 0; i < n; i++) Append(c.tail, DirectDesc(0x1000 * (i + 1), 100 + i, seg));
  return c;
}

SrpCmd Immediate(uint32_t len) {
  SrpCmd c;
  c.buf_fmt = srp::kImmediate << 4;
  c.out_cnt = 1;
  c.cdb = {0x2a};
  c.tail = {static_cast<uint8_t>(len >> 24), static_cast<uint8_t>(len >> 16),
            static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(len)};
  c.tail.resize(68 - 48, 0);
  for (uint32_t i = 0; i < len; i++) c.tail.push_back(static_cast<uint8_t>(i));
  return c;
}

void IuSeeds() {
  for (uint8_t kind : {0, 1}) {
    const std::string k = kind ? "rdma-" : "ib-";
    auto w = [&](const std::string& name, const IuSeq& s) { Write("srp_iu", k + name, s.Done()); };
    w("cmd-no-data", IuSeq(kind).Rec(0, EncodeSrpCmd(SrpCmd{})));
    w("cmd-direct-in", IuSeq(kind).Rec(0, EncodeSrpCmd(Direct(false, 4096))));
    w("cmd-direct-out", IuSeq(kind).Rec(0, EncodeSrpCmd(Direct(true, 4096))));
    w("cmd-indirect-in", IuSeq(kind).Rec(0, EncodeSrpCmd(Indirect(false, 4, 512))));
    w("cmd-indirect-out", IuSeq(kind).Rec(0, EncodeSrpCmd(Indirect(true, 3, 4096))));
    w("cmd-immediate", IuSeq(kind | 2).Rec(0, EncodeSrpCmd(Immediate(8))));
    w("cmd-immediate-not-negotiated", IuSeq(kind).Rec(0, EncodeSrpCmd(Immediate(8))));
    SrpCmd add;
    add.add_cdb_len = 16;
    add.add_cdb = Bytes(16, 0xcd);
    w("cmd-additional-cdb", IuSeq(kind).Rec(0, EncodeSrpCmd(add)));
    Bytes truncated = EncodeSrpCmd(SrpCmd{});
    truncated.resize(40);
    w("cmd-truncated", IuSeq(kind).Rec(0, truncated));
    w("cmd-check-condition", IuSeq(kind | 8).Rec(0, EncodeSrpCmd(Direct(false, 512))));
    w("cmd-send-fails", IuSeq(kind).Rec(1, EncodeSrpCmd(Direct(false, 512))));
    w("cmd-before-established", IuSeq(kind | 4).Rec(0, EncodeSrpCmd(Direct(true, 512))));
    IuSeq inflight(kind);
    for (int i = 0; i < 4; i++) {
      SrpCmd c = i % 2 ? Direct(true, 1024) : Direct(false, 1024);
      c.tag = static_cast<uint64_t>(i + 1);
      inflight.Rec(2, EncodeSrpCmd(c));
    }
    w("cmds-in-flight", inflight);
    w("cmds-in-flight-then-logout", IuSeq(inflight).Rec(2, SimpleIu(srp::kILogout, 9)));
    w("cmds-in-flight-then-dreq", IuSeq(inflight).Rec(4, {}));
    // An 8 MiB data-out and an 8 MiB data-in need more than the send queue
    // holds beside each other: the data-in waits for room, and the 4 KiB
    // data-out behind it waits in write_pending, which the target core
    // must leave alone until the command is executed.
    IuSeq waits(kind);
    waits.Rec(2, EncodeSrpCmd(Direct(true, 8u << 20)));
    waits.Rec(2, EncodeSrpCmd(Direct(false, 8u << 20)));
    waits.Rec(0, EncodeSrpCmd(Direct(true, 4096)));
    w("cmds-wait-for-send-queue-room", waits);
    w("tsk-mgmt", IuSeq(kind).Rec(0, SimpleIu(srp::kTskMgmt, 0x55, 48)));
    w("i-logout", IuSeq(kind).Rec(0, SimpleIu(srp::kILogout, 9)));
    w("cred-rsp", IuSeq(kind).Rec(0, SimpleIu(srp::kCredRsp, 3)));
    w("aer-rsp", IuSeq(kind).Rec(0, SimpleIu(srp::kAerRsp, 3)));
    w("unknown-opcode", IuSeq(kind).Rec(0, SimpleIu(0x7f, 4, 64)));
    w("empty-iu", IuSeq(kind).Rec(0, {}));
    w("recv-error", IuSeq(kind).Rec(3, {}));
    w("dreq", IuSeq(kind).Rec(4, {}));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  g_dir = argv[1];
  LoginSeeds();
  IuSeeds();
  std::printf("make-corpus: %d seeds written under %s\n", g_written, g_dir.c_str());
  return 0;
}
