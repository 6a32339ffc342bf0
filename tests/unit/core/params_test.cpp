// SPDX-License-Identifier: GPL-2.0
// Module parameter checks (src/core/params.cpp), directly and through
// srpt_core_init().
#include <srpt/abi/core.h>
#include <srpt/core/params.h>

#include "../harness/core_test.h"

using srpt::Params;

namespace {

class ParamsTest : public CoreTest {
 protected:
  static srpt_params Defaults() {
    srpt_params p{};
    p.srp_max_req_size = 8276;
    p.srpt_srq_size = 4095;
    p.srpt_service_guid = 0;
    p.max_channels_per_nexus = 64;
    p.recv_ring_cache = Params::kDefaultRecvRingCache;
    return p;
  }

  // Checks `raw` and expects it accepted, with nothing logged.
  void ExpectAccepted(const srpt_params& raw) {
    srpt::Result<Params> r = Params::from_module(raw);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(static_cast<uint32_t>(raw.srp_max_req_size), r.value().max_req_size);
    EXPECT_EQ(static_cast<uint32_t>(raw.srpt_srq_size), r.value().srq_size);
    EXPECT_EQ(raw.srpt_service_guid, r.value().service_guid);
    EXPECT_EQ(static_cast<uint32_t>(raw.recv_ring_cache), r.value().recv_ring_cache);
    EXPECT_TRUE(fake::log_lines().empty()) << fake::log_dump();
  }

  // Expects `raw` refused with one error line naming `param`.
  void ExpectRefused(const srpt_params& raw, const char* param) {
    fake::reset_log();
    srpt::Result<Params> r = Params::from_module(raw);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(srpt::Error::Inval, r.error().code());
    ASSERT_EQ(1u, fake::log_lines().size()) << fake::log_dump();
    EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, param)) << fake::log_dump();
  }
};

}  // namespace

TEST_F(ParamsTest, DefaultsMatchTheInTreeDriver) {
  EXPECT_EQ(8276, Params::kDefaultMaxReqSize);
  EXPECT_EQ(4095, Params::kDefaultSrqSize);
  ExpectAccepted(Defaults());
}

TEST_F(ParamsTest, MaxReqSizeLowerBound) {
  srpt_params p = Defaults();
  p.srp_max_req_size = 995;
  ExpectRefused(p, "srp_max_req_size");
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "995"));
  p.srp_max_req_size = -1;
  ExpectRefused(p, "srp_max_req_size");
  p.srp_max_req_size = 996;
  fake::reset_log();
  ExpectAccepted(p);
}

TEST_F(ParamsTest, SrqSizeBounds) {
  srpt_params p = Defaults();
  for (int32_t bad : {3, 0, -4, 65536, 0x7fffffff}) {
    p.srpt_srq_size = bad;
    ExpectRefused(p, "srpt_srq_size");
  }
  for (int32_t good : {4, 65535}) {
    p.srpt_srq_size = good;
    fake::reset_log();
    ExpectAccepted(p);
  }
}

TEST_F(ParamsTest, RecvRingCacheBounds) {
  srpt_params p = Defaults();
  for (int32_t bad : {-1, 65, 0x7fffffff}) {
    p.recv_ring_cache = bad;
    ExpectRefused(p, "recv_ring_cache");
  }
  for (int32_t good : {0, 1, 64}) {
    p.recv_ring_cache = good;
    fake::reset_log();
    ExpectAccepted(p);
  }
}

TEST_F(ParamsTest, ServiceGuidIsTakenAsGiven) {
  srpt_params p = Defaults();
  p.srpt_service_guid = 0x0002c90300a1b2c3ull;
  ExpectAccepted(p);
}

TEST_F(ParamsTest, InitRefusesBadParametersAndKeepsNothing) {
  srpt_params p = Defaults();
  p.srpt_srq_size = 65536;
  EXPECT_EQ(-SRPT_EINVAL, srpt_core_init(&p));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "srpt_srq_size"));
  EXPECT_EQ(0u, fake::live_allocations());
  EXPECT_EQ(0u, fake::live_mutexes());
  EXPECT_EQ(42u, srpt_core_service_guid(42)) << "the core must not be up";

  p = Defaults();
  p.srp_max_req_size = 995;
  EXPECT_EQ(-SRPT_EINVAL, srpt_core_init(&p));
  EXPECT_TRUE(fake::logged(SRPT_LOG_ERR, "srp_max_req_size"));

  p = Defaults();
  ASSERT_EQ(0, srpt_core_init(&p));  // and a good set still works
  srpt_core_exit();
}

TEST_F(ParamsTest, MaxChannelsPerNexusBounds) {
  srpt_params p = Defaults();
  for (int32_t bad : {0, -1, 1025, 0x7fffffff}) {
    p.max_channels_per_nexus = bad;
    ExpectRefused(p, "max_channels_per_nexus");
  }
  for (int32_t good : {1, 64, 1024}) {
    p.max_channels_per_nexus = good;
    fake::reset_log();
    srpt::Result<Params> r = Params::from_module(p);
    ASSERT_TRUE(r.ok()) << good;
    EXPECT_EQ(static_cast<uint32_t>(good), r.value().max_nexus_channels);
  }
}
