// SPDX-License-Identifier: GPL-2.0
// Clang's thread-safety annotations. They document which lock guards which
// field; the host unit tests build the core with clang -Wthread-safety so the
// rules are checked there. gcc (the kernel build) does not know them.
#pragma once

#if defined(__clang__)
#define SRPT_TSA(x) __attribute__((x))
#else
#define SRPT_TSA(x)
#endif

#define SRPT_CAPABILITY(name) SRPT_TSA(capability(name))
#define SRPT_SCOPED_CAPABILITY SRPT_TSA(scoped_lockable)
#define SRPT_GUARDED_BY(m) SRPT_TSA(guarded_by(m))
#define SRPT_PT_GUARDED_BY(m) SRPT_TSA(pt_guarded_by(m))
#define SRPT_REQUIRES(...) SRPT_TSA(requires_capability(__VA_ARGS__))
#define SRPT_EXCLUDES(...) SRPT_TSA(locks_excluded(__VA_ARGS__))
#define SRPT_ACQUIRE(...) SRPT_TSA(acquire_capability(__VA_ARGS__))
#define SRPT_RELEASE(...) SRPT_TSA(release_capability(__VA_ARGS__))
#define SRPT_NO_THREAD_SAFETY_ANALYSIS SRPT_TSA(no_thread_safety_analysis)
