// SPDX-License-Identifier: GPL-2.0
// The device's cache of receive rings (recv_ring_cache.h): a login after a
// logout takes the released channel's ring instead of making one; only a
// ring of the same geometry is reused; the cache is bounded by
// recv_ring_cache and gives every ring back kIdleMs after it was last used,
// at device removal, and at once when it is off; a login with no ring to
// take still answers a ring that cannot be made with 0x00010001.
#include <cstdint>
#include <string>

#include <srpt/abi/fabric.h>
#include <srpt/core/recv_ring_cache.h>

#include "../harness/login_test.h"

namespace {

using srpt::RecvRingCache;

constexpr uint64_t kMs = 1000000u;

class RecvRingCacheTest : public LoginTest {
 protected:
  // The receive ring a channel's QP has its buffers posted from.
  static srpt_k_ring* RecvRing(srpt_k_qp* qp) {
    return qp->recvs.empty() ? nullptr : qp->recvs.front().ring;
  }
  static unsigned long long Cached() { return Objects("recv_rings_cached"); }
  static size_t RingCreates() { return fake::call_count(fake::Call::RingCreate); }
};

TEST_F(RecvRingCacheTest, ALoginAfterALogoutTakesTheReleasedChannelsRing) {
  const size_t rings = fake::live_rings();
  const Outcome first = LiveChannel(SRPT_CM_RDMA);
  srpt_k_ring* ring = RecvRing(Qp(first));
  ASSERT_NE(nullptr, ring);
  Logout(first);
  EXPECT_EQ(rings + 1, fake::live_rings()) << "the receive ring stays, cached";
  EXPECT_EQ(1u, Cached());

  const size_t creates = RingCreates();
  const Outcome second = LiveChannel(SRPT_CM_IB);
  EXPECT_EQ(creates + 1, RingCreates()) << "only the send ring is made";
  EXPECT_EQ(ring, RecvRing(Qp(second)));
  EXPECT_EQ(0u, Cached());
  EXPECT_EQ(1u, Objects("recv_rings_reused"));
  // The reused ring serves: a command is received and submitted.
  const size_t submitted = fake::submissions().size();
  Receive(second, EncodeSrpCmd(SrpCmd{}));
  EXPECT_EQ(submitted + 1, fake::submissions().size());
}

TEST_F(RecvRingCacheTest, ARingOfAnotherGeometryIsNotTaken) {
  const Outcome first = LiveChannel(SRPT_CM_RDMA);
  srpt_k_ring* ring = RecvRing(Qp(first));
  Logout(first);

  LoginReq smaller = GoodReq(SRPT_CM_RDMA);
  smaller.it_iu_len = 4096;
  const size_t creates = RingCreates();
  const Outcome second = Login(smaller);
  ExpectAccepted(second);
  EXPECT_EQ(creates + 2, RingCreates()) << "a receive ring of 4096-byte buffers is made";
  EXPECT_NE(ring, RecvRing(Qp(second)));
  EXPECT_EQ(1u, Cached()) << "the other one waits for a login of its geometry";

  ASSERT_EQ(0, srpt_core_tpg_attr_store(tpg_, SRPT_ATTR_SQ_SIZE, "16", 2));
  const size_t creates16 = RingCreates();
  LoginReq fewer = GoodReq(SRPT_CM_IB);
  fewer.flags = srpt::srp::kMultiChanMulti;
  const Outcome third = Login(fewer);
  ExpectAccepted(third);
  EXPECT_EQ(creates16 + 2, RingCreates()) << "16 buffers, not 64";
  EXPECT_EQ(1u, Cached());
}

// The immediate-data offset is part of a ring's geometry: the shim keeps it
// sector-aligned in each buffer, and write data handed to the target core
// in place must lie there. A login without immediate data leaves a ring
// aligned for none; the next login, with it, gets a ring of its own (the
// fake checks where the data of its first command lies).
TEST_F(RecvRingCacheTest, ARingForAnotherImmediateDataOffsetIsNotTaken) {
  const Outcome plain = LiveChannel(SRPT_CM_RDMA);
  srpt_k_ring* ring = RecvRing(Qp(plain));
  ASSERT_NE(nullptr, ring);
  EXPECT_EQ(0u, ring->align_at);
  Logout(plain);
  ASSERT_EQ(1u, Cached());

  LoginReq imm = GoodReq(SRPT_CM_RDMA);
  imm.flags = srpt::srp::kMultiChanSingle | srpt::srp::kImmedRequested;
  imm.imm_off = 68;
  const Outcome second = Login(imm);
  ExpectAccepted(second);
  Establish(second);
  ASSERT_NE(nullptr, RecvRing(Qp(second)));
  EXPECT_NE(ring, RecvRing(Qp(second)));
  EXPECT_EQ(68u, RecvRing(Qp(second))->align_at);
  EXPECT_EQ(1u, Cached()) << "the unaligned ring waits for a login of its geometry";
  // A write with immediate data lands where the ring keeps it aligned.
  SrpCmd w;
  w.buf_fmt = srpt::srp::kImmediate << 4;
  w.out_cnt = 1;
  w.tail = {0, 0, 2, 0};  // struct srp_imm_buf: 512 bytes
  w.tail.resize(68 - 48, 0);
  w.tail.resize(w.tail.size() + 512, 0xab);
  const size_t submitted = fake::submissions().size();
  Receive(second, EncodeSrpCmd(w));
  ASSERT_EQ(submitted + 1, fake::submissions().size());
  EXPECT_TRUE(fake::submissions().back().has_imm);
}

TEST_F(RecvRingCacheTest, ARingUnusedForKIdleMsIsFreed) {
  const size_t rings = fake::live_rings();
  Logout(LiveChannel(SRPT_CM_RDMA));
  ASSERT_EQ(1u, Cached());
  fake::advance_ns(RecvRingCache::kIdleMs * kMs - 1);
  RunWorks();
  EXPECT_EQ(1u, Cached()) << "not yet";
  fake::advance_ns(1);
  RunWorks();
  EXPECT_EQ(0u, Cached());
  EXPECT_EQ(rings, fake::live_rings());
  EXPECT_EQ(0u, fake::later_works()) << "nothing cached: the trim work is not armed again";
}

TEST_F(RecvRingCacheTest, EachRingGetsItsOwnIdleTime) {
  // Two channels, released `gap` apart: the trim work frees the first ring
  // on time and comes back for the second.
  const uint64_t idle = RecvRingCache::kIdleMs * kMs;
  const uint64_t gap = idle * 3 / 4;
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srpt::srp::kMultiChanMulti;
  const Outcome a = Login(r);
  ExpectAccepted(a);
  Establish(a);
  r.tag++;
  const Outcome b = Login(r);
  ExpectAccepted(b);
  Establish(b);
  Logout(a);
  fake::advance_ns(gap);
  Logout(b);
  ASSERT_EQ(2u, Cached());
  fake::advance_ns(idle - gap);
  RunWorks();
  EXPECT_EQ(1u, Cached()) << "the first ring's idle time is up";
  // The command-context cache's trim work likewise (two in all).
  EXPECT_EQ(2u, fake::later_works()) << "armed again for the second";
  fake::advance_ns(gap - kMs);
  RunWorks();
  EXPECT_EQ(1u, Cached());
  fake::advance_ns(kMs);
  RunWorks();
  EXPECT_EQ(0u, Cached());
}

TEST_F(RecvRingCacheTest, DeviceRemovalFreesTheCachedRingsAndStopsTheTrimWork) {
  Logout(LiveChannel(SRPT_CM_RDMA));
  ASSERT_EQ(1u, Cached());
  ASSERT_EQ(2u, fake::later_works()) << "the ring and command-context caches' trims";
  RemoveDevice(cdev_);
  cdev_ = nullptr;
  EXPECT_EQ(0u, fake::live_rings());
  EXPECT_EQ(0u, fake::later_works()) << "cancelled, not left to run on a freed cache";
  EXPECT_EQ(0u, fake::live_works());
}

TEST_F(RecvRingCacheTest, AFailedLoginGivesItsRingBackForTheNext) {
  fake::fail_call(fake::Call::QpCreate, -SRPT_ENOMEM);
  const Outcome refused = Login(GoodReq(SRPT_CM_RDMA));
  ExpectRejected(refused, srpt::srp::kRejInsufficientResources);
  EXPECT_EQ(1u, Cached()) << "the ring made before the QP failed";
  const size_t creates = RingCreates();
  ExpectAccepted(Login(GoodReq(SRPT_CM_RDMA)));
  EXPECT_EQ(creates + 1, RingCreates());
}

TEST_F(RecvRingCacheTest, WithNoRingToTakeARingThatCannotBeMadeIs00010001) {
  const Outcome first = LiveChannel(SRPT_CM_RDMA);
  // Another geometry cached; this login must make its own, and cannot.
  LoginReq smaller = GoodReq(SRPT_CM_RDMA);
  smaller.it_iu_len = 4096;
  Logout(first);
  fake::fail_call(fake::Call::RingCreate, -SRPT_ENOMEM);
  const Outcome refused = Login(smaller);
  ExpectRejected(refused, srpt::srp::kRejInsufficientResources);
  EXPECT_EQ(1u, Cached()) << "the cached ring of the other geometry is left alone";
}

class BoundedRecvRingCacheTest : public RecvRingCacheTest {
 protected:
  srpt_params SetUpParams() const override { return ParamsWithRingCache(2); }
};

TEST_F(BoundedRecvRingCacheTest, AFullCacheFreesWhatIsGivenBack) {
  const size_t rings = fake::live_rings();
  LoginReq r = GoodReq(SRPT_CM_RDMA);
  r.flags = srpt::srp::kMultiChanMulti;
  std::vector<Outcome> live;
  for (int i = 0; i < 3; i++) {
    r.tag = 100 + i;
    live.push_back(Login(r));
    ExpectAccepted(live.back());
    Establish(live.back());
  }
  EXPECT_EQ(rings + 6, fake::live_rings());
  for (const Outcome& o : live) Logout(o);
  EXPECT_EQ(2u, Cached());
  EXPECT_EQ(rings + 2, fake::live_rings()) << "the third receive ring was freed";
}

class NoRecvRingCacheTest : public RecvRingCacheTest {
 protected:
  srpt_params SetUpParams() const override { return ParamsWithRingCache(0); }
};

TEST_F(NoRecvRingCacheTest, ZeroKeepsNoRing) {
  const size_t rings = fake::live_rings();
  Logout(LiveChannel(SRPT_CM_RDMA));
  EXPECT_EQ(0u, Cached());
  EXPECT_EQ(rings, fake::live_rings());
  EXPECT_EQ(0u, fake::later_works());
  const size_t creates = RingCreates();
  ExpectAccepted(Login(GoodReq(SRPT_CM_RDMA)));
  EXPECT_EQ(creates + 2, RingCreates());
}

}  // namespace
