// SPDX-License-Identifier: GPL-2.0
// SendBudget (include/srpt/core/send_budget.h) on its own: room is handed
// out first come, first served, and never more than the queue holds.
#include <srpt/core/send_budget.h>

#include "../harness/core_test.h"

namespace {

using srpt::SendBudget;
using srpt::SqClaim;
using Post = SqClaim::SqPost;

class SendBudgetTest : public CoreTest {};

TEST_F(SendBudgetTest, AChainThatFitsIsHeldUntilGivenBack) {
  SendBudget b;
  b.reset(4);
  SqClaim c;
  EXPECT_TRUE(b.reserve(c, 3, Post::Rsp));
  EXPECT_EQ(3u, c.sq_held);
  EXPECT_EQ(1u, b.avail());
  b.give_back(c);
  EXPECT_EQ(0u, c.sq_held);
  EXPECT_EQ(4u, b.avail());
}

TEST_F(SendBudgetTest, WaitersGetRoomInArrivalOrder) {
  SendBudget b;
  b.reset(4);
  SqClaim first, big, small;
  ASSERT_TRUE(b.reserve(first, 3, Post::Rsp));
  EXPECT_FALSE(b.reserve(big, 4, Post::Read)) << "needs the whole queue";
  EXPECT_FALSE(b.reserve(small, 1, Post::Rsp))
      << "fits, but waits behind the big one: it is not starved";
  Post what = Post::None;
  EXPECT_EQ(nullptr, b.next(&what)) << "the big one does not fit yet";
  b.give_back(first);
  EXPECT_EQ(&big, b.next(&what));
  EXPECT_EQ(Post::Read, what);
  EXPECT_EQ(4u, big.sq_held);
  EXPECT_EQ(Post::None, big.sq_post);
  EXPECT_EQ(nullptr, b.next(&what)) << "no room left for the small one";
  b.give_back(big);
  EXPECT_EQ(&small, b.next(&what));
  EXPECT_EQ(Post::Rsp, what);
  EXPECT_EQ(nullptr, b.next(&what));
  EXPECT_FALSE(b.anyone_waiting());
  b.give_back(small);
  EXPECT_EQ(4u, b.avail());
}

// The budget has no state in which it hands out room that is not free: a
// chain larger than the queue waits for ever (its caller never asks for
// one), and everything handed out comes back exactly once.
TEST_F(SendBudgetTest, RoomHandedOutNeverExceedsTheDepth) {
  SendBudget b;
  b.reset(2);
  SqClaim a, w1, w2;
  ASSERT_TRUE(b.reserve(a, 2, Post::Rsp));
  EXPECT_FALSE(b.reserve(w1, 2, Post::Fetch));
  EXPECT_FALSE(b.reserve(w2, 1, Post::Rsp));
  Post what;
  EXPECT_EQ(nullptr, b.next(&what)) << "nothing is free";
  b.give_back(a);
  EXPECT_EQ(&w1, b.next(&what));
  EXPECT_EQ(Post::Fetch, what);
  EXPECT_EQ(2u, w1.sq_held);
  EXPECT_EQ(nullptr, b.next(&what)) << "w2 waits for w1's room";
  b.give_back(w1);
  EXPECT_EQ(&w2, b.next(&what));
  SqClaim late;
  EXPECT_FALSE(b.reserve(late, 3, Post::Rsp)) << "more than the queue holds";
  b.give_back(w2);
  EXPECT_EQ(nullptr, b.next(&what));
  EXPECT_EQ(2u, b.avail());
  b.forget_waiters();
}

TEST_F(SendBudgetTest, ForgettingWaitersUnlinksThem) {
  SqClaim w;
  {
    SendBudget b;
    b.reset(1);
    SqClaim held;
    ASSERT_TRUE(b.reserve(held, 1, Post::Rsp));
    EXPECT_FALSE(b.reserve(w, 1, Post::Rsp));
    b.forget_waiters();
    EXPECT_FALSE(b.anyone_waiting());
  }
  EXPECT_FALSE(w.sq_node.linked());
  EXPECT_EQ(Post::None, w.sq_post);
}


// A command posts one chain at a time: asking again while it waits is a
// caller's bug. It is reported, and the claim keeps the chain it waits for
// (what it posts and how much room that takes), so that the budget's
// invariants hold and the command is resumed as it was.
TEST_F(SendBudgetTest, AClaimAskingAgainWhileItWaitsKeepsWhatItWaitsFor) {
  SendBudget b;
  b.reset(2);
  SqClaim held, w;
  ASSERT_TRUE(b.reserve(held, 2, Post::Rsp));
  ASSERT_FALSE(b.reserve(w, 2, Post::Read));
  EXPECT_FALSE(b.reserve(w, 1, Post::Rsp));
  ExpectOneBugReport("c.sq_post == SqClaim::SqPost::None");
  EXPECT_EQ(2u, w.sq_need);
  EXPECT_EQ(Post::Read, w.sq_post);
  b.give_back(held);
  Post what = Post::None;
  EXPECT_EQ(&w, b.next(&what));
  EXPECT_EQ(Post::Read, what);
  EXPECT_EQ(2u, w.sq_held);
  EXPECT_EQ(nullptr, b.next(&what));
  b.give_back(w);
  EXPECT_EQ(2u, b.avail());
}

}  // namespace
