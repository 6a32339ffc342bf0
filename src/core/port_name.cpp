// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/port_name.h>

#include <srpt/rt/byteorder.h>

namespace srpt {
namespace {

// Parses exactly `digits` hex digits from s at pos into *out.
bool parse_hex(StringView s, usize pos, usize digits, u64* out) {
  if (pos + digits > s.size()) return false;
  u64 v = 0;
  for (usize i = 0; i < digits; i++) {
    int d = hex_digit_value(s[pos + i]);
    if (d < 0) return false;
    v = (v << 4) | static_cast<u64>(d);
  }
  *out = v;
  return true;
}

// "xxxx:xxxx:xxxx:xxxx": 4 groups of exactly 4 hex digits.
bool parse_guid_form(StringView s, u64* guid) {
  if (s.size() != 19) return false;
  u64 v = 0;
  for (usize group = 0; group < 4; group++) {
    usize pos = group * 5;
    u64 part;
    if (!parse_hex(s, pos, 4, &part)) return false;
    if (group < 3 && s[pos + 4] != ':') return false;
    v = (v << 16) | part;
  }
  *guid = v;
  return true;
}

// 32 hex digits, optionally after "0x"/"0X".
bool parse_gid_form(StringView s, Gid* gid) {
  if (s.starts_with("0x") || s.starts_with("0X")) s = s.substr(2);
  if (s.size() != 32) return false;
  u64 hi, lo;
  if (!parse_hex(s, 0, 16, &hi) || !parse_hex(s, 16, 16, &lo)) return false;
  store_be64(gid->raw, hi);
  store_be64(gid->raw + 8, lo);
  return true;
}

}  // namespace

u64 Gid::subnet_prefix() const { return load_be64(raw); }
u64 Gid::interface_id() const { return load_be64(raw + 8); }
bool Gid::operator==(const Gid& o) const {
  for (usize i = 0; i < sizeof(raw); i++)
    if (raw[i] != o.raw[i]) return false;
  return true;
}

PortName format_guid_name(u64 interface_id) {
  PortName name;
  for (int group = 3; group >= 0; group--) {
    (void)append_hex(name, interface_id >> (16 * group), 4);
    if (group) (void)name.push_back(':');
  }
  return name;
}

PortName format_gid_name(const Gid& gid) {
  PortName name;
  (void)name.push_back('0');
  (void)name.push_back('x');
  (void)append_hex(name, gid.subnet_prefix(), 16);
  (void)append_hex(name, gid.interface_id(), 16);
  return name;
}

bool ParsedPortName::names(const Gid& gid0) const {
  if (form == PortNameForm::Guid) return gid0.interface_id() == interface_id;
  return gid0 == gid;
}

Result<ParsedPortName> parse_port_name(StringView name) {
  ParsedPortName parsed{};
  if (parse_guid_form(name, &parsed.interface_id)) {
    parsed.form = PortNameForm::Guid;
    return move(parsed);
  }
  if (parse_gid_form(name, &parsed.gid)) {
    parsed.form = PortNameForm::Gid;
    parsed.interface_id = parsed.gid.interface_id();
    return move(parsed);
  }
  return Error::Inval;
}

}  // namespace srpt
