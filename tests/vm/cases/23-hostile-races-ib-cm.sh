#!/bin/bash
# 23 case 24 over IB/CM: logins arriving while the TPG is being disabled,
# while the module is being removed, and while the rxe device is removed.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/ibcm.sh"
trap ibcm_cleanup EXIT

TMPDIR=$(mktemp -d)
srpt_load
ibcm_load
ti_hostile_target ib
ti_races ib
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
