// SPDX-License-Identifier: GPL-2.0
// The ABI subset the threaded tests link against (kernel.h).
#include "kernel.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <srpt/abi/alloc.h>
#include <srpt/abi/lock.h>
#include <srpt/abi/log.h>
#include <srpt/abi/session.h>

struct srpt_spinlock {
  std::mutex m;
};

struct srpt_mutex {
  std::mutex m;
};

// A kernel completion: complete() adds one, a wait takes one.
struct srpt_k_completion {
  std::mutex m;
  std::condition_variable cv;
  unsigned done = 0;
};

struct srpt_k_ring {
  uint32_t size = 0;
  uint8_t* mem = nullptr;
};

// A kernel work item. The core pieces tested here only queue theirs for
// later (the ring cache's trim), and the tests drive no timers: a run is
// only recorded, and cancel() drops it.
struct srpt_k_work {
  std::mutex m;
  bool later = false;
};

struct srpt_k_srq {
  std::mutex m;
  srpt_k_ring ring;
  std::vector<bool> posted;
};

namespace {

std::atomic<uint64_t> now_ns{0};
std::atomic<size_t> bug_count{0};
std::atomic<size_t> srq_leaks{0};
std::atomic<size_t> srq_doubles{0};
std::atomic<size_t> srq_destroys{0};
std::atomic<size_t> live_ring_count{0};

std::mutex log_lock;
std::vector<std::string> log_text;

}  // namespace

namespace kthreads {

void set_now(uint64_t ns) { now_ns.store(ns); }

void reset_log() {
  std::lock_guard<std::mutex> g(log_lock);
  log_text.clear();
}

size_t log_lines() {
  std::lock_guard<std::mutex> g(log_lock);
  return log_text.size();
}

size_t log_lines_with(const char* needle) {
  std::lock_guard<std::mutex> g(log_lock);
  size_t n = 0;
  for (const std::string& line : log_text)
    if (line.find(needle) != std::string::npos) n++;
  return n;
}

size_t bugs() { return bug_count.load(); }

int take_posted(srpt_k_srq* srq) {
  std::lock_guard<std::mutex> g(srq->m);
  for (size_t i = 0; i < srq->posted.size(); i++) {
    if (srq->posted[i]) {
      srq->posted[i] = false;
      return static_cast<int>(i);
    }
  }
  return -1;
}

size_t srq_destroyed_with_buffers_out() { return srq_leaks.load(); }
size_t srq_double_posts() { return srq_doubles.load(); }
size_t srqs_destroyed() { return srq_destroys.load(); }

size_t live_rings() { return live_ring_count.load(); }

void write_words(uint8_t* buf, uint32_t bytes, int id) {
  auto* words = reinterpret_cast<uint64_t*>(buf);
  for (uint32_t i = 0; i < bytes / sizeof(uint64_t); i++) words[i] = uint64_t(id) << 32 | i;
}

}  // namespace kthreads

extern "C" {

void* srpt_kzalloc(size_t size, enum srpt_alloc_ctx) noexcept { return calloc(1, size); }
void srpt_kfree(const void* ptr) noexcept { free(const_cast<void*>(ptr)); }

struct srpt_spinlock* srpt_spinlock_create(enum srpt_lock_class) noexcept {
  return new (std::nothrow) srpt_spinlock;
}
void srpt_spinlock_destroy(struct srpt_spinlock* l) noexcept { delete l; }
void srpt_spin_lock_irqsave(struct srpt_spinlock* l) noexcept { l->m.lock(); }
void srpt_spin_unlock_irqrestore(struct srpt_spinlock* l) noexcept { l->m.unlock(); }

struct srpt_mutex* srpt_mutex_create(enum srpt_lock_class) noexcept {
  return new (std::nothrow) srpt_mutex;
}
void srpt_mutex_destroy(struct srpt_mutex* m) noexcept { delete m; }
void srpt_mutex_lock(struct srpt_mutex* m) noexcept { m->m.lock(); }
void srpt_mutex_unlock(struct srpt_mutex* m) noexcept { m->m.unlock(); }
int srpt_mutex_is_locked(struct srpt_mutex*) noexcept { return 1; }

int srpt_k_completion_create(struct srpt_k_completion** out) noexcept {
  *out = new (std::nothrow) srpt_k_completion;
  return *out != nullptr ? 0 : -ENOMEM;
}

void srpt_k_complete(struct srpt_k_completion* c) noexcept {
  std::lock_guard<std::mutex> g(c->m);
  c->done++;
  c->cv.notify_all();
}

int srpt_k_wait(struct srpt_k_completion* c, uint32_t ms) noexcept {
  std::unique_lock<std::mutex> g(c->m);
  const auto ready = [c] { return c->done > 0; };
  if (ms == ~uint32_t{0})
    c->cv.wait(g, ready);
  else if (!c->cv.wait_for(g, std::chrono::milliseconds(ms), ready))
    return -ETIMEDOUT;
  c->done--;
  return 0;
}

void srpt_k_completion_destroy(struct srpt_k_completion* c) noexcept { delete c; }

uint64_t srpt_k_now_ns(void) noexcept { return now_ns.load(); }

void srpt_log(enum srpt_log_level, const char* fmt, ...) noexcept {
  char line[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  std::lock_guard<std::mutex> g(log_lock);
  log_text.emplace_back(line);
}

void srpt_report_bug(const char* file, int line, const char* expr) noexcept {
  fprintf(stderr, "core assertion failed: %s:%d: %s\n", file, line, expr);
  bug_count++;
}

int srpt_k_srq_create(struct srpt_k_device*, uint32_t* count, uint32_t buf_size,
                      uint32_t, struct srpt_core_srq*, struct srpt_k_srq** out) noexcept {
  srpt_k_srq* srq = new (std::nothrow) srpt_k_srq;
  if (srq == nullptr) return -ENOMEM;
  srq->ring.size = buf_size;
  srq->ring.mem = static_cast<uint8_t*>(calloc(*count, buf_size));
  if (srq->ring.mem == nullptr) {
    delete srq;
    return -ENOMEM;
  }
  srq->posted.assign(*count, true);
  *out = srq;
  return 0;
}

struct srpt_k_ring* srpt_k_srq_ring(struct srpt_k_srq* srq) noexcept { return &srq->ring; }

int srpt_k_ring_create(struct srpt_k_device*, uint32_t count, uint32_t size, uint32_t,
                       enum srpt_ring_dir, struct srpt_k_ring** out) noexcept {
  srpt_k_ring* ring = new (std::nothrow) srpt_k_ring;
  if (ring == nullptr) return -ENOMEM;
  ring->size = size;
  ring->mem = static_cast<uint8_t*>(calloc(count, size));
  if (ring->mem == nullptr) {
    delete ring;
    return -ENOMEM;
  }
  live_ring_count++;
  *out = ring;
  return 0;
}

void srpt_k_ring_destroy(struct srpt_k_ring* ring) noexcept {
  if (ring == nullptr) return;
  free(ring->mem);
  delete ring;
  live_ring_count--;
}

int srpt_k_work_create(void (*)(void* arg), void*, struct srpt_k_work** out) noexcept {
  *out = new (std::nothrow) srpt_k_work;
  return *out != nullptr ? 0 : -ENOMEM;
}

void srpt_k_work_queue_after(struct srpt_k_work* w, uint32_t) noexcept {
  std::lock_guard<std::mutex> g(w->m);
  w->later = true;
}

void srpt_k_work_cancel(struct srpt_k_work* w) noexcept {
  std::lock_guard<std::mutex> g(w->m);
  w->later = false;
}

void srpt_k_work_destroy(struct srpt_k_work* w) noexcept { delete w; }

uint8_t* srpt_k_ring_buf(struct srpt_k_ring* ring, uint32_t index) noexcept {
  return ring->mem + static_cast<size_t>(index) * ring->size;
}

int srpt_k_srq_post_recv(struct srpt_k_srq* srq, uint32_t index) noexcept {
  std::lock_guard<std::mutex> g(srq->m);
  if (srq->posted[index]) {
    srq_doubles++;
    return -EINVAL;
  }
  srq->posted[index] = true;
  return 0;
}

void srpt_k_srq_destroy(struct srpt_k_srq* srq) noexcept {
  {
    std::lock_guard<std::mutex> g(srq->m);
    for (bool p : srq->posted)
      if (!p) {
        srq_leaks++;
        break;
      }
  }
  free(srq->ring.mem);
  delete srq;
  srq_destroys++;
}

}  // extern "C"
