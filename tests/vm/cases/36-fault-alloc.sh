#!/bin/bash
# 36 the allocation walk: with "alloc N" armed for N = 1, 2, ..., a login over
# RDMA/CM fails the Nth allocation the module makes (core and shim alike:
# channel, tables, commands, rings and their buffer chunks, QP object, command
# contexts, work item, completion), until a login gets through with the
# fault still armed: every allocation of the login path was failed once. Each
# failed one is rejected 0x00010001 with the handler's non-zero result, and
# leaves no allocation, object, QP or CQ behind. Then the receive ring's
# 128 KiB chunk failed (chunk_large): the ring falls back to 32 KiB chunks
# and the login gets through. Then a normal login, Slab and MemAvailable
# within noise; 20000 objects of 120 bytes charged 128 bytes each wherever
# the allocator put them (KFENCE sampling every millisecond), and rmmod.
# case-timeout: 1200
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"

[ -x "$FAULT_TOOL" ] || fail "$FAULT_TOOL missing (make tools)"
srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
fault_target
fault_warm_up
mem_baseline
start=$SECONDS

fault_walk alloc "rejected status=28 reason=0x00010001"
# srp_sq_size 16: 16 commands and 16 command contexts, besides the rings
# (their 32 KiB chunks; the 128 KiB try is chunk_large's, below) and the rest.
[ "$WALK_STEPS" -ge 40 ] || fail "only $WALK_STEPS allocations on the login path"
log "alloc walk: $WALK_STEPS steps in $((SECONDS - start)) s"

# 16 receive buffers of 8704 bytes: 15 fill a 128 KiB chunk, which a login
# tries once; failed, it goes on with 32 KiB chunks.
fault_read
calls0=$F_CALLS_chunk_large inj0=$F_INJ_chunk_large
out=$(fault_login multi)
fault_expect_login "a login before the 128 KiB chunk fails" "$out" established
fault_read
assert_eq "$F_CALLS_chunk_large" $((calls0 + 1)) "tries at a 128 KiB chunk in one login"
calls0=$F_CALLS_chunk_large
fault_arm chunk_large 1
out=$(fault_login multi)
fault_expect_login "128 KiB chunk failed" "$out" established
fault_read
assert_eq "$F_INJ_chunk_large" $((inj0 + 1)) "chunk_large failures"
assert_eq "$F_CALLS_chunk_large" $((calls0 + 1)) "chunk_large tries"
fault_check_clean "after the 128 KiB chunk failed"

out=$(fault_login multi)
fault_expect_login "after the walk" "$out" established
fault_check_clean "after the walk"
mem_check_back

# What the counters charge for an object must not depend on where the
# allocator put it: a KFENCE-sampled object's ksize() is the size asked
# for, any other's the size of its kmalloc bucket, and case 44 once failed
# on the debug kernel with 8 bytes more after a device came back. With
# KFENCE sampling every millisecond (where the kernel has it), 20000
# objects of 120 bytes are charged 128 bytes each. The guest boots with
# KFENCE on (scripts/vm/boot.sh): turned on here from off, the kernel would
# look for its 2 MiB pool now, a heavy and variable operation that the
# case is not about.
kfence=/sys/module/kfence/parameters/sample_interval
kfence0=
if [ -w "$kfence" ]; then
	kfence0=$(cat "$kfence")
	[ "$kfence0" != 0 ] || fail "KFENCE is built in but off (sample_interval 0): the guest should boot with it on"
	echo 1 >"$kfence"
fi
obj_read
bytes0=$O_alloc_bytes allocs0=$O_allocs
fault_arm hold 120
obj_read
held=$((O_alloc_bytes - bytes0))
fault_arm release 0
[ -z "$kfence0" ] || echo "$kfence0" >"$kfence"
log "20000 objects of 120 bytes: $((O_allocs - allocs0)) allocations, $held bytes charged (KFENCE interval ${kfence0:-absent} -> 1 ms)"
assert_eq "$((O_allocs - allocs0))" 20000 "allocations held"
assert_eq "$held" $((20000 * 128)) "bytes charged for 20000 objects of 120 bytes"
fault_check_clean "after the held objects were freed"
log "objects: $(objline)"
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
