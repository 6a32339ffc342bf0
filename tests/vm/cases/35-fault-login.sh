#!/bin/bash
# 35 every fault injection point of the login path but allocations (case
# 36), with real logins over RDMA/CM (tests/tools/srp_login): for each point,
# N = 1, 2, ... until a login gets through with the point still armed. Each
# injected failure must give the initiator the documented answer, the login
# handler's result must match who destroyed the cm_id (the CM core for
# non-zero; the channel, exactly once, for zero), and the module's objects
# and allocations and rxe0's QPs and CQs must be back to the baseline. Then
# a reject whose own send fails, a normal login, Slab and MemAvailable within
# noise, and rmmod.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"

[ -x "$FAULT_TOOL" ] || fail "$FAULT_TOOL missing (make tools)"
srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
fault_target
fault_warm_up
mem_baseline

# Resource failures before the channel took the cm_id: 0x00010001.
res="rejected status=28 reason=0x00010001"
for point in cq_create qp_create session; do
	fault_walk "$point" "$res"
	assert_eq "$WALK_STEPS" 1 "$point failures on the login path"
done
# RDMA/CM moves the QP itself (rdma_create_qp, rdma_accept): no qp_modify.
fault_walk qp_modify "$res"
assert_eq "$WALK_STEPS" 0 "qp_modify failures on the RDMA/CM login path"
# After the channel took the cm_id: handler 0, the channel tears down, and
# its rdma_destroy_id() of the never-accepted id makes the CM send a REJ
# (consumer defined, 28) without private data: reason 0 at the initiator.
fault_walk cm_accept "rejected status=28 reason=0x00000000"
assert_eq "$WALK_STEPS" 1 "cm_accept failures"

# The reject of a policy refusal (wrong target port id) cannot be sent.
out=$(fault_login multi 0123456789abcdef)
log "policy reject: $out"
fault_expect_login "policy reject" "$out" "rejected status=28 reason=0x00010003"
inj0=$(fault_injected cm_reject) nz0=$(obj login_ret_nonzero)
fault_arm cm_reject 1
out=$(fault_login multi 0123456789abcdef)
log "policy reject, REJ not sent: $out"
assert_eq "$(fault_injected cm_reject)" $((inj0 + 1)) "cm_reject failures"
assert_eq "$(obj login_ret_nonzero)" $((nz0 + 1)) "handler results non-zero"
# Measured: the CM core destroys the id of the non-zero handler result and
# its destroy sends a REJ (28) of its own, without the SRP_LOGIN_REJ.
fault_expect_login "REJ not sent" "$out" "rejected status=28 reason=0x00000000"
fault_check_clean "REJ not sent"

# A normal login right after, and memory back.
out=$(fault_login multi)
fault_expect_login "after the walk" "$out" established
fault_check_clean "after the walk"
# The exact checks are the module's own counts and rxe's QP/CQ counts
# above; this catches what neither counts (e.g. target-core memory).
mem_check_back
log "objects: $(objline)"
log "faults: $(grep -v '^#' "$DBG/fault" | tr '\n' ';')"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
