// SPDX-License-Identifier: GPL-2.0
// The order of the core's calls into the new ABI (cm, queue, session, cmd):
// every such call the fake receives is appended here, so tests can check
// sequences ("the receive IU is reposted before the response is sent", "the
// QP is destroyed before the cm_id").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fake {

struct TraceEntry {
  uint64_t seq;      // position in the trace, from 1
  std::string call;  // the ABI function, e.g. "srpt_k_post_recv"
  const void* obj;   // the object it was called on (qp, cm, cmd, ...)
  int64_t arg;       // a characteristic argument (an index), or -1
};

// Appends an entry and returns its seq.
uint64_t trace(const char* call, const void* obj, int64_t arg = -1);
const std::vector<TraceEntry>& trace_log();
// Seq of the first (or last) entry of `call` on `obj` (any obj when null)
// with `arg` (any when -1) at or after seq `from`; 0 when there is none.
uint64_t find_call(const std::string& call, const void* obj = nullptr,
                   int64_t arg = -1, uint64_t from = 0);
uint64_t find_last_call(const std::string& call, const void* obj = nullptr,
                        int64_t arg = -1);
size_t count_calls(const std::string& call, const void* obj = nullptr);
// The trace, one call a line, for failure messages.
std::string trace_dump();

// Runs `hook` once, the next time `call` is traced, at the entry of that ABI
// function (before it does anything): for a test that needs another kernel
// thread to act at exactly that point (a CM event arriving while the release
// work destroys the QP, say).
void on_next_call(const std::string& call, std::function<void()> hook);

void reset_trace();

}  // namespace fake
