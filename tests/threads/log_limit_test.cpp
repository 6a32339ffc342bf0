// SPDX-License-Identifier: GPL-2.0
// LogLimiter on real threads (issue 13, defect 7): it is lock-free, called
// from CM handlers and completion contexts of every device at once, so every
// field it shares must be accessed atomically (ThreadSanitizer checks that),
// and its limit must hold however the callers interleave.
//
// Four threads log, each about the same 40 initiators (more than the
// limiter's slots, so the overflow budget and eviction race too), in two
// intervals of the clock. Per interval, what gets through is at most the
// design's (kSlots + 1) * kBurst lines plus what a reset racing with a
// caller can forgive (log_limit.h): bounded here by as much again.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include <srpt/core/log_limit.h>

#include "kernel.h"

namespace {

constexpr int kThreads = 4;
constexpr int kNames = 40;
constexpr int kCallsPerName = 20;

using srpt::LogLimiter;

long log_interval(LogLimiter& limiter) {
  std::atomic<long> admitted{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&limiter, &admitted, &ready, t] {
      // All start together, so that their calls overlap.
      ready++;
      while (ready.load() < kThreads) std::this_thread::yield();
      char name[32];
      for (int call = 0; call < kCallsPerName; call++) {
        for (int n = 0; n < kNames; n++) {
          const int who = (n + t * 7) % kNames;
          const int len = snprintf(name, sizeof(name), "10.0.0.%d", who);
          if (limiter.admit(srpt::StringView(name, static_cast<srpt::usize>(len)))) admitted++;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return admitted.load();
}

TEST(LogLimiterThreadsTest, ConcurrentInitiatorsStayWithinTheBudget) {
  constexpr long kDesign = (LogLimiter::kSlots + 1) * LogLimiter::kBurst;
  constexpr long kCalls = long{kThreads} * kNames * kCallsPerName;
  static_assert(kCalls > 4 * kDesign, "enough calls to exceed the budget");
  LogLimiter limiter;
  kthreads::reset_log();

  kthreads::set_now(1);
  const long first = log_interval(limiter);
  kthreads::set_now(1 + LogLimiter::kIntervalNs);
  const long second = log_interval(limiter);

  printf("admitted %ld and %ld of %ld calls per interval (design limit %ld)\n", first,
         second, kCalls, kDesign);
  // Every slot's name and the overflow are called far beyond the burst.
  EXPECT_GE(first, kDesign);
  EXPECT_LE(first, 2 * kDesign);
  EXPECT_GE(second, kDesign);
  EXPECT_LE(second, 2 * kDesign);
  // The second interval reports what the first one cut: at most one line
  // per slot and one for the overflow, each naming a count.
  const size_t reports = kthreads::log_lines_with("messages suppressed");
  EXPECT_GE(reports, 1u);
  EXPECT_LE(reports, size_t{LogLimiter::kSlots + 1} * 2);
  EXPECT_EQ(kthreads::log_lines(), reports);
  EXPECT_EQ(kthreads::bugs(), 0u);
}

}  // namespace
