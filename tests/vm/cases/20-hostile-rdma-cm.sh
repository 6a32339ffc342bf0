#!/bin/bash
# 20 the login table over RDMA/CM, as a hostile initiator sees it on the
# wire: each malformed or refused login gets its CM reject and SRP reason
# (the check table of src/core/login.cpp), a valid one the SRP_LOGIN_RSP,
# and nothing is left behind.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"

srpt_load
ti_hostile_target rdma
ti_login_table rdma
# A port nobody listens on: the CM itself rejects (invalid service id, 8).
ti_expect "rdma closed port" rejected 0x00000000 rdma --port 5556 \
	--login "$(ti_initiator_port_id)" "$(ti_target_port_id)"
[ "$(ti_field "$TI_LINE" cm_status)" = 8 ] || fail "closed port: cm_status is not 8"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
