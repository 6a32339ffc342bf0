/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scalar types of the C ABI between the kernel shim (C, kernel headers) and
 * the core (freestanding C++, no headers at all).
 *
 * Every header under include/srpt/abi/ is included by both sides. It may use
 * only these types, opaque struct pointers and plain structs, so that the
 * layout is the same in C and in C++ and no kernel header leaks into C++.
 */
#ifndef SRPT_ABI_TYPES_H
#define SRPT_ABI_TYPES_H

#if defined(__cplusplus)
/* The compiler's own spellings; identical to <stdint.h> on the host. */
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __SIZE_TYPE__ size_t;
#define SRPT_EXTERN_C_BEGIN extern "C" {
#define SRPT_EXTERN_C_END }
#define SRPT_NOEXCEPT noexcept
#else
/* The kernel's types: Kbuild puts <linux/types.h> in front of every C file. */
#ifndef _LINUX_TYPES_H
#error "srpt/abi headers are for the shim's C files, built by Kbuild"
#endif
#define SRPT_EXTERN_C_BEGIN
#define SRPT_EXTERN_C_END
#define SRPT_NOEXCEPT
#endif

#define SRPT_PRINTF(fmt_idx, args_idx) \
	__attribute__((format(printf, fmt_idx, args_idx)))

/*
 * Error numbers crossing the ABI are negative Linux errno values. C++ cannot
 * include <linux/errno.h>, so the values it uses are spelled here and the
 * shim checks each against the kernel's at build time (src/shim/abi_check.c).
 */
#define SRPT_EPERM 1
#define SRPT_ENOENT 2
#define SRPT_EIO 5
#define SRPT_ENOMEM 12
#define SRPT_EBUSY 16
#define SRPT_EEXIST 17
#define SRPT_ENODEV 19
#define SRPT_EINVAL 22
#define SRPT_ENOSPC 28
#define SRPT_ERANGE 34
#define SRPT_ENAMETOOLONG 36
#define SRPT_EOPNOTSUPP 95
#define SRPT_ECONNREFUSED 111
#define SRPT_ESHUTDOWN 108
#define SRPT_ETIMEDOUT 110
#define SRPT_EACCES 13
#define SRPT_EADDRINUSE 98

#endif /* SRPT_ABI_TYPES_H */
