// SPDX-License-Identifier: GPL-2.0
#include "thread.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "violation.h"

namespace fake {
namespace {

// The logical kernel thread of this OS thread; the test's OS thread starts as
// 0 and switches ids in OtherThread scopes.
thread_local int tls_id = 0;
thread_local bool tls_can_block = false;
// Which OS thread holds the baton: 0 is the test's, k the spawned thread k.
thread_local int tls_os = 0;

struct Spawned {
  enum class St { Running, Blocked, Done };
  int id;
  std::thread th;
  St st = St::Running;
  std::function<bool()> ready;
};

// Invariant: exactly the OS thread whose tls_os equals `baton` runs; every
// other one waits on `cv`. Only the test's thread hands the baton to a
// spawned one, which hands it back when it blocks or finishes.
struct ThreadState {
  std::mutex mu;
  std::condition_variable cv;
  int baton = 0;
  int next_id = 1;
  std::vector<std::unique_ptr<Spawned>> threads;
  // Threads abandoned by reset_threads(), parked forever.
  std::vector<std::unique_ptr<Spawned>> parked;
};

ThreadState& state() {
  static ThreadState* s = new ThreadState;  // outlives parked threads
  return *s;
}

Spawned* find(int id) {
  for (auto& t : state().threads)
    if (t->id == id) return t.get();
  return nullptr;
}

// Test's thread: lets `t` run until it hands the baton back.
void resume(Spawned& t) {
  ThreadState& s = state();
  std::unique_lock<std::mutex> lk(s.mu);
  t.st = Spawned::St::Running;
  s.baton = t.id;
  s.cv.notify_all();
  s.cv.wait(lk, [&] { return s.baton == 0; });
  lk.unlock();
  if (t.st == Spawned::St::Done && t.th.joinable()) t.th.join();
}

// Spawned thread: hands the baton back and, unless done, waits for it.
void yield(Spawned& t, Spawned::St st) {
  ThreadState& s = state();
  std::unique_lock<std::mutex> lk(s.mu);
  t.st = st;
  s.baton = 0;
  s.cv.notify_all();
  if (st == Spawned::St::Done) return;
  s.cv.wait(lk, [&] { return s.baton == t.id; });
}

}  // namespace

int current_thread() { return tls_id; }
bool current_thread_can_block() { return tls_can_block; }
bool on_test_os_thread() { return tls_os == 0; }

OtherThread::OtherThread() : saved_id_(tls_id), saved_can_block_(tls_can_block) {
  tls_id = state().next_id++;
  tls_can_block = false;
}

OtherThread::~OtherThread() {
  tls_id = saved_id_;
  tls_can_block = saved_can_block_;
}

int spawn_thread(std::function<void()> fn) {
  ThreadState& s = state();
  if (tls_os != 0) {
    record_violation("spawn_thread: only the test's thread spawns");
    return -1;
  }
  auto t = std::make_unique<Spawned>();
  Spawned* raw = t.get();
  raw->id = s.next_id++;
  s.threads.push_back(std::move(t));
  raw->th = std::thread([raw, fn = std::move(fn)] {
    ThreadState& st = state();
    {
      std::unique_lock<std::mutex> lk(st.mu);
      st.cv.wait(lk, [&] { return st.baton == raw->id; });
    }
    tls_id = raw->id;
    tls_os = raw->id;
    tls_can_block = true;
    fn();
    yield(*raw, Spawned::St::Done);
  });
  resume(*raw);
  return raw->id;
}

size_t run_threads() {
  ThreadState& s = state();
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < s.threads.size(); i++) {
      Spawned& t = *s.threads[i];
      if (t.st != Spawned::St::Blocked || !t.ready()) continue;
      resume(t);
      progress = true;
    }
  }
  return blocked_threads();
}

bool thread_finished(int id) {
  Spawned* t = find(id);
  return t != nullptr && t->st == Spawned::St::Done;
}

size_t blocked_threads() {
  size_t n = 0;
  for (auto& t : state().threads) n += t->st == Spawned::St::Blocked;
  return n;
}

bool block_until(const std::function<bool()>& ready) {
  if (!tls_can_block || tls_os == 0) return false;
  Spawned* t = find(tls_os);
  if (t == nullptr) return false;
  while (!ready()) {
    t->ready = ready;
    yield(*t, Spawned::St::Blocked);
  }
  t->ready = nullptr;
  return true;
}

bool preempt() {
  bool paused = false;
  return block_until([&paused] {
    if (paused) return true;
    paused = true;
    return false;
  });
}

void reset_threads() {
  ThreadState& s = state();
  for (auto& t : s.threads) {
    if (t->st == Spawned::St::Blocked) {
      t->th.detach();
      s.parked.push_back(std::move(t));
    } else if (t->th.joinable()) {
      t->th.join();
    }
  }
  s.threads.clear();
}

}  // namespace fake
