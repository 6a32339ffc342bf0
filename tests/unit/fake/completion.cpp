// SPDX-License-Identifier: GPL-2.0
#include "completion.h"

#include <algorithm>
#include <utility>

#include "fault.h"
#include "lock.h"
#include "loop.h"
#include "thread.h"
#include "trace.h"
#include "violation.h"

namespace fake {
namespace {

struct CompletionState {
  std::vector<srpt_k_completion*> live;
  uint64_t now_ns = 1000000000ull;  // one second after boot
  std::function<void()> after_now;
};

CompletionState& state() {
  static CompletionState* s = new CompletionState;  // never destroyed: outlives exit-time leak checks
  return *s;
}

std::vector<void*>& graveyard() {
  static std::vector<void*>* g = new std::vector<void*>;
  return *g;
}

bool is_live(const srpt_k_completion* c) {
  const auto& v = state().live;
  return std::find(v.begin(), v.end(), c) != v.end();
}

}  // namespace

size_t live_completions() { return state().live.size(); }
uint64_t now_ns() { return state().now_ns; }
void set_now_ns(uint64_t ns) { state().now_ns = ns; }
void advance_ns(uint64_t ns) { state().now_ns += ns; }
void after_next_now(std::function<void()> hook) { state().after_now = std::move(hook); }

std::vector<std::string> completion_leaks() {
  std::vector<std::string> out;
  for (size_t i = 0; i < state().live.size(); i++)
    out.push_back("completion was never destroyed");
  return out;
}

void reset_completion() {
  CompletionState& s = state();
  for (srpt_k_completion* c : s.live) graveyard().push_back(c);
  s = CompletionState{};
}

}  // namespace fake

extern "C" int srpt_k_completion_create(srpt_k_completion** out) noexcept {
  fake::might_sleep("srpt_k_completion_create");
  if (int err = fake::creation_error(fake::Call::CompletionCreate)) return err;
  srpt_k_completion* c = new srpt_k_completion{};
  fake::state().live.push_back(c);
  *out = c;
  return 0;
}

extern "C" void srpt_k_complete(srpt_k_completion* c) noexcept {
  fake::trace("srpt_k_complete", c);
  if (!fake::is_live(c)) {
    fake::record_violation("srpt_k_complete(%p): not a live completion",
                           static_cast<void*>(c));
    return;
  }
  c->done = true;
}

extern "C" int srpt_k_wait(srpt_k_completion* c, uint32_t ms) noexcept {
  fake::might_sleep("srpt_k_wait");
  fake::trace("srpt_k_wait", c);
  if (!fake::is_live(c)) {
    fake::record_violation("srpt_k_wait(%p): not a live completion",
                           static_cast<void*>(c));
    return -SRPT_EINVAL;
  }
  c->waits++;
  while (!c->done) {
    if (!fake::run_one_pending()) {
      // A spawned kernel thread sleeps until another one completes it.
      if (fake::current_thread_can_block() && fake::block_until([c] { return c->done; }))
        continue;
      break;
    }
    if (!fake::is_live(c)) {
      fake::record_violation("srpt_k_wait: the completion was destroyed while "
                             "waited on");
      return -SRPT_EINVAL;
    }
  }
  if (c->done) return 0;
  if (ms == ~0u)
    fake::record_violation("srpt_k_wait(forever): nothing left to run and the "
                           "completion is not complete; the kernel would hang");
  return -SRPT_ETIMEDOUT;
}

extern "C" void srpt_k_completion_destroy(srpt_k_completion* c) noexcept {
  if (c == nullptr) return;
  if (!fake::is_live(c)) {
    fake::record_violation("srpt_k_completion_destroy(%p): not a live completion",
                           static_cast<void*>(c));
    return;
  }
  auto& v = fake::state().live;
  v.erase(std::find(v.begin(), v.end(), c));
  delete c;
}

extern "C" uint64_t srpt_k_now_ns(void) noexcept {
  const uint64_t now = fake::now_ns();
  if (std::function<void()> hook = std::exchange(fake::state().after_now, nullptr)) hook();
  return now;
}

// The clock moves by the time slept; nothing else runs meanwhile.
extern "C" void srpt_k_sleep_ms(uint32_t ms) noexcept {
  fake::might_sleep("srpt_k_sleep_ms");
  fake::trace("srpt_k_sleep_ms", nullptr, ms);
  fake::advance_ns(uint64_t{ms} * 1000000u);
}
