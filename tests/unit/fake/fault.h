// SPDX-License-Identifier: GPL-2.0
// Failure injection.
//
// Allocations. Everything that allocates in the kernel draws from one
// numbered sequence of allocation attempts: srpt_kzalloc() (size > 0),
// srpt_mutex_create() and srpt_spinlock_create() (the shim kzallocs the
// lock), and every fallible creation of a kernel object: rings, QPs, command
// contexts, work items, completions, sessions and listeners (each fails with
// -ENOMEM when its attempt fails). Arming numbers the attempts from 0 again,
// so "fail attempt N" means the (N+1)th allocation the code under test makes
// from now on.
//
// Calls. Independently, one call of a given ABI function can be made to fail
// with a chosen errno (fail_call): "the next srpt_k_qp_create fails with
// -ENOMEM", "the second srpt_k_post_recv from now fails with -EIO". An
// injected call failure is checked before the allocation attempt, and does
// not count as one.
#pragma once

#include <cstddef>

namespace fake {

// Attempt n (0 = the next one) fails; the ones before and after succeed.
void fail_nth_allocation(size_t n);
// Attempt n and every later one fail.
void fail_allocations_from(size_t n);
// No further failures; the injected-failure count is kept until re-armed.
void disarm_allocation_failures();

// Failures injected since the last arm (or reset).
size_t injected_failure_count();
// Attempts made since the last arm (or reset), failed ones included.
size_t allocation_attempts();

// For the fake's allocators: counts one attempt and says whether it fails.
bool next_allocation_fails();

// ABI functions whose failure can be injected.
enum class Call {
  SpinlockCreate,    // returns NULL (the error is ignored)
  RingCreate,
  QpCreate,
  QpReady,
  QpError,
  PostRecv,
  PostSend,
  CmReject,
  CmAccept,
  CmDisconnect,
  RdmaListen,
  IbListen,
  SessionCreate,
  WorkCreate,
  CompletionCreate,
  CmdCreate,
  CmdRdmaPrepare,
  CmdRdmaRead,
  CmdRdmaWrite,
  CmdFetch,
  CmdSendRsp,
  CmdSubmitTmf,
  SrqCreate,
  SrqPostRecv,
  DmAgentCreate,
  PortGid0,
  Count
};
const char* call_name(Call c);

// The call of `c` after `skip` more calls of it returns `err` (a negative
// errno); only that one, unless `and_later`, when every call from it on
// fails. Re-arming a call replaces what was armed for it.
void fail_call(Call c, int err, size_t skip = 0, bool and_later = false);
// Nothing armed for `c` any more (calls made so far stay counted).
void disarm_call(Call c);
// Calls of `c` since reset, and how many of them were failed.
size_t call_count(Call c);
size_t injected_call_failures(Call c);

// For the fake: counts one call of `c` and returns the error to inject, or 0.
int injected_call_error(Call c);
// For the fake's creations: an injected call error, else -ENOMEM when this
// allocation attempt fails, else 0.
int creation_error(Call c);

void reset_fault();

}  // namespace fake
