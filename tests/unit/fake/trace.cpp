// SPDX-License-Identifier: GPL-2.0
#include "trace.h"

#include <cstdio>

namespace fake {
namespace {

std::vector<TraceEntry>& entries() {
  static std::vector<TraceEntry> v;
  return v;
}

struct Hook {
  std::string call;
  std::function<void()> fn;
};

std::vector<Hook>& hooks() {
  static std::vector<Hook> v;
  return v;
}

bool matches(const TraceEntry& e, const std::string& call, const void* obj,
             int64_t arg) {
  return e.call == call && (obj == nullptr || e.obj == obj) &&
         (arg == -1 || e.arg == arg);
}

}  // namespace

uint64_t trace(const char* call, const void* obj, int64_t arg) {
  std::vector<TraceEntry>& v = entries();
  const uint64_t seq = v.size() + 1;
  v.push_back(TraceEntry{seq, call, obj, arg});
  std::vector<Hook>& h = hooks();
  for (size_t i = 0; i < h.size(); i++) {
    if (h[i].call != call) continue;
    std::function<void()> fn = std::move(h[i].fn);
    h.erase(h.begin() + static_cast<long>(i));
    fn();
    break;
  }
  return seq;
}

void on_next_call(const std::string& call, std::function<void()> hook) {
  hooks().push_back(Hook{call, std::move(hook)});
}

const std::vector<TraceEntry>& trace_log() { return entries(); }

uint64_t find_call(const std::string& call, const void* obj, int64_t arg,
                   uint64_t from) {
  for (const TraceEntry& e : entries())
    if (e.seq >= from && matches(e, call, obj, arg)) return e.seq;
  return 0;
}

uint64_t find_last_call(const std::string& call, const void* obj, int64_t arg) {
  uint64_t last = 0;
  for (const TraceEntry& e : entries())
    if (matches(e, call, obj, arg)) last = e.seq;
  return last;
}

size_t count_calls(const std::string& call, const void* obj) {
  size_t n = 0;
  for (const TraceEntry& e : entries()) n += matches(e, call, obj, -1);
  return n;
}

std::string trace_dump() {
  std::string out;
  char line[160];
  for (const TraceEntry& e : entries()) {
    snprintf(line, sizeof(line), "  %4llu %s(%p%s%lld)\n",
             static_cast<unsigned long long>(e.seq), e.call.c_str(), e.obj,
             e.arg == -1 ? "" : ", ", e.arg == -1 ? 0ll : static_cast<long long>(e.arg));
    if (e.arg == -1)
      snprintf(line, sizeof(line), "  %4llu %s(%p)\n",
               static_cast<unsigned long long>(e.seq), e.call.c_str(), e.obj);
    out += line;
  }
  return out.empty() ? "  (no calls)\n" : out;
}

void reset_trace() {
  entries().clear();
  hooks().clear();
}

}  // namespace fake
