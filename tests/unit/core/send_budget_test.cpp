// SPDX-License-Identifier: GPL-2.0
// SendBudget (include/srpt/core/send_budget.h) on its own: room is handed
// out first come, first served; a closing channel counts nothing.
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
  EXPECT_TRUE(b.reserve(c, 3, Post::Rsp, false));
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
  ASSERT_TRUE(b.reserve(first, 3, Post::Rsp, false));
  EXPECT_FALSE(b.reserve(big, 4, Post::Read, false)) << "needs the whole queue";
  EXPECT_FALSE(b.reserve(small, 1, Post::Rsp, false))
      << "fits, but waits behind the big one: it is not starved";
  Post what = Post::None;
  EXPECT_EQ(nullptr, b.next(false, &what)) << "the big one does not fit yet";
  b.give_back(first);
  EXPECT_EQ(&big, b.next(false, &what));
  EXPECT_EQ(Post::Read, what);
  EXPECT_EQ(4u, big.sq_held);
  EXPECT_EQ(Post::None, big.sq_post);
  EXPECT_EQ(nullptr, b.next(false, &what)) << "no room left for the small one";
  b.give_back(big);
  EXPECT_EQ(&small, b.next(false, &what));
  EXPECT_EQ(Post::Rsp, what);
  EXPECT_EQ(nullptr, b.next(false, &what));
  EXPECT_FALSE(b.anyone_waiting());
  b.give_back(small);
  EXPECT_EQ(4u, b.avail());
}

TEST_F(SendBudgetTest, AClosingChannelPassesEveryoneInOrderWithoutCounting) {
  SendBudget b;
  b.reset(2);
  SqClaim a, w1, w2;
  ASSERT_TRUE(b.reserve(a, 2, Post::Rsp, false));
  EXPECT_FALSE(b.reserve(w1, 2, Post::Fetch, false));
  EXPECT_FALSE(b.reserve(w2, 1, Post::Rsp, true))
      << "closing, but others wait: still behind them";
  Post what;
  EXPECT_EQ(&w1, b.next(true, &what));
  EXPECT_EQ(Post::Fetch, what);
  EXPECT_EQ(0u, w1.sq_held) << "nothing counted once closing";
  EXPECT_EQ(&w2, b.next(true, &what));
  SqClaim late;
  EXPECT_TRUE(b.reserve(late, 100, Post::Rsp, true));
  EXPECT_EQ(0u, late.sq_held);
  b.give_back(a);
  EXPECT_EQ(2u, b.avail());
}

TEST_F(SendBudgetTest, ForgettingWaitersUnlinksThem) {
  SqClaim w;
  {
    SendBudget b;
    b.reset(1);
    SqClaim held;
    ASSERT_TRUE(b.reserve(held, 1, Post::Rsp, false));
    EXPECT_FALSE(b.reserve(w, 1, Post::Rsp, false));
    b.forget_waiters();
    EXPECT_FALSE(b.anyone_waiting());
  }
  EXPECT_FALSE(w.sq_node.linked());
  EXPECT_EQ(Post::None, w.sq_post);
}

}  // namespace
