#!/bin/bash
# 49 more request IUs than credits, on the SRQ. The test initiator sends
# TEST UNIT READY n times before its RTU (srp_initiator --burst); the target
# holds every one until it sees the RTU. Exactly the credits: all answered
# after the RTU. One more: only an SRQ has a buffer for it (an own receive
# queue has as many as the credits), and the target closes that channel
# ("more request IUs than credits") without taking it, instead of
# overrunning its table of held IUs. Every SRQ buffer goes back: the next
# channel's burst is answered in full, and after each channel the objects,
# allocations and rxe0's QPs and CQs return to their baseline and the cm_id
# rule holds (fault_check_clean).
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/hostile.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
fault_debugfs
srq_ti_target

# The credits the target grants a channel on the SRQ: req_lim_delta of the
# SRP_LOGIN_RSP (bytes 4..7 of the REP's private data).
ti_expect "login on the SRQ" established - rdma --login "$SRQ_IID" "$SRQ_TID"
rsp=$(ti_field "$TI_LINE" priv)
credits=$((16#${rsp:8:8}))
log "credits granted on the SRQ: $credits"
[ "$credits" -ge 2 ] || fail "implausible credits: $rsp"
fault_settle
fault_baseline

# burst LABEL N: N TURs before the RTU; sets ANSWERS and CLOSED.
burst() {
	local out line
	out=$(ti rdma --login "$SRQ_IID" "$SRQ_TID" --timeout-ms 3000 --iu "$SRQ_TUR" --burst "$2")
	line=$(echo "$out" | grep '^burst ')
	log "$1: $line"
	[ -n "$line" ] || fail "$1: no burst line: $out"
	ANSWERS=$(ti_field "$line" answers)
	CLOSED=$(ti_field "$line" closed)
}

burst "as many as the credits" "$credits"
assert_eq "$ANSWERS" "$credits" "answers to a burst of $credits"
assert_eq "$CLOSED" 0 "target closed the channel after $credits"
fault_check_clean "after $credits"

kmsg_mark "49 beyond"
# The target's device took all of them (their RC ACKs) before the RTU went
# out, but the target itself sees the RTU (CM path) and the receive
# completions (CQ path) in whatever order its workers run them: when the
# RTU comes first, the channel is live and answers the IUs it has seen
# until the one beyond the credits arrives while it still holds all the
# others. So the number of answers is the guest's timing; what is not is that the IU beyond the credits is never taken:
# the channel closes, and no more than its credits are answered.
burst "one more than the credits" $((credits + 1))
[ "$ANSWERS" -le "$credits" ] || fail "answers to a burst of $((credits + 1)): $ANSWERS, more than the $credits credits"
assert_eq "$CLOSED" 1 "target closed the channel after $((credits + 1))"
expect_dmesg_since "49 beyond" "request IU beyond its $credits credits" "the overrun's log line"
expect_dmesg_since "49 beyond" "closing: more request IUs than credits" "the close reason"
fault_check_clean "after $((credits + 1))"

# The SRQ has all its buffers back.
burst "as many as the credits, again" "$credits"
assert_eq "$ANSWERS" "$credits" "answers to a burst of $credits after the overrun"
fault_check_clean "after the last burst"

srq_set 0
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
