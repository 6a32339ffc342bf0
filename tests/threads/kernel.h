// SPDX-License-Identifier: GPL-2.0
// The kernel, as the threaded tests stand it in: with real threads.
//
// tests/unit/fake/ runs every kernel thread of a test on one OS thread, one
// at a time, so that each interleaving a test names is reproducible; the
// price is that it can never show two of the core's threads touching the
// same memory at once. These tests run the core's concurrent pieces on
// real threads, under ThreadSanitizer, and this file gives them the part of
// the C ABI they call: locks and completions are pthread ones (TSan sees
// their happens-before edges exactly as lockdep's kernel would order
// them), memory is the host heap (TSan reports an access to freed memory),
// and the clock is the test's.
#pragma once

#include <cstddef>
#include <cstdint>

#include <srpt/abi/queue.h>

namespace kthreads {

// srpt_k_now_ns() returns this until the next set_now().
void set_now(uint64_t ns);

// Log lines the core wrote since reset_log(), and how many of them contain
// `needle`.
void reset_log();
size_t log_lines();
size_t log_lines_with(const char* needle);

// srpt_report_bug() calls: each is a core assertion that failed.
size_t bugs();

// The SRQ stand-in. Its buffers are either posted (the device may fill
// them) or held by whoever took one; take_posted() plays a receive
// completion and hands one out, -1 when none is posted.
int take_posted(srpt_k_srq* srq);
// srpt_k_srq_destroy() calls that found a buffer not posted back, a buffer
// posted twice, and SRQs destroyed.
size_t srq_destroyed_with_buffers_out();
size_t srq_double_posts();
size_t srqs_destroyed();

// Rings srpt_k_ring_create() made and srpt_k_ring_destroy() has not freed.
size_t live_rings();

// A channel's (or the device's) writes into `bytes` of a buffer, marked
// with `id`. Word stores, not memset(): gcc expands a small memset inline,
// where ThreadSanitizer does not see it.
void write_words(uint8_t* buf, uint32_t bytes, int id);

}  // namespace kthreads
