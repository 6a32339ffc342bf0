#!/bin/bash
# 28 login fuzz over RDMA/CM: tests/tools/login_fuzz sends 500 (make check;
# make fuzz-guest: 10,000) mutated and random login requests seeded from a
# valid one, each answered as the check table of src/core/login.cpp says,
# then a valid login is still established, no channel is left and the
# module unloads cleanly (the runner fails the case on any Oops/WARN in its
# kernel log).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/login_fuzz.sh"

srpt_load
login_fuzz_campaign rdma "${SRPT_CASE_LOGIN_FUZZ_RDMA:-500}"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
