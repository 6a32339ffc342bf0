#!/bin/bash
# 24 over RDMA/CM: logins arriving while the TPG is being disabled, while
# the module is being removed, and while the rxe device is being removed.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"

TMPDIR=$(mktemp -d)
srpt_load
ti_hostile_target rdma
ti_races rdma
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
