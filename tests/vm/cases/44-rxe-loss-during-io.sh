#!/bin/bash
# case-timeout: 420
# 44 rxe link loss during ib_srp I/O (fio with crc32c verification), as
# ib_srp on Debian's 6.1 goes through it:
# (a) veth0, the netdev under rxe0, goes down for 2 s and comes up again
#     (port error, port active) under light fio (QD 1, 20 IOPS, one
#     channel). ib_srp's next send fails, it blocks its remote port and
#     reconnects after reconnect_delay (15 s, when the link is back); the
#     login disconnects the old channel at the target; the command ib_srp
#     lost is retried and fio completes with every block verified.
#     A CM message sent while the link is down is a MAD rxe cannot route,
#     and rxe puts QP1 in the error state for good (case 51): no later
#     login on rxe0 is answered, ib_srp's reconnect waits out the CM's REQ
#     retries (~100 s) holding its remote port's mutex, and the kernel
#     reports its fast_io_fail work as a hung task. The target's DREQ (a
#     response it sends in that window fails and closes the channel) waits
#     for the port (Channel::await_port_for_disconnect; case 51 makes that
#     window deterministic). ib_srp's own DREQ, from a reconnect
#     attempt while the link is down, is out of our hands: hence the late
#     first reconnect.
# (b) `rdma link delete rxe0` under fio (QD 32, two channels): both ib_srp and the target lose the
#     device. ib_srp removes its SCSI host and fio fails with ENODEV (or EIO)
#     within seconds; the removal finishes in bounded time; the target
#     releases its channels and everything it held on the device (its target
#     port stays in configfs, disabled). rxe0 added again, the target made
#     again: a fresh login and verified fio work, and the module's objects
#     and rxe0's QPs/CQs are back to the baseline.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/disrupt.sh"

srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
io_nullb
srp_target "$(port_guid_name)" "$VETH0_IP"
fault_debugfs

dio_baseline

rport_state() { cat /sys/class/srp_remote_ports/port-*/state 2>/dev/null | tr '\n' ' '; }
port_state() { cat "/sys/class/infiniband/$RXE/ports/1/state"; }

# (a) The link goes down for 2 s under light fio (see the top).
dev=$(io_disk ch_count=1) || exit 1
# First reconnect 15 s after the loss, well after the link is back; I/O
# fails only after 60 s.
dio_rport_tmo 15 60 120
dio_fio_start linkdown --filename="$dev" --direct=1 --rw=randwrite --bs=4k --iodepth=1 \
	--rate_iops=20 --size=2M
dio_wait_io "$dev" 50
kmsg_mark "44 down"
run ip link set "$VETH0" down
sleep 2
run ip link set "$VETH0" up
kmsg_mark "44 up"
log "link back: port $(port_state), rport $(rport_state), target channels $(srp_channels | awk '{print $4}' | tr '\n' ' ')"
dio_expect_running "link down"
dio_fio_wait 90
out=$(dio_fio_outcome)
log "link down/up: fio status $DIO_STATUS after $DIO_SECS s: $out; rport $(rport_state)"
dmesg_since "44 down" | grep -E "ib_srp|ib_srpt|rxe|reconnect|fast_io|dev_loss" | head -30
[ "$out" = ok ] || fail "link down/up: fio ended '$out', expected every block verified"
# (Whether ib_srp noticed the loss at all depends on a command being sent
# in the window; when it did, it must have logged in again.)
if dmesg_since "44 down" | grep -q "ib_srp: failed"; then
	expect_dmesg_since "44 down" "ib_srp: reconnect succeeded" "ib_srp logged in again"
	dmesg_since "44 up" | grep -q "reconnect attempt" && fail "a reconnect failed after the link was back"
fi
dio_channels_idle 1
srp_logout
srp_wait_channels 0
fault_check_clean "link down/up"
log "link down/up: objects back: $OBJLINE"

# (b) rxe0 is deleted under fio.
dev=$(io_disk ch_count=2) || exit 1
dio_fio_start linkdel --filename="$dev" "${DIO_FIO_W[@]}" --size=64M
dio_wait_io "$dev" 1000
dio_expect_running "rxe removal"
kmsg_mark "44 delete"
s=$SECONDS
timeout 90 rdma link delete "$RXE" &
del=$!
dio_fio_wait 90
out=$(dio_fio_outcome)
log "rxe removal: fio status $DIO_STATUS after $DIO_SECS s: $out"
# (The errno depends on where the removal meets each request: ENODEV
# for one issued after the SCSI device went away, EIO for one it failed.)
case "$out" in
"io-error "*) ;;
*) fail "rxe removal: fio ended '$out', expected an I/O error" ;;
esac
wait "$del" || fail "rdma link delete failed or did not finish in 90 s"
log "rdma link delete took $((SECONDS - s)) s"
rxe_present && fail "$RXE still present after its removal"
dio_wait_no_rport 30
srp_wait_channels 0
expect_dmesg_since "44 delete" "ib_srpt: $RXE port 1 removed" "the target let go of the port"
fault_settle
obj_read
[ "$O_cm_adopted" = "$O_cm_destroyed" ] || fail "rxe removal: cm_ids not destroyed exactly once: $OBJLINE"
log "rxe removal: objects: $OBJLINE"

# rxe0 back, the target made again, a fresh login with verified I/O.
srpt_cfs_clear >/dev/null || fail "configfs teardown after the removal failed"
run rxe_add
run mkdir -p "$SRPT_CFS"
srp_target "$(port_guid_name)" "$VETH0_IP"
dev=$(io_disk ch_count=2) || exit 1
io_fio after --filename="$dev" "${DIO_FIO_W[@]}"
dio_channels_idle 2
srp_logout
srp_wait_channels 0
fault_check_clean "after rxe0 came back"
log "rxe0 back: objects back: $OBJLINE"
mem_check_back
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
