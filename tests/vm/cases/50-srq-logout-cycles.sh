#!/bin/bash
# 50 SRP_I_LOGOUT on the SRQ gives its buffer back.
# With srpt_srq_size at its minimum (4 buffers), a channel on the SRQ logs
# out with SRP_I_LOGOUT more times than the SRQ has buffers; each logout's
# IU gets no response and closes the channel, and its buffer must go back
# to the SRQ. A leak of one buffer per logout empties the SRQ after 4
# cycles, and then no channel of the device gets a request IU any more: the
# next channel's TEST UNIT READY must still be answered, and the objects,
# allocations and rxe0's QPs and CQs return to their baseline
# (fault_check_clean).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

srq_size=4
cycles=$((3 * srq_size))
srpt_load srpt_srq_size=$srq_size recv_ring_cache=0  # fault.sh counts allocations exactly
fault_debugfs
srq_ti_target
logout=$(printf '03%014x%016x' 0 77)


srq_tur_answered "before the logouts"
fault_settle
fault_baseline

kmsg_mark "50 logouts"
for i in $(seq 1 $cycles); do
	out=$(ti rdma --login "$SRQ_IID" "$SRQ_TID" --timeout-ms 1000 --iu "$logout")
	line=$(echo "$out" | grep '^iu=0 ')
	[ "$(ti_field "$line" result)" = none ] || fail "logout $i answered: $out"
done
log "$cycles logouts on an SRQ of $srq_size buffers"
expect_dmesg_since "50 logouts" "closing: SRP_I_LOGOUT" "the logouts' close reason"
fault_settle
srq_tur_answered "after $cycles logouts"
fault_check_clean "after $cycles logouts"

srq_set 0
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
