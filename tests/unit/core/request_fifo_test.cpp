// SPDX-License-Identifier: GPL-2.0
// RequestFifo (include/srpt/core/request_fifo.h) on its own: arrival
// order, the buffer bound, and the credit rules.
#include <srpt/core/request_fifo.h>

#include <utility>

#include "../harness/core_test.h"

namespace {

using srpt::RequestFifo;

class RequestFifoTest : public CoreTest {
 protected:
  static RequestFifo Make(uint32_t credits) {
    srpt::Result<RequestFifo> made = RequestFifo::create(credits);
    EXPECT_TRUE(made.ok());
    return std::move(made).value();
  }
};

TEST_F(RequestFifoTest, IusComeOutInArrivalOrderAcrossTheRingsEnd) {
  RequestFifo f = Make(3);
  for (uint32_t round = 0; round < 4; round++) {
    ASSERT_TRUE(f.admit({round, 10 + round}));
    ASSERT_TRUE(f.admit({round + 100, 20}));
    EXPECT_EQ(2u, f.waiting());
    EXPECT_EQ(round, f.front().index);
    RequestFifo::Iu a = f.pop();
    EXPECT_EQ(round, a.index);
    EXPECT_EQ(10 + round, a.len);
    EXPECT_EQ(round + 100, f.pop().index);
    EXPECT_EQ(0u, f.waiting());
    f.release_buffer();
    f.release_buffer();
  }
}

TEST_F(RequestFifoTest, NoMoreBuffersThanCreditsHeldWaitingOrNot) {
  RequestFifo f = Make(2);
  ASSERT_TRUE(f.admit({0, 36}));
  ASSERT_TRUE(f.admit({1, 36}));
  EXPECT_FALSE(f.admit({2, 36})) << "a third IU on two credits";
  f.pop();  // a command has it now: still held
  EXPECT_EQ(1u, f.waiting());
  EXPECT_EQ(2u, f.held());
  EXPECT_FALSE(f.admit({2, 36})) << "popped is not released";
  f.release_buffer();
  EXPECT_TRUE(f.admit({2, 36}));
}

TEST_F(RequestFifoTest, AGrantIsOneCreditPlusEveryOneOwed) {
  RequestFifo f = Make(4);
  EXPECT_EQ(4u, f.req_lim());
  for (int i = 0; i < 3; i++) f.spend();
  EXPECT_EQ(1u, f.req_lim());
  f.owe();  // an IU with an unknown opcode: no response
  f.owe();  // an aborted command: no response
  EXPECT_EQ(3u, f.grant());
  EXPECT_EQ(4u, f.req_lim());
  EXPECT_EQ(1u, f.grant()) << "owed credits ride on one response only";
}

TEST_F(RequestFifoTest, SpendingStopsAtZero) {
  RequestFifo f = Make(1);
  f.spend();
  f.spend();  // the initiator sent beyond its credits
  EXPECT_EQ(0u, f.req_lim());
}

TEST_F(RequestFifoTest, ReleasingABufferNotHeldIsABug) {
  RequestFifo f = Make(1);
  f.release_buffer();
  ExpectOneBugReport("held_ > 0");
  EXPECT_EQ(0u, f.held());
}

TEST_F(RequestFifoTest, NoMemoryNoFifo) {
  fake::fail_nth_allocation(0);
  srpt::Result<RequestFifo> made = RequestFifo::create(8);
  EXPECT_FALSE(made.ok());
}

}  // namespace
