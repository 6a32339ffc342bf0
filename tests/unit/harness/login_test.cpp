// SPDX-License-Identifier: GPL-2.0
#include "login_test.h"

#include <algorithm>
#include <cstring>

namespace {

void put_be(Bytes& b, size_t off, uint64_t v, int n) {
  for (int i = 0; i < n; i++)
    b[off + i] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
}

uint64_t get_be(const Bytes& b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = (v << 8) | b[off + i];
  return v;
}

void put_id(Bytes& b, size_t off, const Id16& id) {
  for (int i = 0; i < 16; i++) b[off + i] = id[i];
}

}  // namespace

Id16 MakeId(uint64_t hi, uint64_t lo) {
  Id16 id{};
  for (int i = 0; i < 8; i++) {
    id[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    id[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  return id;
}

Bytes EncodeLoginReq(const LoginReq& r) {
  const uint8_t fill = r.reserved_ff ? 0xff : 0x00;
  if (r.kind == SRPT_CM_IB) {
    // struct srp_login_req (64 bytes) in 92 bytes of REQ private data.
    Bytes b(92, fill);
    b[0] = r.opcode;
    put_be(b, 8, r.tag, 8);
    put_be(b, 16, r.it_iu_len, 4);
    put_be(b, 24, r.buf_fmt, 2);
    b[26] = r.flags;
    put_be(b, 28, r.imm_off, 2);
    put_id(b, 32, r.i_port_id);
    put_id(b, 48, r.t_port_id);
    b.resize(r.priv_len ? r.priv_len : 92, fill);
    return b;
  }
  // struct srp_login_req_rdma (56 bytes).
  Bytes b(56, fill);
  put_be(b, 0, r.tag, 8);
  put_be(b, 8, r.buf_fmt, 2);
  b[10] = r.flags;
  b[11] = r.opcode;
  put_be(b, 12, r.it_iu_len, 4);
  put_id(b, 16, r.i_port_id);
  put_id(b, 32, r.t_port_id);
  put_be(b, 48, r.imm_off, 2);
  b.resize(r.priv_len ? r.priv_len : 56, fill);
  return b;
}

LoginRspView DecodeLoginRsp(const Bytes& b) {
  LoginRspView v{};
  if (b.size() < 52) {
    ADD_FAILURE() << "SRP_LOGIN_RSP of " << b.size() << " bytes";
    return v;
  }
  v.opcode = b[0];
  v.req_lim_delta = static_cast<uint32_t>(get_be(b, 4, 4));
  v.tag = get_be(b, 8, 8);
  v.max_it_iu_len = static_cast<uint32_t>(get_be(b, 16, 4));
  v.max_ti_iu_len = static_cast<uint32_t>(get_be(b, 20, 4));
  v.buf_fmt = static_cast<uint16_t>(get_be(b, 24, 2));
  v.rsp_flags = b[26];
  return v;
}

RspView DecodeRsp(const Bytes& b) {
  RspView v{};
  if (b.size() < 36) {
    ADD_FAILURE() << "SRP_RSP of " << b.size() << " bytes";
    return v;
  }
  v.opcode = b[0];
  v.req_lim_delta = static_cast<uint32_t>(get_be(b, 4, 4));
  v.tag = get_be(b, 8, 8);
  v.flags = b[18];
  v.status = b[19];
  v.data_out_res = static_cast<uint32_t>(get_be(b, 20, 4));
  v.data_in_res = static_cast<uint32_t>(get_be(b, 24, 4));
  v.sense_len = static_cast<uint32_t>(get_be(b, 28, 4));
  v.resp_len = static_cast<uint32_t>(get_be(b, 32, 4));
  size_t off = 36;
  if (v.flags & srpt::srp::kRspFlagRspValid) {
    v.resp_data.assign(b.begin() + off, b.begin() + off + v.resp_len);
    off += v.resp_len;
  }
  if (v.flags & srpt::srp::kRspFlagSnsValid)
    v.sense.assign(b.begin() + off, b.begin() + off + v.sense_len);
  EXPECT_EQ(off + v.sense.size(), b.size()) << "SRP_RSP length";
  return v;
}

Bytes EncodeSrpCmd(const SrpCmd& c) {
  Bytes b(48, 0);
  b[0] = srpt::srp::kCmd;
  b[5] = c.buf_fmt;
  b[6] = c.out_cnt;
  b[7] = c.in_cnt;
  put_be(b, 8, c.tag, 8);
  for (int i = 0; i < 8; i++) b[20 + i] = c.lun[i];
  b[29] = c.task_attr;
  b[31] = c.add_cdb_len;
  for (int i = 0; i < 16; i++) b[32 + i] = c.cdb[i];
  Append(b, c.add_cdb);
  Append(b, c.tail);
  return b;
}

Bytes DirectDesc(uint64_t va, uint32_t rkey, uint32_t len) {
  Bytes b(16, 0);
  put_be(b, 0, va, 8);
  put_be(b, 8, rkey, 4);
  put_be(b, 12, len, 4);
  return b;
}

Bytes IndirectHeader(uint64_t table_va, uint32_t table_rkey, uint32_t table_len,
                     uint32_t total_len) {
  Bytes b = DirectDesc(table_va, table_rkey, table_len);
  b.resize(20, 0);
  put_be(b, 16, total_len, 4);
  return b;
}

void Append(Bytes& to, const Bytes& more) { to.insert(to.end(), more.begin(), more.end()); }

Bytes SimpleIu(uint8_t opcode, uint64_t tag, size_t len) {
  Bytes b(len, 0);
  b[0] = opcode;
  if (len >= 16) put_be(b, 8, tag, 8);
  return b;
}

// --- the fixture -------------------------------------------------------------

void LoginTest::SetUp() {
  TargetTest::SetUp();
  TuneDevice(dev_);
  ASSERT_EQ(0, AddDevice(dev_, &cdev_));
  service_guid_ = srpt_core_service_guid(0);
  ASSERT_EQ(kNodeGuid, service_guid_);
  ServeTpg(kPort1Guid, &tport_, &tpg_);
}

void LoginTest::ServeTpg(const char* port_name, srpt_core_tport** tport,
                         srpt_core_tpg** tpg) {
  ASSERT_EQ(0, MakeTport(port_name, tport));
  ASSERT_EQ(0, MakeTpg(*tport, "1", tpg));
  ASSERT_EQ(0, srpt_core_tpg_enable(*tpg, 1));
  fake::allow_initiator(KTpg(*tpg), kInitiatorGuidName);
  fake::allow_initiator(KTpg(*tpg), kInitiatorAddr);
}

void LoginTest::TearDown() {
  fake::on_session_create(nullptr);
  fake::run_threads();
  RunWorks();
  TargetTest::TearDown();
  // THE OWNERSHIP RULE, for every login.
  for (const fake::CmId* id : logins_) {
    const std::vector<std::string> problems = OwnershipProblems(id);
    for (const std::string& p : problems) ADD_FAILURE() << p;
  }
}

std::vector<std::string> LoginTest::OwnershipProblems(const fake::CmId* id) {
  std::vector<std::string> out;
  const std::string who = "cm_id #" + std::to_string(id->serial) +
                          " (login returned " + std::to_string(id->login_ret) + "): ";
  if (id->destroys() != 1)
    out.push_back(who + "destroyed " + std::to_string(id->destroys()) +
                  " times, not exactly once");
  if (id->login_ret != 0 && id->channel_destroys != 0)
    out.push_back(who + "destroyed by the channel after a non-zero return");
  if (id->login_ret != 0 && id->caller_destroys != 1)
    out.push_back(who + "not destroyed by the CM core after a non-zero return");
  if (id->login_ret == 0 && id->caller_destroys != 0)
    out.push_back(who + "destroyed by the CM core after a zero return");
  if (id->login_ret == 0 && id->channel_destroys != 1)
    out.push_back(who + "not destroyed by its channel after a zero return");
  return out;
}

LoginReq LoginTest::GoodReq(srpt_cm_kind kind) const {
  LoginReq r;
  r.kind = kind;
  r.t_port_id = MakeId(service_guid_, service_guid_);
  return r;
}

LoginTest::Outcome LoginTest::Login(const LoginReq& r) {
  const Bytes priv = EncodeLoginReq(r);
  return LoginRaw(r.kind, priv, r.port_num, r.kdev,
                  r.kind == SRPT_CM_RDMA ? r.src_addr.c_str() : "", &r.initiator_gid);
}

LoginTest::Outcome LoginTest::LoginRaw(srpt_cm_kind kind, const Bytes& priv,
                                       uint32_t port_num, srpt_k_device* kdev,
                                       const char* src, const Id16* gid) {
  fake::CmId* id = fake::new_cm_id(kind);
  logins_.push_back(id);
  srpt_login_event ev{};
  ev.kdev = kdev ? kdev : dev_.kdev();
  ev.port_num = port_num;
  ev.pkey = 0xffff;
  ev.priv = priv.data();
  ev.priv_len = priv.size();
  ev.src_addr = src;
  if (kind == SRPT_CM_IB) {
    const Id16 standard = MakeId(0xfe80000000000000ull, kInitiatorGuid);
    const Id16& g = gid ? *gid : standard;
    std::copy(g.begin(), g.end(), ev.initiator_gid);
  }
  const int ret = fake::cm_login(id, ev);
  return Outcome{ret, id};
}

void LoginTest::ExpectRejected(const Outcome& o, uint32_t reason, uint64_t tag) {
  EXPECT_NE(0, o.ret) << "srpt_core_login() must return non-zero on a reject";
  ASSERT_EQ(1u, o.id->rejects.size()) << "one CM reject";
  const Bytes& rej = o.id->rejects[0];
  ASSERT_EQ(32u, rej.size()) << "an SRP_LOGIN_REJ";
  EXPECT_EQ(0xc2, rej[0]);
  EXPECT_EQ(reason, static_cast<uint32_t>(get_be(rej, 4, 4)))
      << std::hex << "reason 0x" << get_be(rej, 4, 4) << ", want 0x" << reason;
  EXPECT_EQ(tag, get_be(rej, 8, 8)) << "tag echoed";
  EXPECT_EQ(0x0006u, get_be(rej, 24, 2)) << "buf_fmt";
  EXPECT_TRUE(o.id->accepts.empty());
  EXPECT_EQ(0, o.id->accept_attempts);
  EXPECT_EQ(1, o.id->caller_destroys) << "the CM core destroys it";
  EXPECT_EQ(0, o.id->channel_destroys);
  EXPECT_EQ(nullptr, fake::qp_of(o.id)) << "the channel's QP is gone";
  EXPECT_EQ(nullptr, o.id->context);
}

void LoginTest::ExpectPlainReject(const Outcome& o) {
  EXPECT_NE(0, o.ret);
  ASSERT_EQ(1u, o.id->rejects.size());
  EXPECT_TRUE(o.id->rejects[0].empty()) << "no SRP_LOGIN_REJ in a plain reject";
  EXPECT_EQ(1, o.id->caller_destroys);
  EXPECT_EQ(0, o.id->channel_destroys);
  EXPECT_EQ(0, o.id->accept_attempts);
  EXPECT_EQ(nullptr, fake::qp_of(o.id));
}

void LoginTest::ExpectAccepted(const Outcome& o) {
  EXPECT_EQ(0, o.ret) << fake::log_dump();
  EXPECT_TRUE(o.id->rejects.empty());
  ASSERT_EQ(1u, o.id->accepts.size()) << fake::log_dump();
  EXPECT_EQ(52u, o.id->accepts[0].size());
  EXPECT_EQ(0, o.id->destroys()) << "the channel owns it, alive";
  EXPECT_NE(nullptr, o.id->context);
  EXPECT_NE(nullptr, fake::qp_of(o.id));
}

LoginRspView LoginTest::Rsp(const Outcome& o) {
  if (o.id->accepts.empty()) {
    ADD_FAILURE() << "no SRP_LOGIN_RSP";
    return LoginRspView{};
  }
  return DecodeLoginRsp(o.id->accepts.back());
}

void LoginTest::ExpectReleasedByChannel(const Outcome& o) {
  EXPECT_EQ(1, o.id->channel_destroys);
  EXPECT_EQ(0, o.id->caller_destroys);
  EXPECT_EQ(nullptr, fake::qp_of(o.id));
}

srpt_k_qp* LoginTest::Qp(const Outcome& o) const { return fake::qp_of(o.id); }

void LoginTest::Establish(const Outcome& o) {
  fake::cm_event(o.id, SRPT_CM_EV_ESTABLISHED);
}

LoginTest::Outcome LoginTest::LiveChannel(srpt_cm_kind kind) {
  Outcome o = Login(GoodReq(kind));
  ExpectAccepted(o);
  Establish(o);
  return o;
}

uint32_t LoginTest::Receive(const Outcome& o, const Bytes& iu) {
  return fake::deliver_recv(Qp(o), iu);
}

const std::deque<fake::PostedSend>& LoginTest::Posted(const Outcome& o) const {
  return Qp(o)->sends;
}

void LoginTest::Answer(srpt_k_cmd* cmd, uint8_t status) {
  srpt_cmd_result r = cmd->result;
  r.status = status;
  fake::set_cmd_result(cmd, r);
  EXPECT_EQ(0, srpt_core_cmd_queue_status(fake::cmd_ctx(cmd)));
}

void LoginTest::Logout(const Outcome& o) {
  Receive(o, SimpleIu(srpt::srp::kILogout, 0x10));
  RunWorks();
  ExpectReleasedByChannel(o);
}

unsigned long long LoginTest::Objects(const std::string& name) {
  srpt_k_seq seq;
  srpt_core_show_objects(&seq);
  const std::string key = "\n" + name + " ";
  const size_t at = seq.text.find(key);
  EXPECT_NE(std::string::npos, at) << seq.text;
  return at == std::string::npos ? ~0ull : std::stoull(seq.text.substr(at + key.size()));
}

const std::vector<fake::PostedSend>& LoginTest::Sent(const Outcome& o) const {
  return Qp(o)->sent;
}
