// SPDX-License-Identifier: GPL-2.0
// Fixed-width integer names for the core. No library headers: the kernel
// build is -nostdinc, and the host build must see the same definitions.
#pragma once

#include <srpt/abi/types.h>

namespace srpt {

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;
using s32 = int32_t;
using s64 = int64_t;
using usize = size_t;
using uptr = __UINTPTR_TYPE__;
using nullptr_t = decltype(nullptr);

}  // namespace srpt
