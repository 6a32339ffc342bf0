// SPDX-License-Identifier: GPL-2.0
// Send-queue depth of a channel (include/srpt/core/send_queue.h).
#include <srpt/core/send_queue.h>

#include "../harness/core_test.h"

using srpt::kMaxCommandWrs;
using srpt::send_queue_depth;

namespace {

TEST(SendQueueDepthTest, ALargestChainIsTheSegmentsPlusAnEightMiBTransfer) {
  // 256 remote segments, 2048 pages at 16 per work request.
  EXPECT_EQ(256u + 128u, kMaxCommandWrs);
}

TEST(SendQueueDepthTest, ResponsesForEverySlotAndOneLargestChain) {
  EXPECT_EQ(64u + kMaxCommandWrs, send_queue_depth(64, 4096));
  EXPECT_EQ(1u + kMaxCommandWrs, send_queue_depth(1, 4096));
}

TEST(SendQueueDepthTest, SrpSqSizeCaps) {
  EXPECT_EQ(100u, send_queue_depth(64, 100));
  EXPECT_EQ(64u + kMaxCommandWrs, send_queue_depth(64, 64 + kMaxCommandWrs));
}

TEST(SendQueueDepthTest, NeverBelowOneResponsePerSlot) {
  EXPECT_EQ(64u, send_queue_depth(64, 4));
  EXPECT_EQ(4u, send_queue_depth(4, 4));
}

}  // namespace
