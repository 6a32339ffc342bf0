// SPDX-License-Identifier: GPL-2.0
// SharedRecvQueue on real threads: its buffers
// pass between the SRQ and the channels that received into them, and the
// SRQ lives until the last reference goes, dropped by whichever channel's
// release work (or the device's use_srq switch) comes last.
//
// Channel threads take buffers as receive completions deliver them, write
// into them (the IU as the channel uses it), post them back, and at the end
// drop their reference, as a channel's release work does after its QP is
// gone; the device drops its own reference meanwhile. Checked: the SRQ is
// destroyed once, with every buffer posted back and none posted twice, and
// (by ThreadSanitizer) after the last write into any of its buffers: the
// reference count orders each channel's work before the destroy.
//
// SRPT_THREADS_BREAK=srq has one channel drop its reference while it still
// holds a buffer and use that buffer afterwards, the rule of srq.h broken:
// TSan must report the write into the freed ring.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <srpt/core/srq.h>

#include "break_mode.h"
#include "kernel.h"

namespace {

constexpr uint32_t kBuffers = 32;
constexpr uint32_t kBufSize = 64;
constexpr int kChannels = 3;
constexpr int kRounds = 100;
constexpr int kIusPerChannel = 50;

using srpt::RefPtr;
using srpt::SharedRecvQueue;

// The channel's use of an IU buffer.
void use_buffer(uint8_t* buf, int id) { kthreads::write_words(buf, kBufSize, id); }

void channel(RefPtr<SharedRecvQueue> srq, int id, bool early_drop) {
  for (int n = 0; n < kIusPerChannel; n++) {
    const int index = kthreads::take_posted(srq->ksrq());
    if (index < 0) {
      std::this_thread::yield();
      continue;
    }
    use_buffer(srq->buf(static_cast<uint32_t>(index)), id);
    ASSERT_TRUE(srq->repost(static_cast<uint32_t>(index)).ok());
  }
  if (!early_drop) return;  // the reference goes with `srq`
  const int held = kthreads::take_posted(srq->ksrq());
  uint8_t* buf = held >= 0 ? srq->buf(static_cast<uint32_t>(held)) : nullptr;
  srq.reset();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (buf != nullptr) use_buffer(buf, id);
}

TEST(SrqThreadsTest, TheLastReferenceDestroysTheSrqAfterEveryChannelIsDone) {
  const bool broken = break_mode("srq");
  const size_t destroyed_before = kthreads::srqs_destroyed();
  for (int round = 0; round < kRounds; round++) {
    auto made = SharedRecvQueue::create(nullptr, "thr0", kBuffers, kBufSize,
                                        srpt::kSrqImmDataOffset, {nullptr, nullptr});
    ASSERT_TRUE(made.ok());
    RefPtr<SharedRecvQueue> device_ref = srpt::move(made.value());
    ASSERT_EQ(device_ref->count(), kBuffers);

    std::vector<std::thread> channels;
    for (int i = 0; i < kChannels; i++)
      channels.emplace_back(channel, device_ref, i + 1, broken && i == 0);
    // The device's use_srq switch drops its reference while channels run.
    std::this_thread::sleep_for(std::chrono::microseconds(round * 10));
    device_ref.reset();
    for (std::thread& t : channels) t.join();

    ASSERT_EQ(kthreads::srqs_destroyed(), destroyed_before + round + 1) << "round " << round;
  }
  EXPECT_EQ(kthreads::srq_destroyed_with_buffers_out(), 0u);
  EXPECT_EQ(kthreads::srq_double_posts(), 0u);
  EXPECT_EQ(kthreads::bugs(), 0u);
}

}  // namespace
