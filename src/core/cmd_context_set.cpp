// SPDX-License-Identifier: GPL-2.0
#include <srpt/core/cmd_context_set.h>

#include <srpt/rt/assert.h>
#include <srpt/rt/new.h>

namespace srpt {

Result<Own<CmdContextSet>> CmdContextSet::create(u32 count) {
  srpt_k_cmd** kcmds = new (alloc_sleep) srpt_k_cmd*[count];
  if (kcmds == nullptr) return Error::NoMem;
  Own<CmdContextSet> set = Own<CmdContextSet>::adopt(new (alloc_sleep) CmdContextSet(count, kcmds));
  if (!set) {
    destroy_array(kcmds);
    return Error::NoMem;
  }
  return move(set);
}

CmdContextSet::~CmdContextSet() {
  for (u32 i = made_; i-- > 0;) srpt_k_cmd_destroy(kcmds_[i]);
  destroy_array(kcmds_);
}

int CmdContextSet::bind(u32 i, srpt_k_qp* qp, u32 port_num, srpt_core_cmd* core) {
  SRPT_ASSERT(i <= made_ && i < count_);
  if (i < made_) {
    srpt_k_cmd_bind(kcmds_[i], qp, port_num, core);
    return 0;
  }
  const int ret = srpt_k_cmd_create(qp, port_num, core, &kcmds_[i]);
  if (ret) return ret;
  made_++;
  return 0;
}

srpt_k_cmd* CmdContextSet::at(u32 i) const {
  SRPT_ASSERT(i < made_);
  return kcmds_[i];
}

}  // namespace srpt
