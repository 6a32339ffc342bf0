// SPDX-License-Identifier: GPL-2.0
// Self-check of the thread-safety build: this file reads and writes a field
// guarded by a srpt::Mutex without holding it, and `make tsa` requires clang
// to reject it. If it ever compiles, the annotations in
// include/srpt/rt/thread_annotations.h have stopped reaching clang and the
// clean -Wthread-safety run over src/core proves nothing.
#include <srpt/rt/lock.h>
#include <srpt/rt/thread_annotations.h>

namespace {

struct Counter {
  srpt::Mutex lock;
  int value SRPT_GUARDED_BY(lock) = 0;
};

}  // namespace

int unguarded_read(Counter& c) { return c.value; }

void guarded_write(Counter& c) {
  srpt::MutexGuard guard(c.lock);
  c.value++;
}

void unguarded_write(Counter& c) { c.value = 0; }
