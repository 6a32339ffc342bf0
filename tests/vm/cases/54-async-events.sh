#!/bin/bash
# case-timeout: 420
# 54 Asynchronous QP and SRQ events, which rxe never raises: the
# fault points qp_event and srq_event (src/shim/fault.h) call the QP's or
# its SRQ's own event handler after a receive completion, as a driver
# would. With ib_srp logged in over two channels (reconnect_delay 1 s):
# - QP_ACCESS_ERR closes that channel ("fatal QP event"), ib_srp logs in
#   again, and I/O verifies;
# - with use_srq=1, SRQ_ERR is logged once, a new SRQ replaces the failed
#   one, the channels on the failed one close, the failed one is released,
#   ib_srp logs in again on the new SRQ, and I/O verifies.
# The unload at the end checks that no object or allocation is left.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

srpt_is_intree && skip "the fault points are this module's"

# touch_disk: one small direct read, so that a receive completes (it may
# fail while the channel it went to closes; the SCSI layer retries).
touch_disk() { dd if="$dev" of=/dev/null bs=4k count=4 iflag=direct status=none || true; }

srpt_load
fault_debugfs
io_nullb
srp_target "$(port_guid_name)" "$VETH0_IP"
dev=$(io_disk "ch_count=2") || exit 1
srq_fast_reconnect
srq_expect_rq own 2
io_dd_verify "$dev" 1M 8 direct

kmsg_mark "54 qp"
fault_arm qp_event 1
touch_disk
assert_eq "$(fault_injected qp_event)" 1 "QP events injected"
expect_dmesg_since "54 qp" "ib_srpt: channel .*: QP event \"QP access error\"; closing the channel" \
	"QP event logged"
expect_dmesg_since "54 qp" "closing: fatal QP event" "channel closed for it"
srq_expect_rq own 2
io_dd_verify "$dev" 1M 8 direct
log "I/O verified after the QP event"

srq_set 1
srq_expect_rq srq 2
kmsg_mark "54 srq"
fault_arm srq_event 1
touch_disk
assert_eq "$(fault_injected srq_event)" 1 "SRQ events injected"
expect_dmesg_since "54 srq" "ib_srpt: $RXE: shared receive queue failed \\(SRQ error\\)" "SRQ error logged"
expect_dmesg_since "54 srq" "$RXE: a new shared receive queue of [0-9]* buffers replaces the failed one" \
	"new SRQ"
expect_dmesg_since "54 srq" "closing: shared receive queue failed" "its channels closed"
srq_expect_rq srq 2
expect_dmesg_since "54 srq" "$RXE: failed shared receive queue released" "failed SRQ released"
n=$(dmesg_since "54 srq" | grep -c "shared receive queue failed (SRQ error)")
assert_eq "$n" 1 "SRQ error lines"
assert_eq "$(srq_count)" 1 "SRQs after the replacement"
io_dd_verify "$dev" 1M 8 direct
log "I/O verified on the new SRQ"

srq_set 0
srq_expect_rq own 2
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
