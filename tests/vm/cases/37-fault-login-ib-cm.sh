#!/bin/bash
# 37 case 35 over IB/CM (srpt_test_ibcm.ko): every fault point of the login
# path but allocations, walked with real IB/CM logins, with the same checks:
# the initiator's answer, the handler's result against who destroyed the
# cm_id, objects, allocations and rxe0's QPs/CQs back to the baseline. Only
# IB/CM moves the QP itself, so only here is qp_modify on the login path:
# INIT before the channel takes the cm_id (0x00010001), RTR after it (the
# channel tears down; the CM's REJ carries no SRP reply), RTS after the RTU
# (the initiator is in; the channel closes at once).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/ibcm.sh"
FAULT_CM=ib_cm
. "$SRPT_ROOT/tests/vm/fault.sh"
trap ibcm_cleanup EXIT

srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
ibcm_load
fault_target
fault_warm_up

res="rejected status=28 reason=0x00010001"
for point in cq_create qp_create session; do
	fault_walk "$point" "$res"
	assert_eq "$WALK_STEPS" 1 "$point failures on the login path"
done
fault_walk qp_modify "$res" "rejected status=28 reason=0x00000000" established
assert_eq "$WALK_STEPS" 3 "qp_modify failures on the IB/CM login path (INIT, RTR, RTS)"
fault_walk cm_accept "rejected status=28 reason=0x00000000"
assert_eq "$WALK_STEPS" 1 "cm_accept failures"

out=$(fault_login multi)
fault_expect_login "login after the walk" "$out" established
fault_check_clean "after the walk"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
