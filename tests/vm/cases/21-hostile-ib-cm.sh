#!/bin/bash
# 21 case 20's login table and case 22's misbehaving initiators over IB/CM
# on RoCE, sent by srpt_test_ibcm.ko through srp_initiator --cm ib: the same
# SRP reasons on the wire, and every channel released whatever the
# initiator does after the REP.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/ibcm.sh"
trap ibcm_cleanup EXIT

TMPDIR=$(mktemp -d)
srpt_load max_channels_per_nexus=1
ibcm_load
ti_hostile_target ib
ti_login_table ib
# A service id nobody listens on: the CM itself rejects (invalid service id).
ti_args ib
out=$("$TI" "${TI_ARGS[@]}" --service-id 1234 --login "$(ti_initiator_port_id)" "$(ti_target_port_id)")
log "ib unknown service id: $out"
[ "$(ti_field "$out" result)" = rejected ] && [ "$(ti_field "$out" cm_status)" = 8 ] ||
	fail "unknown service id not rejected with CM reason 8: $out"
ti_after_rep ib
ti_channel_limit ib
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
