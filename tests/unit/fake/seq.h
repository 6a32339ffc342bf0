// SPDX-License-Identifier: GPL-2.0
// The fake seq_file (include/srpt/abi/fabric.h: srpt_k_seq_printf): a string
// the core prints into, for srpt_core_show_channels(). Formats are checked
// like log formats (log.h).
#pragma once

#include <string>

struct srpt_k_seq {
  std::string text;
};
