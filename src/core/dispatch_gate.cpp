// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/dispatch_gate.h>

#include <srpt/rt/assert.h>

namespace srpt {

Result<DispatchGate> DispatchGate::create() {
  SpinLock lock = SRPT_TRY(SpinLock::create(SRPT_LOCK_CHANNEL));
  srpt_k_completion* idle = nullptr;
  const int ret = srpt_k_completion_create(&idle);
  if (ret) return Error::from_kernel(ret);
  return DispatchGate(move(lock), idle);
}

DispatchGate::~DispatchGate() {
  if (idle_ != nullptr) srpt_k_completion_destroy(idle_);
}

bool DispatchGate::enter() {
  SpinGuard g(lock_);
  if (closed_) return false;
  inside_++;
  return true;
}

void DispatchGate::leave() {
  srpt_k_completion* wake = nullptr;
  {
    SpinGuard g(lock_);
    if (SRPT_CHECK_FAILED(inside_ > 0)) return;
    if (--inside_ == 0 && closed_) wake = idle_;
  }
  if (wake != nullptr) srpt_k_complete(wake);
}

void DispatchGate::close_and_wait() {
  bool wait;
  {
    SpinGuard g(lock_);
    SRPT_ASSERT(!closed_);
    closed_ = true;
    wait = inside_ > 0;
  }
  if (wait) (void)srpt_k_wait(idle_, ~u32{0});
}

u32 DispatchGate::inside() {
  SpinGuard g(lock_);
  return inside_;
}

}  // namespace srpt
