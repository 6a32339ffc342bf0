// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/initiator_name.h>

#include <srpt/core/port_name.h>
#include <srpt/rt/byteorder.h>

namespace srpt {
namespace {

void append_hex_bytes(InitiatorName& n, const u8* p, usize len) {
  for (usize i = 0; i < len; i++) {
    (void)n.push_back(hex_digit(p[i] >> 4));
    (void)n.push_back(hex_digit(p[i]));
  }
}

bool is_ipv4(StringView s) {
  int parts = 0;
  usize i = 0;
  while (i < s.size()) {
    unsigned v = 0;
    usize digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + static_cast<unsigned>(s[i] - '0');
      if (++digits > 3 || v > 255) return false;
      i++;
    }
    if (digits == 0) return false;
    parts++;
    if (i == s.size()) break;
    if (s[i] != '.' || parts == 4) return false;
    i++;
    if (i == s.size()) return false;  // trailing dot
  }
  return parts == 4;
}

// RFC 4291 text forms: up to 8 groups of 1..4 hex digits, one "::" at most,
// optionally ending in a dotted IPv4 address.
bool is_ipv6(StringView s) {
  if (s.size() < 2 || s.size() > 45) return false;
  int groups = 0;
  bool compressed = false;
  usize i = 0;
  if (s.starts_with("::")) {
    compressed = true;
    i = 2;
    if (i == s.size()) return true;
  } else if (s[0] == ':') {
    return false;
  }
  while (i < s.size()) {
    usize start = i, digits = 0;
    while (i < s.size() && hex_digit_value(s[i]) >= 0 && digits < 5) {
      i++;
      digits++;
    }
    if (i < s.size() && s[i] == '.') {  // embedded IPv4 tail
      if (!is_ipv4(s.substr(start))) return false;
      groups += 2;
      i = s.size();
      break;
    }
    if (digits == 0 || digits > 4) return false;
    groups++;
    if (i == s.size()) break;
    if (s[i] != ':') return false;
    i++;
    if (i < s.size() && s[i] == ':') {
      if (compressed) return false;
      compressed = true;
      i++;
      if (i == s.size()) break;
    } else if (i == s.size()) {
      return false;  // trailing single colon
    }
  }
  return compressed ? groups < 8 : groups == 8;
}

bool is_hex32(StringView s) {
  if (s.starts_with("0x") || s.starts_with("0X")) s = s.substr(2);
  if (s.size() != 32) return false;
  for (usize i = 0; i < s.size(); i++)
    if (hex_digit_value(s[i]) < 0) return false;
  return true;
}

}  // namespace

SessionNames session_names(srpt_cm_kind kind, const u8 (&i_port_id)[16],
                           const u8 (&initiator_gid)[16], StringView src_addr) {
  SessionNames n;
  if (kind == SRPT_CM_IB) {
    PortName guid = format_guid_name(load_be64(initiator_gid + 8));
    (void)n.short_name.assign(guid.view());
  } else {
    (void)n.short_name.assign(src_addr);
  }
  (void)n.port_id_0x.push_back('0');
  (void)n.port_id_0x.push_back('x');
  append_hex_bytes(n.port_id_0x, i_port_id, 16);
  append_hex_bytes(n.port_id_hex, i_port_id, 16);
  return n;
}

bool is_valid_acl_name(StringView name) {
  if (name.empty()) return false;
  if (parse_port_name(name).ok()) return true;  // GUID form, hex forms
  return is_hex32(name) || is_ipv4(name) || is_ipv6(name);
}

}  // namespace srpt
