// SPDX-License-Identifier: GPL-2.0
// Send-queue depth of a channel (include/srpt/core/send_queue.h).
#include <srpt/core/send_queue.h>

#include "../harness/core_test.h"

using srpt::kMaxContextWrs;
using srpt::send_queue_depth;

namespace {

TEST(SendQueueDepthTest, ALongestContextIsAnEightMiBSegmentStartingInsideAPage) {
  // 2048 pages at 16 per work request, one more for the unaligned start.
  EXPECT_EQ(128u + 1u, kMaxContextWrs);
}

TEST(SendQueueDepthTest, ResponsesForEverySlotAndOneLongestContext) {
  EXPECT_EQ(64u + kMaxContextWrs, send_queue_depth(64, 4096));
  EXPECT_EQ(1u + kMaxContextWrs, send_queue_depth(1, 4096));
}

TEST(SendQueueDepthTest, ADefaultLoginFitsRxesQueueOf256Entries) {
  // ib_srp's default login gets 64 slots; with the drain request and the
  // spare entry rxe keeps, the depth must stay under 255 so that rxe's
  // power-of-two queue is 256 entries, not 512 (its memory per channel).
  EXPECT_LE(send_queue_depth(64, 4096) + 2, 256u);
}

TEST(SendQueueDepthTest, SrpSqSizeCaps) {
  EXPECT_EQ(100u, send_queue_depth(64, 100));
  EXPECT_EQ(64u + kMaxContextWrs, send_queue_depth(64, 64 + kMaxContextWrs));
}

TEST(SendQueueDepthTest, NeverBelowOneResponsePerSlot) {
  EXPECT_EQ(64u, send_queue_depth(64, 4));
  EXPECT_EQ(4u, send_queue_depth(4, 4));
}

}  // namespace
