// SPDX-License-Identifier: GPL-2.0
// Numbers written to configfs attributes, parsed as the in-tree driver
// parses them: kstrtou16/kstrtoul(page, 0, &val) on the NUL-terminated page.
//
// One optional '+'; hex after "0x"/"0X" when a hex digit follows, octal
// after a leading '0', decimal otherwise; then at most one '\n'. As in the
// kernel, a number that overflows 64 bits is Error::Range even with junk
// after it, junk after any other number is Error::Inval, and a well-formed
// number above the type's maximum is Error::Range. Nothing after an embedded
// NUL counts.
#pragma once

#include <srpt/rt/status.h>
#include <srpt/rt/string.h>
#include <srpt/rt/types.h>

namespace srpt {

Result<u64> parse_kstrto(StringView text, u64 max);

inline Result<u16> parse_kstrto_u16(StringView text) {
  Result<u64> v = parse_kstrto(text, 0xffff);
  if (!v.ok()) return v.error();
  return static_cast<u16>(v.value());
}

inline Result<u32> parse_kstrto_u32(StringView text) {
  Result<u64> v = parse_kstrto(text, 0xffffffffu);
  if (!v.ok()) return v.error();
  return static_cast<u32>(v.value());
}

}  // namespace srpt
