#!/bin/bash
# case-timeout: 420
# 43 logout during ib_srp I/O (fio, crc32c verification, QD 32, two
# channels), as measured with ib_srp on Debian's 6.1:
# (a) the initiator logs out (remote port delete): its SCSI host goes away
#     under fio, whose I/O fails (ENODEV, EIO) within seconds, nothing
#     read back differs; the target releases both channels on the DREQs and
#     every object it allocated for them (ib_srpt/objects, rxe0's QPs/CQs).
# (b) the target logs the initiator out: TPG disabled, 3 s later enabled
#     again. ib_srp's reconnects (every 1 s) are refused 0x00010001 until the
#     TPG is back, then it logs in again; the commands it lost are retried
#     and fio completes with every block verified.
# (c) the initiator's ACL is removed and re-added. Its LUN mapping has to go
#     first (configfs), and from then until the session is closed the target
#     core serves the session's LUN 0 from its read-only virtual LUN: writes
#     fail with DATA PROTECT / WRITE PROTECTED, so fio ends with EREMOTEIO.
#     Reconnects are refused 0x00010006 until the ACL is back; then ib_srp
#     logs in again and the same disk takes verified I/O.
# SRP_I_LOGOUT is never sent by ib_srp (case 25 sends it from the test
# initiator). Every wait is bounded: fio or a removal that does not end in
# time fails the case as a hang.
. "$SRPT_ROOT/tests/vm/lib.sh"
. "$SRPT_ROOT/tests/vm/srp.sh"
. "$SRPT_ROOT/tests/vm/io.sh"
. "$SRPT_ROOT/tests/vm/fault.sh"
. "$SRPT_ROOT/tests/vm/disrupt.sh"

srpt_load recv_ring_cache=0  # fault.sh counts allocations exactly
io_nullb
name=$(port_guid_name)
t=$SRPT_CFS/$name/tpgt_1
acl=$t/acls/$VETH0_IP
srp_target "$name" "$VETH0_IP"
fault_debugfs

dio_baseline

# (a) The initiator logs out under fio.
dev=$(io_disk ch_count=2) || exit 1
dio_fio_start logout --filename="$dev" "${DIO_FIO_W[@]}" --size=64M
dio_wait_io "$dev" 1000
dio_expect_running "initiator logout"
kmsg_mark "43 logout"
for p in /sys/class/srp_remote_ports/port-*; do echo 1 >"$p/delete"; done
dio_wait_no_rport 60
dio_fio_wait 60
out=$(dio_fio_outcome)
log "initiator logout: fio status $DIO_STATUS after $DIO_SECS s: $out"
# (The errno depends on where the removal meets each request: ENODEV
# for one issued after the SCSI device went away, EIO for one it failed.)
case "$out" in
"io-error "*) ;;
*) fail "initiator logout: fio ended '$out', expected an I/O error" ;;
esac
srp_wait_channels 0
[ "$(dmesg_since "43 logout" | grep -c 'closing: initiator disconnected')" = 2 ] ||
	fail "initiator logout: the target did not log both channels closing on the DREQ"
fault_check_clean "initiator logout"
log "initiator logout: objects back: $OBJLINE"

# (b) The target disables the TPG under fio, enables it 3 s later.
dev=$(io_disk ch_count=2) || exit 1
# Reconnect every second; fail I/O only after 30 s, drop the port after
# 120 s (times WAIT_SCALE). The port keeps these timers through (c), and
# dev_loss_tmo is ib_srp's deadline for (c)'s whole disconnection, from the
# session's close to the ACL's return: it spans fio's end and the checks
# below (their dmesg scans grow with the guest's log): about 3.5 s on 6.1,
# 40 s on the debug kernel, and on a slower machine late in a debug shard
# more than 120 s, hence the scaling: a port ib_srp dropped before the ACL
# was back would fail the case.
dio_rport_tmo 1 30 $((120 * WAIT_SCALE))
dio_fio_start tpg --filename="$dev" "${DIO_FIO_W[@]}"
dio_wait_io "$dev" 1000
dio_expect_running "TPG disable"
kmsg_mark "43 tpg"
run sh -c "echo 0 > $t/enable"
sleep 3
run sh -c "echo 1 > $t/enable"
dio_fio_wait 120
out=$(dio_fio_outcome)
log "TPG disable/enable: fio status $DIO_STATUS after $DIO_SECS s: $out"
[ "$out" = ok ] || fail "TPG disable/enable: fio ended '$out', expected every block verified"
[ "$(dmesg_since "43 tpg" | grep -c 'closing: TPG disabled')" = 2 ] ||
	fail "TPG disable: not both channels closed"
expect_dmesg_since "43 tpg" "ib_srpt: login from .* rejected: 0x00010001" "reconnect to the disabled TPG refused"
expect_dmesg_since "43 tpg" "ib_srp: reconnect succeeded" "ib_srp logged in again"
dio_channels_idle 2

# (c) The ACL is removed under fio, and re-added. While it is re-added the
# listener is off: a reconnect between the ACL's mkdir and its LUN mapping
# would log in to a session without LUN 0 (more write-protected errors).
# 64 MiB per job: the removal must meet fio's writes. Reads in that window
# are served by the virtual LUN too: a removal that meets fio's read-back
# phase can make fio report a verification failure besides EREMOTEIO (its
# cause not traced).
dio_fio_start acl --filename="$dev" "${DIO_FIO_W[@]}" --size=64M
dio_wait_io "$dev" 1000
dio_expect_running "ACL removal"
kmsg_mark "43 acl"
t_acl=$SECONDS
run rm "$acl/lun_0/lun_0"
run rmdir "$acl/lun_0"
run rmdir "$acl"
dio_fio_wait 60
out=$(dio_fio_outcome)
log "ACL removal: fio status $DIO_STATUS after $DIO_SECS s: $out"
[ "$out" = "io-error 121" ] || fail "ACL removal: fio ended '$out', expected EREMOTEIO (write protected)"
expect_dmesg_since "43 acl" "Add. Sense: Write protected" "writes to the unmapped LUN 0 refused"
[ "$(dmesg_since "43 acl" | grep -c 'closing: session closed by the target core')" = 2 ] ||
	fail "ACL removal: not both channels closed"
# Let a reconnect or two be refused for the missing ACL.
for i in $(seq 100); do
	dmesg_since "43 acl" | grep -q "rejected: 0x00010006" && break
	sleep 0.1
done
expect_dmesg_since "43 acl" "ib_srpt: login from .* rejected: 0x00010006" "reconnect without ACL refused"
srp_channels | grep . && fail "a channel is left without an ACL"
kmsg_mark "43 acl back"
run sh -c "echo 0 > $SRPT_CFS/discovery_auth/rdma_cm_port"
run mkdir "$acl"
run mkdir "$acl/lun_0"
run ln -s "$t/lun/lun_0" "$acl/lun_0/lun_0"
run sh -c "echo $SRP_PORT > $SRPT_CFS/discovery_auth/rdma_cm_port"
log "ACL removal: the ACL was back after $((SECONDS - t_acl)) s"
# A port ib_srp has given up on (dev_loss_tmo expired) never reconnects:
# say so at once rather than wait for a reconnect that cannot come.
acl_back_reconnected() {
	dmesg_since "43 acl back" | grep -q "ib_srp: reconnect succeeded" && return 0
	srp_remote_ports_gone && fail "ib_srp removed the remote port before the ACL was back ($(dmesg_since "43 acl" | grep -m1 'dev_loss_tmo expired'))"
	return 1
}
poll_until 30 acl_back_reconnected
expect_dmesg_since "43 acl back" "ib_srp: reconnect succeeded" "ib_srp logged in again after the ACL came back"
io_fio acl-back --filename="$dev" "${DIO_FIO_W[@]}"
dio_channels_idle 2

srp_logout
srp_wait_channels 0
fault_check_clean "end"
log "end: objects back: $OBJLINE"
mem_check_back
srp_cleanup
srpt_unload || fail "unload failed"
exit 0
