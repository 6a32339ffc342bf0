// SPDX-License-Identifier: GPL-2.0
// The fake srpt_kzalloc()/srpt_kfree() (include/srpt/abi/alloc.h): calloc and
// free, with every live block tracked so tests can prove nothing leaked.
//
// srpt_kfree() of a pointer the fake did not hand out (or already freed) is a
// violation, and the pointer is not passed on to free().
#pragma once

#include <cstddef>

namespace fake {

size_t live_allocations();
size_t live_bytes();
// Successful srpt_kzalloc() calls since reset, by context.
size_t sleeping_allocations();
size_t atomic_allocations();

// Forgets every live block (without freeing it: the code under test may still
// point at it) and zeroes the counters.
void reset_alloc();

}  // namespace fake
