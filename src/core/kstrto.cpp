// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/kstrto.h>

namespace srpt {

Result<u64> parse_kstrto(StringView text, u64 max) {
  for (usize i = 0; i < text.size(); i++) {
    if (text[i] == '\0') {
      text = text.substr(0, i);
      break;
    }
  }
  if (text.starts_with("+")) text = text.substr(1);
  unsigned base = 10;
  if (text.starts_with("0")) {
    base = 8;
    if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X') &&
        hex_digit_value(text[2]) >= 0) {
      base = 16;
      text = text.substr(2);
    }
  }
  u64 v = 0;
  bool overflow = false;
  usize digits = 0;
  for (; digits < text.size(); digits++) {
    const int d = hex_digit_value(text[digits]);
    if (d < 0 || static_cast<unsigned>(d) >= base) break;
    if (v > (~u64{0} - static_cast<u64>(d)) / base) overflow = true;
    v = v * base + static_cast<u64>(d);
  }
  if (overflow) return Error::Range;
  if (digits == 0) return Error::Inval;
  const StringView rest = text.substr(digits);
  if (!rest.empty() && rest != "\n") return Error::Inval;
  if (v > max) return Error::Range;
  return move(v);
}

}  // namespace srpt
