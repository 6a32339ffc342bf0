#!/bin/bash
# 42 use_srq flipped 1 -> 0 -> 1 while ib_srp is logged in and fio writes
# and verifies: each write logs the initiator out (its channels close with
# "use_srq changed"), ib_srp reconnects after its reconnect_delay (1 s) on
# the new receive queue, the SCSI commands it held are retried, and every
# block written across the switches is read back and verified (crc32c) with
# zero verification or I/O errors. Then the srq_create fault: use_srq=1
# fails with ENOMEM and a log line, nothing changes (use_srq stays 0, no
# channel closes, no SRQ), I/O still works, and a later use_srq=1 works.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/srq.sh"

srpt_load
fault_debugfs
io_nullb
srp_target "$(port_guid_name)" "$VETH0_IP"
srq_set 1
dev=$(io_disk "ch_count=1") || exit 1
srq_fast_reconnect
srq_expect_rq srq 1

# fio in the background across both switches: passes of a size-bound job,
# each writing 2 x 16 MiB at random and then reading every block back
# verified (io_fio: fails on any error, or when less is read back than was
# written), one after another until both switches are done. A switch lands
# in some pass's write or verify phase; the pass running then must verify
# all it wrote. (A time-based job has no verify phase of its own: fio 3.33
# verified only the loops over the region it completed, never the blocks
# of the loop the runtime cut short.)
kmsg_mark "42 flip"
rm -f /tmp/42-stop /tmp/42-passes
(
	n=0
	until [ -e /tmp/42-stop ]; do
		n=$((n + 1))
		io_fio "flip$n" --filename="$dev" --direct=1 --rw=randwrite --bs=4k-64k \
			--iodepth=16 --numjobs=2 --size=16M --offset_increment=16M
		echo "$n" >/tmp/42-passes
	done
) &
fio_pid=$!
# A case that ends early leaves no fio behind (its children first: killing
# the loop alone would orphan them).
trap 'kill -9 $(cat /proc/$fio_pid/task/*/children 2>/dev/null) "$fio_pid" 2>/dev/null' EXIT
# flip_expect_fio WHAT: the fio passes are still running (else the switch
# would not meet I/O and the case would prove nothing).
flip_expect_fio() { kill -0 "$fio_pid" 2>/dev/null || fail "$1: the fio passes ended early"; }
sleep 8
flip_expect_fio "switch to own rings"
srq_set 0
srq_expect_rq own 1
log "logged in again on own rings"
sleep 6
flip_expect_fio "switch to the SRQ"
srq_set 1
srq_expect_rq srq 1
log "logged in again on the SRQ"
flip_expect_fio "after the switches"
touch /tmp/42-stop
# The pass running now finishes (verify included) before the loop ends;
# one pass takes well under 120 s here, so longer is a hang.
for i in $(seq 1200); do kill -0 "$fio_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$fio_pid" 2>/dev/null && fail "the fio pass did not end within 120 s of the switches"
wait "$fio_pid" || fail "fio across the switches failed (a pass above says why)"
trap - EXIT
log "fio passes across the switches, every one verified: $(cat /tmp/42-passes)"
closed=$(dmesg_since "42 flip" | grep -c "closing: use_srq changed")
log "channels closed by the switches: $closed"
[ "$closed" -ge 2 ] || fail "expected a logout per switch, saw $closed"
# ib_srp's side: its connection was lost and re-established per switch.
reconnects=$(dmesg_since "42 flip" | grep -c "ib_srp: reconnect succeeded")
log "initiator: $reconnects reconnects"
[ "$reconnects" -ge 2 ] || fail "expected ib_srp to reconnect after each switch, saw $reconnects"
dmesg_since "42 flip" | grep -E "I/O error|rejecting I/O" &&
	fail "the initiator failed I/O across the switches"

# srq_create fails: the write fails with ENOMEM, nothing else changes.
srq_set 0
srq_expect_rq own 1
before=$(srp_channels)
kmsg_mark "42 fault"
fault_arm srq_create 1
expect_errno "Cannot allocate memory" bash -c "echo 1 > $(srq_attr)"
expect_dmesg_since "42 fault" "creating the shared receive queue of $RXE failed .-12.; the port goes on without SRQ" "log line"
assert_eq "$(fault_injected srq_create)" 1 "srq_create failures injected"
assert_eq "$(cat "$(srq_attr)")" 0 "use_srq after the failed switch"
assert_eq "$(srq_count)" 0 "SRQs after the failed switch"
dmesg_since "42 fault" | grep -q "closing" && fail "the failed switch closed channels"
assert_eq "$(srp_channels | cut -d" " -f1-13,15)" "$(echo "$before" | cut -d" " -f1-13,15)" "channels after the failed switch"
io_fio after-fault --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=4M
srq_set 1
srq_expect_rq srq 1
io_fio after-on --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=4M

srp_cleanup
fault_settle
srpt_unload || fail "unload failed"
exit 0
