// SPDX-License-Identifier: GPL-2.0
// LogLimiter on real threads: it is lock-free, called
// from CM handlers and completion contexts of every device at once, so every
// field it shares must be accessed atomically (ThreadSanitizer checks that),
// and its limit must hold however the callers interleave.
//
// Four threads log about 40 initiators (more than the limiter's slots, so
// the overflow budget and eviction race too), in two intervals of the
// clock. Per interval, what gets through is at most the design's
// (kSlots + 1) * kBurst lines plus what a reset racing with a caller can
// forgive (log_limit.h): bounded here by as much again.
//
// The floor, every budget used up, holds exactly only when no two threads
// log the same name: when they do, two threads that claim a slot for the
// same new name at once can both succeed (one slot then idles out the
// interval), and a restart racing a count can cut a line it should admit
// (log_limit.h). On a loaded host that happens, rarely, and the floor is
// then a few lines short. So the same-names run checks the ceiling and the
// reports (and gives ThreadSanitizer the most sharing); the own-names run
// checks the floor.
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

enum class Names { kShared, kOwn };

// One interval of calls: every thread calls kNames names kCallsPerName
// times each, either the same 40 (kShared, in orders 7 apart) or 40 of
// its own (kOwn).
long log_interval(LogLimiter& limiter, Names names) {
  std::atomic<long> admitted{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&limiter, &admitted, &ready, t, names] {
      // All start together, so that their calls overlap.
      ready++;
      while (ready.load() < kThreads) std::this_thread::yield();
      char name[32];
      for (int call = 0; call < kCallsPerName; call++) {
        for (int n = 0; n < kNames; n++) {
          const int who = names == Names::kShared ? (n + t * 7) % kNames : t * kNames + n;
          const int len = snprintf(name, sizeof(name), "10.0.0.%d", who);
          if (limiter.admit(srpt::StringView(name, static_cast<srpt::usize>(len)))) admitted++;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return admitted.load();
}

constexpr long kDesign = (LogLimiter::kSlots + 1) * LogLimiter::kBurst;
constexpr long kCalls = long{kThreads} * kNames * kCallsPerName;
static_assert(kCalls > 4 * kDesign, "enough calls to exceed the budget");

struct Admitted {
  long first;
  long second;
};

// Two intervals of calls on a fresh limiter and log, the second as soon as
// the first interval has ended.
Admitted log_two_intervals(LogLimiter& limiter, Names names, const char* what) {
  kthreads::reset_log();
  kthreads::set_now(1);
  const long first = log_interval(limiter, names);
  kthreads::set_now(1 + LogLimiter::kIntervalNs);
  const long second = log_interval(limiter, names);
  printf("%s: admitted %ld and %ld of %ld calls per interval (design limit %ld)\n", what, first,
         second, kCalls, kDesign);
  return {first, second};
}

TEST(LogLimiterThreadsTest, ConcurrentInitiatorsStayWithinTheBudget) {
  LogLimiter limiter;
  const Admitted a = log_two_intervals(limiter, Names::kShared, "same names");
  EXPECT_LE(a.first, 2 * kDesign);
  EXPECT_LE(a.second, 2 * kDesign);
  // Racing claims waste at most a few bursts, never most of the budget.
  EXPECT_GE(a.first, kDesign / 2);
  EXPECT_GE(a.second, kDesign / 2);
  // The second interval reports what the first one cut: at most one line
  // per slot and one for the overflow, each naming a count.
  const size_t reports = kthreads::log_lines_with("messages suppressed");
  EXPECT_GE(reports, 1u);
  EXPECT_LE(reports, size_t{LogLimiter::kSlots + 1} * 2);
  EXPECT_EQ(kthreads::log_lines(), reports);
  EXPECT_EQ(kthreads::bugs(), 0u);
}

TEST(LogLimiterThreadsTest, EveryBudgetIsUsedWhenThreadsLogTheirOwnNames) {
  LogLimiter limiter;
  const Admitted a = log_two_intervals(limiter, Names::kOwn, "own names");
  // Every slot's name and the overflow are called far beyond the burst, and
  // no claim or restart races another on the same name.
  EXPECT_GE(a.first, kDesign);
  EXPECT_LE(a.first, 2 * kDesign);
  EXPECT_GE(a.second, kDesign);
  EXPECT_LE(a.second, 2 * kDesign);
  EXPECT_EQ(kthreads::bugs(), 0u);
}

}  // namespace
