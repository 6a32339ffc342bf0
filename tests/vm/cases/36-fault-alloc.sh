#!/bin/bash
# 36 the allocation walk: with "alloc N" armed for N = 1, 2, ..., a login over
# RDMA/CM fails the Nth allocation the module makes (core and shim alike:
# channel, tables, commands, rings and their buffer chunks, QP object, command
# contexts, work item, completion), until a login gets through with the
# fault still armed: every allocation of the login path was failed once. Each
# failed one is rejected 0x00010001 with the handler's non-zero result, and
# leaves no allocation, object, QP or CQ behind. Then a normal login, Slab
# and MemAvailable within noise, and rmmod.
# case-timeout: 1200
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"

[ -x "$FAULT_TOOL" ] || fail "$FAULT_TOOL missing (make tools)"
srpt_load
fault_target
fault_warm_up
mem_baseline
start=$SECONDS

fault_walk alloc "rejected status=28 reason=0x00010001"
# srp_sq_size 16: 16 commands and 16 command contexts, besides the rings
# (whose buffers come in chunks of up to 32 KiB) and the rest.
[ "$WALK_STEPS" -ge 40 ] || fail "only $WALK_STEPS allocations on the login path"
log "alloc walk: $WALK_STEPS steps in $((SECONDS - start)) s"

out=$(fault_login multi)
fault_expect_login "after the walk" "$out" established
fault_check_clean "after the walk"
mem_check_back
log "objects: $(objline)"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
