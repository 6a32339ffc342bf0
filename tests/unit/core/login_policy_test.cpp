// SPDX-License-Identifier: GPL-2.0
// The request-only login rules (src/core/login_policy.cpp) and the parser of
// both wire forms of SRP_LOGIN_REQ (src/core/login_request.cpp), directly.
#include <srpt/core/login_policy.h>
#include <srpt/core/login_request.h>

#include "../harness/core_test.h"
#include "../harness/login_test.h"

namespace {

using srpt::LoginRequest;
namespace srp = srpt::srp;

constexpr uint64_t kGuid = 0x0002c90300a1b2c3ull;
constexpr srpt::LoginLimits kLimits{8276, kGuid, 256, 64};

class LoginPolicyTest : public CoreTest {
 protected:
  static LoginReq Req(srpt_cm_kind kind) {
    LoginReq r;
    r.kind = kind;
    r.t_port_id = MakeId(kGuid, kGuid);
    return r;
  }
  static LoginRequest Parse(const LoginReq& r) {
    const Bytes b = EncodeLoginReq(r);
    srpt::Result<LoginRequest> p = LoginRequest::parse(r.kind, b.data(), b.size());
    EXPECT_TRUE(p.ok());
    return p.ok() ? p.value() : LoginRequest{};
  }
};

}  // namespace

TEST_F(LoginPolicyTest, BothWireFormsParseToTheSameRequest) {
  for (srpt_cm_kind kind : {SRPT_CM_IB, SRPT_CM_RDMA}) {
    LoginReq r = Req(kind);
    r.tag = 0x8877665544332211ull;
    r.it_iu_len = 0x01020304;
    r.buf_fmt = 0x0506;
    r.flags = 0x81;
    r.imm_off = 0x0708;
    r.i_port_id = MakeId(0x1111111111111111ull, 0x2222222222222222ull);
    const LoginRequest p = Parse(r);
    EXPECT_EQ(0, p.opcode);
    EXPECT_EQ(0x88, p.tag.bytes[0]);
    EXPECT_EQ(0x11, p.tag.bytes[7]);
    EXPECT_EQ(0x01020304u, p.req_it_iu_len);
    EXPECT_EQ(0x0506, p.req_buf_fmt);
    EXPECT_EQ(0x81, p.req_flags);
    EXPECT_EQ(0x0708, p.imm_data_offset);
    EXPECT_EQ(0x11, p.initiator_port_id[0]);
    EXPECT_EQ(0x22, p.initiator_port_id[15]);
    EXPECT_EQ(0x00, p.target_port_id[0]);
    EXPECT_EQ(0xc3, p.target_port_id[15]);
  }
}

TEST_F(LoginPolicyTest, ParseRefusesShortDataNullAndUnknownKinds) {
  const Bytes b(128, 0);
  EXPECT_FALSE(LoginRequest::parse(SRPT_CM_IB, b.data(), 63).ok());
  EXPECT_TRUE(LoginRequest::parse(SRPT_CM_IB, b.data(), 64).ok());
  EXPECT_FALSE(LoginRequest::parse(SRPT_CM_RDMA, b.data(), 55).ok());
  EXPECT_TRUE(LoginRequest::parse(SRPT_CM_RDMA, b.data(), 56).ok());
  EXPECT_FALSE(LoginRequest::parse(SRPT_CM_IB, nullptr, 64).ok());
  EXPECT_FALSE(LoginRequest::parse(static_cast<srpt_cm_kind>(0), b.data(), 128).ok());
  EXPECT_FALSE(LoginRequest::parse(static_cast<srpt_cm_kind>(3), b.data(), 128).ok());
}

TEST_F(LoginPolicyTest, TheGrant) {
  LoginReq r = Req(SRPT_CM_IB);
  r.it_iu_len = 4096;
  const srpt::LoginCheck c = srpt::check_login_request(Parse(r), kLimits);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(4096u, c.grant().max_it_iu_len);
  EXPECT_EQ(256u, c.grant().max_ti_iu_len);
  EXPECT_EQ(64u, c.grant().req_lim_delta);
  EXPECT_FALSE(c.grant().immediate);
  EXPECT_EQ(0, c.grant().imm_data_offset);
  EXPECT_FALSE(c.grant().multi_channel);
}

TEST_F(LoginPolicyTest, AnythingButSingleIsMulti) {
  for (uint8_t flags : {0x01, 0x02, 0x03, 0x83}) {
    LoginReq r = Req(SRPT_CM_RDMA);
    r.flags = flags;
    const srpt::LoginCheck c = srpt::check_login_request(Parse(r), kLimits);
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(c.grant().multi_channel) << int(flags);
  }
  LoginReq r = Req(SRPT_CM_RDMA);
  r.flags = 0x80;
  EXPECT_FALSE(srpt::check_login_request(Parse(r), kLimits).grant().multi_channel);
}

TEST_F(LoginPolicyTest, TheImmediateOffsetIsKeptOnlyWhenGranted) {
  LoginReq r = Req(SRPT_CM_IB);
  r.flags = srp::kImmedRequested;
  r.imm_off = 68;
  srpt::LoginCheck c = srpt::check_login_request(Parse(r), kLimits);
  EXPECT_TRUE(c.grant().immediate);
  EXPECT_EQ(68, c.grant().imm_data_offset);
  r.imm_off = 47;
  c = srpt::check_login_request(Parse(r), kLimits);
  EXPECT_FALSE(c.grant().immediate);
  EXPECT_EQ(0, c.grant().imm_data_offset);
}

TEST_F(LoginPolicyTest, RejectionsCarryACause) {
  LoginReq r = Req(SRPT_CM_IB);
  r.t_port_id = MakeId(kGuid, 0);
  const srpt::LoginCheck c = srpt::check_login_request(Parse(r), kLimits);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(srp::kRejUnableToAssociate, c.rejection().reason);
  EXPECT_STREQ("target port id does not name this target", c.rejection().cause);
}
